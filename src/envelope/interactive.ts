// `esign envelope create` at a terminal with something missing: the person is asked for it (the
// template from the names in force, the signatory, each required field not given), shown what will
// be sent, and asked once to confirm. The prompts come from @clack/prompts, loaded with this module,
// which is loaded only when a prompt is shown. Prompts go to stderr (stdout stays the result).
import { type Readable, Writable } from 'node:stream';
import { cancel, confirm, isCancel, note, select, text } from '@clack/prompts';
import { EMAIL_PATTERN } from '../api/schemas.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { drawable } from '../io/terminal.js';
import { escapeControl } from '../text/terminal-text.js';

/** A field the template declares as required, as the project file describes it. */
export interface AskedField {
  name: string;
  description?: string | undefined;
  example?: string | undefined;
}

export interface PromptStreams {
  input: Readable;
  /** Where the prompts are drawn: the terminal behind stderr. */
  output: Writable;
  signal: AbortSignal;
}

/** Ctrl-C at a prompt: nothing was sent. Exit 130, as any interrupt. */
function interrupted(streams: PromptStreams): never {
  cancel('Nothing was sent.', streams);
  throw new InterruptedError('Interrupted at a prompt; nothing was sent.');
}

function answer<T>(value: T, streams: PromptStreams): Exclude<T, symbol> {
  if (isCancel(value) || streams.signal.aborted) interrupted(streams);
  return value as Exclude<T, symbol>;
}

/** The template: one of the names in force, or an id typed when there are none. */
async function askTemplate(names: Readonly<Record<string, string>>, streams: PromptStreams): Promise<string> {
  const entries = Object.entries(names);
  if (entries.length === 0) {
    return answer(
      await text({
        ...streams,
        message: 'Template id (no template names are in force for this profile)',
        placeholder: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
        validate: (value) => (value?.trim() ? undefined : 'A template id is needed.'),
      }),
      streams,
    ).trim();
  }
  return answer(
    await select({
      ...streams,
      message: 'Template',
      options: entries.map(([name, id]) => ({ value: name, label: escapeControl(name), hint: id })),
    }),
    streams,
  );
}

async function askName(streams: PromptStreams): Promise<string> {
  return answer(
    await text({
      ...streams,
      message: "Signatory's full name",
      validate: (value) => (value?.trim() ? undefined : 'A name is needed.'),
    }),
    streams,
  ).trim();
}

async function askEmail(streams: PromptStreams): Promise<string> {
  return answer(
    await text({
      ...streams,
      message: "Signatory's email",
      placeholder: 'ada@example.com',
      validate: (value) =>
        EMAIL_PATTERN.test(value?.trim() ?? '')
          ? undefined
          : 'Must be an email address, like ada@example.com.',
    }),
    streams,
  ).trim();
}

/** One required merge field: its description beside the name, its example as the placeholder. */
async function askField(field: AskedField, streams: PromptStreams): Promise<string> {
  const about = field.description ? ` (${escapeControl(field.description)})` : '';
  return answer(
    await text({
      ...streams,
      message: `${escapeControl(field.name)}${about}`,
      ...(field.example === undefined ? {} : { placeholder: escapeControl(field.example) }),
      validate: (value) =>
        value?.trim() ? undefined : `${escapeControl(field.name)} is required by the template.`,
    }),
    streams,
  );
}

/** A yes/no question whose safe answer, No, is the default. */
export async function askYesNo(message: string, streams: PromptStreams): Promise<boolean> {
  return answer(await confirm({ ...streams, message, initialValue: false }), streams);
}

/**
 * The streams for a command's prompts: stdin, and the terminal behind stderr as the run's decision
 * says it can show text: without colour (NO_COLOR, FORCE_COLOR=0), in ASCII (LANG=C).
 */
export function streamsOf(ctx: Context): PromptStreams {
  const terminal = ctx.spinnerStream as Writable;
  const shown = { colour: ctx.terminal.stderrColor > 0, unicode: ctx.terminal.unicode };
  const output = shown.colour && shown.unicode ? terminal : asShown(terminal, shown);
  return { input: ctx.stdin.stream(), output, signal: ctx.signal };
}

/** Shows what will be sent and asks once. False: the person said no. */
export async function confirmSend(summary: string, streams: PromptStreams): Promise<boolean> {
  note(summary, 'This envelope will be sent', streams);
  return answer(await confirm({ ...streams, message: 'Send it?', initialValue: true }), streams);
}

/** What `envelope create` was given; the walk-through fills in what is missing. */
export interface CreateAnswers {
  template?: string | undefined;
  name?: string | undefined;
  email?: string | undefined;
  /** Merge fields as `--set` gives them (`key=value`). */
  set: string[];
}

/**
 * Asks for each missing piece in the order a person thinks of them: template, name, email, then
 * the template's required fields not given (`requiredFieldsOf` says which, once the template is known).
 */
export async function askForMissing(
  given: CreateAnswers,
  templateNames: Readonly<Record<string, string>>,
  requiredFieldsOf: (template: string) => AskedField[],
  streams: PromptStreams,
): Promise<CreateAnswers> {
  const template = given.template ?? (await askTemplate(templateNames, streams));
  const name = given.name ?? (await askName(streams));
  const email = given.email ?? (await askEmail(streams));
  const set = [...given.set];
  for (const field of requiredFieldsOf(template)) set.push(`${field.name}=${await askField(field, streams)}`);
  return { template, name, email, set };
}

/**
 * The terminal as the run can show it. The prompt library colours through node:util's styleText,
 * which on Node 20 ignores NO_COLOR, and draws Unicode marks whatever the locale: without colour its
 * SGR sequences are taken out (cursor moves kept); without Unicode its marks become ASCII, as every
 * symbol esign draws does (io/terminal.ts).
 */
function asShown(
  terminal: Writable & { columns?: number; rows?: number },
  shown: { colour: boolean; unicode: boolean },
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
