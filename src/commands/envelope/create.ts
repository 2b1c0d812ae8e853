// esign envelope create: flags → a validated request → one POST → the envelope, for people or scripts.
import type { CreateEnvelopeRequest, Envelope } from '../../api/schemas.js';
import {
  appendRunnerFile,
  formatOutputs,
  githubActionsEnabled,
  githubFiles,
  maskValues,
} from '../../ci/github-actions.js';
import { connect, loadSettings, obtainToken } from '../../config/connect.js';
import { type Settings, templateNamesOf } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { createdButNotWritten } from '../../envelope/created.js';
import type { AnswerChecks, AskedField, PromptStreams } from '../../envelope/interactive.js';
import { createEnvelope } from '../../envelope/send.js';
import { ExitCode, type OutputFailedError, UsageError } from '../../errors.js';
import { promptsAllowed } from '../../io/interaction.js';
import { NO_SPINNER, startSpinner } from '../../io/spinner.js';
import { connectionOf } from '../../options.js';
import { checkMergeData } from '../../project/fields.js';
import { fieldNameProblem } from '../../project/template-entry.js';
import { resolveTemplate } from '../../project/templates.js';
import {
  buildCreateRequest,
  type CreateDraft,
  draftProblems,
  type InputNames,
} from '../../request/create-request.js';
import {
  FIELD_NAMES,
  type Problems,
  parseExpiresInDays,
  parseSetFlags,
  readMergeDataFiles,
} from '../../request/request.js';
import { redactStrings } from '../../text/redact.js';
import { escapeControl } from '../../text/terminal-text.js';
import { loopbackOrigin } from '../../transport/loopback.js';
import type { Options } from '../global-flags.js';
import type { create } from './envelope.decl.js';
import { renderEnvelope } from './envelope-view.js';

/**
 * The flags, typed (from the declaration). What they mean together (a ULID, an email, merge data from
 * files) is checked against the API's own request schema in `run`, so that every problem is reported at once.
 */
type CreateOptions = Options<typeof create>;

/** Problems name the flags. */
const CREATE_FLAG_NAMES: InputNames = {
  fields: FIELD_NAMES,
  hint: 'See `esign envelope create --help` for the flags and examples.',
};

export async function run(given: CreateOptions, ctx: Context): Promise<number> {
  const problems: Problems = [];
  // The settings first: the profile chooses which template names of the project file are in force.
  const settings = loadSettings(connectionOf(given), ctx, { verbose: given.verbose });
  const fromFiles = await readMergeDataFiles(given.data, ctx, problems);
  const walkThrough = problems.length === 0 && wantsWalkThrough(given, settings, fromFiles, ctx);
  const flags = walkThrough ? await askForMissing(given, settings, fromFiles, ctx) : given;
  const fromSet = parseSetFlags(flags.set, problems);
  const expiresInDays = parseExpiresInDays(flags.expiresInDays, '--expires-in-days', problems);
  const request = buildCreateRequest(
    draftOf(flags, { ...fromFiles, ...fromSet }, expiresInDays),
    settings,
    problems,
    CREATE_FLAG_NAMES,
  );

  if (flags.dryRun) {
    ctx.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    return ExitCode.ok;
  }
  if (walkThrough) await confirmRequest(request, flags, ctx);

  const client = await connect(settings, ctx, {
    verbose: flags.verbose,
    remindTokenAge: !flags.json && !flags.quiet,
  });
  // -q and --json draw nothing on the way; elsewhere ora and chalk are loaded only where a spinner
  // is drawn (io/spinner.ts), never in a pipe.
  const spinner = flags.json || flags.quiet ? NO_SPINNER : await startSpinner(ctx, 'Creating envelope…');
  let created: Envelope | undefined;
  try {
    created = await createEnvelope(client, request, ctx);
  } finally {
    spinner.stop(created ? 'done' : 'failed');
    await client.close();
  }
  // Redacted once, before anything is escaped or written: stdout, the step outputs, the mask and a
  // failure's report all hold the same values (a signing URL that carries the token holds
  // [redacted] everywhere, and its mask names exactly that).
  const envelope = redactStrings(created, ctx.redact);
  await deliver(envelope, flags, ctx);
  return ExitCode.ok;
}

/**
 * The envelope to stdout and, in GitHub Actions, to the step outputs. Either may fail (a closed
 * pipe, a full disk): the envelope exists all the same, so the failure names it on stderr.
 */
