// esign envelope create: flags → a validated request → one POST → the envelope, for people or scripts.
import * as z from 'zod/mini';
import type { ApiClient } from '../../api/client.js';
import { type CreateOutcome, classifyFailure } from '../../api/outcome.js';
import { sleep } from '../../api/retry.js';
import type { CreateEnvelopeRequest, Envelope } from '../../api/schemas.js';
import { CREATE_BOUNDS, countRetry, nextStep, type RecordState } from '../../batch/policy.js';
import {
  appendRunnerFile,
  formatOutputs,
  githubActionsEnabled,
  githubFiles,
  maskValues,
} from '../../ci/github-actions.js';
import type { Settings } from '../../config/settings.js';
import type { Context } from '../../context.js';
import {
  normalizeRequest,
  type Problems,
  parseExpiresInDays,
  parseSetFlags,
  readMergeDataFiles,
  validateRequest,
} from '../../envelope/request.js';
import { ExitCode, InputError, InterruptedError, OutputFailedError, UsageError } from '../../errors.js';
import { themeFor } from '../../io/theme.js';
import { formatRelative, formatUtc } from '../../io/time.js';
import { resolveTemplate, templateNamesFor, UNRESOLVED_TEMPLATE_ID } from '../../project/templates.js';
import { secondsText } from '../../text/units.js';
import { globalOptions, repeated } from '../options.js';
import { connect, loadSettings } from '../settings.js';

/**
 * The flags, typed. What they mean together (a ULID, an email, merge data from files) is checked
 * against the API's own request schema in `run`, so that every problem is reported at once.
 */
export const options = z.object({
  ...globalOptions,
  template: z.optional(z.string()),
  data: repeated(),
  set: repeated(),
  name: z.optional(z.string()),
  email: z.optional(z.string()),
  phone: z.optional(z.string()),
  expiresInDays: z.optional(z.string()),
  dryRun: z.optional(z.boolean()),
  quiet: z.optional(z.boolean()),
});
type CreateOptions = z.infer<typeof options>;

export async function run(flags: CreateOptions, ctx: Context): Promise<number> {
  const problems: Problems = [];
  // The settings first: the profile chooses which template names of the project file are in force.
  const settings = loadSettings(flags, ctx);
  const fromFiles = await readMergeDataFiles(flags.data, ctx, problems);
  const fromSet = parseSetFlags(flags.set, problems);
  const expiresInDays =
    parseExpiresInDays(flags.expiresInDays, '--expires-in-days', problems) ??
    settings.project?.content.defaults?.expires_in_days;
  const draft = {
    template_id: templateIdOf(flags.template, settings, problems),
    merge_data: { ...fromFiles, ...fromSet },
    signatory: {
      name: flags.name,
      email: flags.email,
      ...(flags.phone === undefined ? {} : { phone: flags.phone }),
    },
    ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
  };
  const body = validateRequest(draft, problems);
  if (problems.length > 0 || !body) {
    const only = problems.length === 1;
    const ErrorClass = problems.every((p) => p.startsWith('--data') || p.startsWith('merge field'))
      ? InputError
      : UsageError;
    throw new ErrorClass(
      only ? (problems[0] as string) : `${problems.length} problems with the input; nothing was sent:`,
      {
        details: only ? [] : problems,
        hint: 'See `esign envelope create --help` for the flags and examples.',
      },
    );
  }
  const request = normalizeRequest(body);

  if (flags.dryRun) {
    ctx.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    return ExitCode.ok;
  }

  const client = await connect(settings, flags, ctx);
  const { startSpinner } = await import('../../io/spinner.js');
  const spinner = flags.json || flags.quiet ? { stop() {} } : await startSpinner(ctx, 'Creating envelope…');
  let envelope: Envelope;
  try {
    envelope = await createEnvelope(client, request, ctx);
  } finally {
    spinner.stop();
    await client.close();
  }

  const actions = githubActionsEnabled(flags.ciOutput, ctx.env);
  // The URL is a bearer link: its mask reaches the runner before any line that holds it.
  if (actions) maskValues(ctx.stderr, [envelope.signing_url]);
  if (flags.json) ctx.stdout.write(`${JSON.stringify(envelope)}\n`);
  else if (flags.quiet) ctx.stdout.write(`${envelope.signing_url}\n`);
  else ctx.stdout.write(renderEnvelope(envelope, ctx));
  if (actions) writeStepOutputs(envelope, ctx);
  return ExitCode.ok;
}

/**
 * Sends the request until it has an outcome the policy stores: a batch of one, with create's own
 * bounds (src/batch/policy.ts). Returns the envelope, or throws the outcome's error.
 */
async function createEnvelope(
  client: ApiClient,
  request: CreateEnvelopeRequest,
  ctx: Context,
): Promise<Envelope> {
  const state: RecordState = { attempts: 0, rateLimited: 0, readyAt: ctx.now().getTime() };
  for (;;) {
    let outcome: CreateOutcome;
    try {
      outcome = client.classify(await client.sendCreate(request, ctx.signal));
    } catch (error) {
      outcome = classifyFailure(error);
    }
    const step = nextStep(outcome, state, CREATE_BOUNDS, ctx.now().getTime());
    if (outcome.kind === 'created') return outcome.envelope;
    if (step.kind !== 'retry') throw outcome.error;
    countRetry(state, step);
    ctx.stderr.write(
      `note: the API answered ${outcome.error.status}; retrying in ${secondsText(step.waitMs)}.\n`,
    );
    try {
      await sleep(step.waitMs, ctx.signal);
    } catch {
      throw new InterruptedError('Interrupted while waiting to retry; no envelope was created.');
    }
  }
}

/** --template: a ULID, or a name from the project file (for the active profile). */
function templateIdOf(value: string | undefined, settings: Settings, problems: Problems): string | undefined {
  if (value === undefined) return undefined;
  const resolved = resolveTemplate(
    value,
    templateNamesFor(settings.project, settings.profile.value, settings.projectSearchedFrom),
    '--template',
  );
  if ('id' in resolved) return resolved.id;
  problems.push(resolved.problem);
  return UNRESOLVED_TEMPLATE_ID;
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
    throw new OutputFailedError(error as NodeJS.ErrnoException, `$GITHUB_OUTPUT (${output})`, {
      hint: `The envelope was created (${envelope.envelope_id}); only the step outputs are missing. Do not create it again.`,
    });
  }
}

/** The envelope for a person: a short block, coloured on a terminal, the same facts plain elsewhere. */
export function renderEnvelope(envelope: Envelope, ctx: Context): string {
  const c = themeFor(ctx.terminal, 'stdout');
  const expires = new Date(envelope.expires_at);
  const rows: [string, string][] = [
    ['Envelope ID', envelope.envelope_id],
    ['Status', c.bold(envelope.status)],
    ['Signing URL', c.cyan.underline(envelope.signing_url)],
    ['Expires', `${formatUtc(expires)} ${c.dim(`(${formatRelative(expires, ctx.now())})`)}`],
  ];
  const head = ctx.terminal.stdoutIsTTY ? `${c.green('✓')} Envelope created\n` : 'Envelope created\n';
  return `${head}${rows.map(([label, value]) => `  ${c.dim(label.padEnd(13))}${value}`).join('\n')}\n`;
}
