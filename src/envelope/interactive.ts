// `esign envelope create` at a terminal with something missing: the person is asked for it (the
// template from the names in force, the signatory, each required field not given), each answer
// checked at its question with the check its flag gets, then shown what will be sent and asked once
// to confirm. The prompts come from @clack/prompts, loaded with this module, which is loaded only
// when a prompt is shown; in accessible mode they are plain numbered questions instead
// (src/io/plain-prompts.ts), never redrawn. Prompts go to stderr (stdout stays the result).
import { type Readable, Writable } from 'node:stream';
import { cancel, confirm, isCancel, note, outro, select, text } from '@clack/prompts';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { PlainPrompter, STOPPED } from '../io/plain-prompts.js';
import { drawable } from '../io/terminal.js';
import { escapeControl } from '../text/terminal-text.js';

/** A field of the template, as the project file (or the sandbox's template list) describes it. */
export interface AskedField {
  name: string;
  /** A required field takes a value; an optional one may be left out (Enter alone). */
  required: boolean;
  description?: string | undefined;
  example?: string | undefined;
}

export interface PromptStreams {
  input: Readable;
  /** Where the prompts are drawn: the terminal behind stderr. */
  output: Writable;
  signal: AbortSignal;
  /** Accessible mode: plain numbered questions, never redrawn. */
  plain?: PlainPrompter | undefined;
}

/** What each answer is checked with: the check of the flag it stands for. A problem, or undefined. */
export interface AnswerChecks {
  template(value: string): string | undefined;
  name(value: string): string | undefined;
  email(value: string): string | undefined;
  field(field: AskedField, value: string): string | undefined;
  /** A merge field named at the prompt (its fields unknown): what is wrong with the name, or undefined. */
  fieldName(name: string, taken: readonly string[]): string | undefined;
}

/** Ctrl-C at a prompt: nothing was sent. Exit 130, as any interrupt. */
function interrupted(streams: PromptStreams): never {
  if (streams.plain) streams.plain.say('Stopped; nothing was sent.');
  else cancel('Nothing was sent.', streams);
  streams.plain?.close();
  throw new InterruptedError('Interrupted at a prompt; nothing was sent.');
}

function answer<T>(value: T, streams: PromptStreams): Exclude<T, symbol> {
  if (isCancel(value) || value === STOPPED || streams.signal.aborted) interrupted(streams);
  return value as Exclude<T, symbol>;
}

/** A question answered with text, checked as it is answered. */
async function askText(
  question: {
    message: string;
    placeholder?: string | undefined;
    check: (value: string) => string | undefined;
  },
  streams: PromptStreams,
): Promise<string> {
  const { plain } = streams;
  if (plain) {
    const example = question.placeholder === undefined ? '' : ` For example: ${question.placeholder}.`;
    return answer(await plain.text(`${question.message}?${example}`, question.check), streams);
  }
  return answer(
    await text({
      ...streams,
      message: question.message,
      ...(question.placeholder === undefined ? {} : { placeholder: question.placeholder }),
      validate: (value) => question.check(value ?? ''),
    }),
    streams,
  );
}

/** The template: one of the names in force, or an id typed when there are none. */
async function askTemplate(
  names: Readonly<Record<string, string>>,
  check: AnswerChecks['template'],
  streams: PromptStreams,
): Promise<string> {
  const entries = Object.entries(names);
  if (entries.length === 0) {
    const id = await askText(
      {
        message: 'Template id (no template names are in force for this profile)',
        placeholder: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
        check: (value) => check(value.trim()),
      },
      streams,
    );
    return id.trim();
  }
  const options = entries.map(([name, id]) => ({ value: name, label: escapeControl(name), hint: id }));
  if (streams.plain) return answer(await streams.plain.choose('Which template?', options), streams);
  return answer(await select({ ...streams, message: 'Template', options }), streams);
}

/**
 * One merge field: its description beside the name, its example as the placeholder; an optional
 * one says that Enter alone leaves it out.
 */
function askField(field: AskedField, check: AnswerChecks['field'], streams: PromptStreams): Promise<string> {
  const about = field.description ? ` (${escapeControl(field.description)})` : '';
  const optional = field.required ? '' : ', optional: Enter alone leaves it out';
  return askText(
    {
      message: `${escapeControl(field.name)}${about}${optional}`,
      placeholder: field.example === undefined ? undefined : escapeControl(field.example),
      check: (value) => check(field, value),
    },
    streams,
  );
}

/**
 * The template's fields are not known (no project file declares them, and the base URL is not the
 * sandbox's): merge fields are offered by name, one at a time, until Enter alone.
 */
async function askFieldsByName(
  given: readonly string[],
  checks: AnswerChecks,
  streams: PromptStreams,
): Promise<string[]> {
  const added: string[] = [];
  const taken = () => [...given, ...added].map((pair) => pair.slice(0, Math.max(0, pair.indexOf('='))));
  for (;;) {
    const name = (
      await askText(
        {
          message: `Add a merge field? Its name (this template's fields are not known here; Enter alone: ${added.length === 0 && given.length === 0 ? 'no merge data' : 'no more'})`,
          check: (value) => (value.trim() === '' ? undefined : checks.fieldName(value.trim(), taken())),
        },
        streams,
      )
    ).trim();
    if (name === '') return added;
    const value = await askText(
      { message: `Value of ${escapeControl(name)}`, check: () => undefined },
      streams,
    );
    added.push(`${name}=${value}`);
  }
}