async function deliver(envelope: Envelope, flags: CreateOptions, ctx: Context): Promise<void> {
  const actions = githubActionsEnabled(flags.ciOutput, ctx.env);
  // The URL is a bearer link: its mask reaches the runner before any line that holds it.
  if (actions) maskValues(ctx.stderr, [envelope.signing_url]);
  ctx.stdout.write(await shownEnvelope(envelope, flags, ctx));
  let outputsFailed: OutputFailedError | undefined;
  try {
    if (actions) writeStepOutputs(envelope, ctx);
  } catch (error) {
    outputsFailed = error as OutputFailedError;
  }
  // Courtesies for the person in front of the screen: each problem is a warning (show-link.ts).
  if (flags.qr || flags.open) {
    const { showLink } = await import('../../envelope/show-link.js');
    await showLink(envelope.signing_url, { qr: flags.qr, open: flags.open, actions }, ctx);
  }
  // A closed pipe or a full disk is known only once the write is done.
  await ctx.stdout.flushed?.();
  const failure = ctx.stdout.failure?.();
  if (failure) {
    throw createdButNotWritten(failure, envelope, {
      what: 'standard output',
      // Under --json stderr is one object: the envelope is in its details, not on a line above.
      missing: `its id and signing URL never reached standard output, and are ${flags.json ? "in this error's details" : 'above'}`,
      more: outputsFailed ? [`${outputsFailed.message} (the step outputs are missing too)`] : [],
    });
  }
  if (outputsFailed) throw outputsFailed;
}

/**
 * The envelope as stdout shows it: one JSON object, the URL alone, or the view for a person. The
 * view is drawn after the envelope exists: were drawing it to fail, the same facts go out plain.
 */
async function shownEnvelope(envelope: Envelope, flags: CreateOptions, ctx: Context): Promise<string> {
  if (flags.json) return `${JSON.stringify(envelope)}\n`;
  if (flags.quiet) return `${envelope.signing_url}\n`;
  try {
    return await renderEnvelope(envelope, ctx);
  } catch {
    const rows = [
      ['Envelope ID', envelope.envelope_id],
      ['Status', envelope.status],
      ['Signing URL', envelope.signing_url],
      ['Expires', envelope.expires_at],
    ];
    return `Envelope created\n${rows.map(([label, value]) => `  ${label?.padEnd(13)}${value}\n`).join('')}`;
  }
}

/**
 * A person at a terminal who left out the template, the name, the email or a field the template
 * requires is asked for them.
 */
function wantsWalkThrough(
  flags: CreateOptions,
  settings: Settings,
  fromFiles: Readonly<Record<string, string>>,
  ctx: Context,
): boolean {
  const asking = {
    noInput: flags.input === false,
    json: flags.json,
    quiet: flags.quiet,
    dryRun: flags.dryRun,
  };
  if (!promptsAllowed(asking, ctx)) return false;
  const missing =
    flags.template === undefined ||
    flags.name === undefined ||
    flags.email === undefined ||
    requiredFieldsToAsk(flags.template, flags.set, fromFiles, settings).length > 0;
  // What was given is checked first: a typo in --template or --email is told at once, with every
  // other problem, not after the questions.
  return missing && givenIsValid(flags, settings, fromFiles);
}

/**
 * Whether what the flags give passes the one request check, leaving out what would be asked for
 * (the template, the name, the email, each required field the merge data lacks).
 */
function givenIsValid(
  flags: CreateOptions,
  settings: Settings,
  fromFiles: Readonly<Record<string, string>>,
): boolean {
  const wire = [
    ...(flags.template === undefined ? ['template_id'] : []),
    ...(flags.name === undefined ? ['signatory.name'] : []),
    ...(flags.email === undefined ? ['signatory.email'] : []),
  ];
  const mergeFields =
    flags.template === undefined
      ? []
      : requiredFieldsToAsk(flags.template, flags.set, fromFiles, settings).map((field) => field.name);
  const problems: Problems = [];
  const mergeData = { ...fromFiles, ...parseSetFlags(flags.set, problems) };
  const expiresInDays = parseExpiresInDays(flags.expiresInDays, '--expires-in-days', problems);
  const draft = { ...draftOf(flags, mergeData, expiresInDays), pending: { wire, mergeFields } };
  return problems.length === 0 && draftProblems(draft, settings, CREATE_FLAG_NAMES).length === 0;
}

/** The request draft the flags make, with this merge data and expiry. */
function draftOf(
  flags: Pick<CreateOptions, 'template' | 'name' | 'email' | 'phone'>,
  mergeData: Record<string, string>,
  expiresInDays: number | undefined,
): CreateDraft {
  return {
    template: flags.template,
    mergeData,
    signatory: {
      name: flags.name,
      email: flags.email,
      ...(flags.phone === undefined ? {} : { phone: flags.phone }),
    },
    expiresInDays,
  };
}

/**
 * The fields `template` requires that the merge data does not give, with what the project file says
 * of them. The template's fields and which are missing are decided where every check decides them
 * (project/templates.ts, project/fields.ts).
 */
function requiredFieldsToAsk(
  template: string,
  set: readonly string[],
  fromFiles: Readonly<Record<string, string>>,
  settings: Settings,
): AskedField[] {
  const names = templateNamesOf(settings);
  const resolved = resolveTemplate(template, names, '--template');
  if (!('id' in resolved) || resolved.fields === undefined) return [];
  const fields = resolved.fields;
  // A malformed --set is reported after the questions, with every other problem.
  const given = { ...fromFiles, ...parseSetFlags([...set], []) };
  const missing = checkMergeData(fields, given)?.missing ?? [];
  return missing.map((name) => ({
    name,
    required: true,
    description: fields[name]?.description,
    example: fields[name]?.example,
  }));
}

/**
 * Every field of `template` the merge data does not give, for the walk-through: the project file's
 * declared fields (its required ones missing first, then its optional ones not given), else the
 * sandbox's merge tags for that id where the base URL is the sandbox's (all optional: the sandbox
 * does not say which are required); undefined when neither knows them.
 */
async function fieldsToAsk(
  template: string,
  set: readonly string[],
  fromFiles: Readonly<Record<string, string>>,
  settings: Settings,
  ctx: Context,
): Promise<AskedField[] | undefined> {
  const resolved = resolveTemplate(template, templateNamesOf(settings), '--template');
  if (!('id' in resolved)) return undefined;
  const given = { ...fromFiles, ...parseSetFlags([...set], []) };
  const notGiven = (name: string) => !Object.hasOwn(given, name);
  const declared = resolved.fields;
  if (declared !== undefined) {
    const optional = Object.keys(declared)
      .filter((name) => declared[name]?.required !== true && notGiven(name))
      .map((name) => ({
        name,
        required: false,
        description: declared[name]?.description,
        example: declared[name]?.example,
      }));
    return [...requiredFieldsToAsk(template, set, fromFiles, settings), ...optional];
  }
  const tags = await sandboxMergeTags(resolved.id, settings, ctx);
  return tags?.filter(notGiven).map((name) => ({ name, required: false }));
}

/**
 * The merge tags the sandbox lists for template `id`, where the base URL is loopback (where `esign
 * sandbox` listens); undefined when it is not, or the sandbox does not answer (the API itself has no
 * call that lists a template's fields). Never an error: the walk-through then offers fields by name.
 */
async function sandboxMergeTags(id: string, settings: Settings, ctx: Context): Promise<string[] | undefined> {
  const baseUrl = settings.baseUrl.value;
  if (loopbackOrigin(baseUrl) === undefined || baseUrl === undefined) return undefined;
  try {
    const { fetchSandboxTemplates } = await import('../../project/sandbox-templates.js');
    const token = await obtainToken(settings, ctx);
    const listing = await fetchSandboxTemplates(baseUrl, token, settings.timeoutMs.value, ctx);
    return listing.templates.find((template) => template.id === id)?.merge_tags;
  } catch {
    return undefined;
  }
}

async function askForMissing(
  flags: CreateOptions,
  settings: Settings,
  fromFiles: Readonly<Record<string, string>>,
  ctx: Context,
): Promise<CreateOptions> {
  const walk = await import('../../envelope/interactive.js');
  const names = templateNamesOf(settings);
  const answers = await walk.askForMissing(
    { template: flags.template, name: flags.name, email: flags.email, set: flags.set },
    {
      templateNames: names.names,
      fieldsOf: (template) => fieldsToAsk(template, flags.set, fromFiles, settings, ctx),
      checks: answerChecks(flags, settings),
    },
    prompts(ctx, walk),
  );
  return { ...flags, ...answers };
}

/** The walk-through's prompts: one set of streams for every question of the run. */
const promptStreams = new WeakMap<Context, PromptStreams>();
function prompts(ctx: Context, walk: typeof import('../../envelope/interactive.js')): PromptStreams {
  const known = promptStreams.get(ctx);
  if (known) return known;
  const made = walk.streamsOf(ctx);
  promptStreams.set(ctx, made);
  return made;
}