/** A yes/no question whose safe answer, No, is the default. */
export async function askYesNo(message: string, streams: PromptStreams): Promise<boolean> {
  if (streams.plain) return answer(await streams.plain.confirm(message, false), streams);
  return answer(await confirm({ ...streams, message, initialValue: false }), streams);
}

/**
 * The streams for a command's prompts: stdin, and the terminal behind stderr as the run's decision
 * says it can show text: without colour (NO_COLOR, FORCE_COLOR=0), in ASCII (LANG=C); in
 * accessible mode, plain questions on stderr.
 */
export function streamsOf(ctx: Context): PromptStreams {
  const terminal = ctx.spinnerStream as Writable;
  const input = ctx.stdin.stream();
  if (ctx.terminal.accessible) {
    const output = asShown(terminal, { colour: false, unicode: ctx.terminal.unicode, accessible: true });
    return { input, output, signal: ctx.signal, plain: new PlainPrompter(input, output, ctx.signal) };
  }
  const shown = { colour: ctx.terminal.stderrColor > 0, unicode: ctx.terminal.unicode };
  const output = shown.colour && shown.unicode ? terminal : asShown(terminal, shown);
  return { input, output, signal: ctx.signal };
}

/**
 * Shows what will be sent and asks once. False: the person said no. In accessible mode the answer
 * is an explicit y (Enter alone is no answer) and lines typed before the question are dropped.
 */
export async function confirmSend(summary: string, streams: PromptStreams): Promise<boolean> {
  const { plain } = streams;
  if (plain) {
    plain.say(`This envelope will be sent:\n${summary}`);
    return answer(await plain.confirm('Send it?', 'none'), streams);
  }
  note(summary, 'This envelope will be sent', streams);
  return answer(await confirm({ ...streams, message: 'Send it?', initialValue: true }), streams);
}

/**
 * The questions are over: the frame the prompts drew is closed with a last line (`outcome`, or
 * `declined` in the frame's warning style when the answer was no), and the terminal is let go.
 */
export function finishQuestions(streams: PromptStreams, outcome: { said: string; declined?: boolean }): void {
  if (streams.plain) {
    streams.plain.say(outcome.said);
    streams.plain.close();
  } else if (outcome.declined) cancel(outcome.said, streams);
  else outro(outcome.said, streams);
}

/** What `envelope create` was given; the walk-through fills in what is missing. */
export interface CreateAnswers {
  template?: string | undefined;
  name?: string | undefined;
  email?: string | undefined;
  /** Merge fields as `--set` gives them (`key=value`). */
  set: string[];
}

/** What the walk-through knows beside what was given: the names in force, the fields, the checks. */
export interface WalkThrough {
  templateNames: Readonly<Record<string, string>>;
  /**
   * The template's fields the merge data does not give, once the template is known (required ones
   * first asked as required); undefined when its fields are not known here.
   */
  fieldsOf: (template: string) => Promise<AskedField[] | undefined>;
  checks: AnswerChecks;
}

/**
 * Asks for each missing piece in the order a person thinks of them: template, name, email, then
 * the template's fields not given (required ones must be answered, optional ones may be left out);
 * when its fields are not known, merge fields are offered by name. Each answer is checked as it is
 * given.
 */
export async function askForMissing(
  given: CreateAnswers,
  walk: WalkThrough,
  streams: PromptStreams,
): Promise<CreateAnswers> {
  const { checks } = walk;
  const template = given.template ?? (await askTemplate(walk.templateNames, checks.template, streams));
  const name =
    given.name ??
    (
      await askText(
        { message: "Signatory's full name", check: (value) => checks.name(value.trim()) },
        streams,
      )
    ).trim();
  const email =
    given.email ??
    (
      await askText(
        {
          message: "Signatory's email",
          placeholder: 'ada@example.com',
          check: (value) => checks.email(value.trim()),
        },
        streams,
      )
    ).trim();
  const set = [...given.set];
  const fields = await walk.fieldsOf(template);
  if (fields === undefined) set.push(...(await askFieldsByName(set, checks, streams)));
  for (const field of fields ?? []) {
    const value = await askField(field, checks.field, streams);
    if (field.required || value.trim() !== '') set.push(`${field.name}=${value}`);
  }
  return { template, name, email, set };
}

/**
 * The terminal as the run can show it. The prompt library colours through node:util's styleText,
 * which on Node 20 ignores NO_COLOR, and draws Unicode marks whatever the locale: without colour its
 * SGR sequences are taken out (cursor moves kept); without Unicode its marks become ASCII, and in
 * accessible mode the symbols that carry meaning become words, as every symbol esign draws does
 * (io/terminal.ts).
 */
function asShown(
  terminal: Writable & { columns?: number; rows?: number },
  shown: { colour: boolean; unicode: boolean; accessible?: boolean },
): Writable {
  const sgr = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
  const stream = new Writable({
    write(chunk, _encoding, done) {
      const text = shown.colour ? String(chunk) : String(chunk).replace(sgr, '');
      terminal.write(drawable(shown, text), done);
    },
  });
  Object.defineProperty(stream, 'columns', { get: () => terminal.columns });
  Object.defineProperty(stream, 'rows', { get: () => terminal.rows });
  Object.defineProperty(stream, 'isTTY', { value: true });
  return stream;
}