/**
 * Each answer checked with its flag's own check, at its question: the draft the flags make with the
 * answer in, every other question still pending, and the problems of that flag alone.
 */
function answerChecks(flags: CreateOptions, settings: Settings): AnswerChecks {
  const problemFor = (answer: Partial<Pick<CreateOptions, 'template' | 'name' | 'email'>>, flag: string) => {
    const asked = { ...flags, ...answer };
    const wire = [
      ...(asked.template === undefined ? ['template_id'] : []),
      ...(asked.name === undefined ? ['signatory.name'] : []),
      ...(asked.email === undefined ? ['signatory.email'] : []),
    ];
    const draft = { ...draftOf(asked, {}, undefined), pending: { wire, mergeFields: [] } };
    const found = draftProblems(draft, settings, CREATE_FLAG_NAMES).find(
      (problem) => problem.source === flag,
    );
    return found && asAnswerProblem(found.message);
  };
  return {
    template: (value) => problemFor({ template: value }, '--template'),
    name: (value) => problemFor({ name: value }, '--name'),
    email: (value) => problemFor({ email: value }, '--email'),
    field: (field, value) =>
      field.required && value.trim() === ''
        ? `${escapeControl(field.name)} is required by the template: it must not be empty.`
        : undefined,
    fieldName: (name, taken) => {
      if (name.includes('=')) return `A field name holds no '=': '${escapeControl(name)}'.`;
      const problem = fieldNameProblem(name);
      if (problem) return `'${escapeControl(name)}' ${problem}.`;
      return taken.includes(name) ? `${escapeControl(name)} is given already.` : undefined;
    },
  };
}

/** "must be an email address, like ada@example.com" → "Must be an email address, like ada@example.com." */
function asAnswerProblem(message: string): string {
  const sentence = `${message.charAt(0).toUpperCase()}${message.slice(1)}`;
  return sentence.endsWith('.') ? sentence : `${sentence}.`;
}

/**
 * The walk-through's last step: what will be sent, and one question (not with --yes). No: exit 2,
 * nothing sent. Either way the frame the questions drew is closed.
 */
async function confirmRequest(request: CreateEnvelopeRequest, flags: CreateOptions, ctx: Context) {
  const walk = await import('../../envelope/interactive.js');
  const streams = prompts(ctx, walk);
  const { template } = flags;
  const named =
    template !== undefined && template.toUpperCase() !== request.template_id ? ` (${template})` : '';
  const lines = [
    `Template     ${request.template_id}${named}`,
    `Signatory    ${request.signatory.name} <${request.signatory.email}>`,
    ...(request.signatory.phone === undefined ? [] : [`Phone        ${request.signatory.phone}`]),
    ...mergeDataLines(request.merge_data),
    ...(request.expires_in_days === undefined ? [] : [`Expires in   ${request.expires_in_days} days`]),
  ];
  const yes = flags.yes || (await walk.confirmSend(lines.map(escapeControl).join('\n'), streams));
  if (!yes) {
    walk.finishQuestions(streams, { said: 'Not sent.', declined: true });
    throw new UsageError('Not sent: you answered no.', { hint: 'Nothing was sent.' });
  }
  walk.finishQuestions(streams, { said: 'Sending it.' });
}

/**
 * The merge data as the confirmation shows it, under its own label (a field named like a row above
 * is not mistaken for it); "none" when there is none: the document's fields will then be empty.
 */
function mergeDataLines(mergeData: Readonly<Record<string, string>>): string[] {
  const entries = Object.entries(mergeData);
  if (entries.length === 0) return ['Merge data   none'];
  const width = Math.max(...entries.map(([key]) => key.length));
  return entries.map(
    ([key, value], index) => `${index === 0 ? 'Merge data' : ''.padEnd(10)}   ${key.padEnd(width)}  ${value}`,
  );
}

/** The step outputs envelope_id, signing_url, status and expires_at, in $GITHUB_OUTPUT. */
function writeStepOutputs(envelope: Envelope, ctx: Context): void {
  const { output } = githubFiles(ctx.env);
  if (!output) return;
  try {
    appendRunnerFile(
      output,
      formatOutputs({
        envelope_id: envelope.envelope_id,
        signing_url: envelope.signing_url,
        status: envelope.status,
        expires_at: envelope.expires_at,
      }),
    );
  } catch (error) {
    throw createdButNotWritten(error as NodeJS.ErrnoException, envelope, {
      what: `$GITHUB_OUTPUT (${output})`,
      missing: 'only the step outputs are missing',
    });
  }
}
