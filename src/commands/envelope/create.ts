// esign envelope create: flags → a validated request → one POST → the envelope, for people or scripts.
import * as z from 'zod/mini';
import type { Envelope } from '../../api/schemas.js';
import {
  appendRunnerFile,
  formatOutputs,
  githubActionsEnabled,
  githubFiles,
  maskValues,
} from '../../ci/github-actions.js';
import { connect, loadSettings } from '../../config/connect.js';
import type { Context } from '../../context.js';
import {
  buildCreateRequest,
  type Problems,
  parseExpiresInDays,
  parseSetFlags,
  readMergeDataFiles,
} from '../../envelope/request.js';
import { ExitCode, InputError, OutputFailedError, UsageError } from '../../errors.js';
import { themeFor } from '../../io/theme.js';
import { globalOptions, repeated } from '../../options.js';
import { templateNamesFor } from '../../project/templates.js';
import { formatRelative, formatUtc } from '../../text/time.js';

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
  const templates = templateNamesFor(settings.project, settings.profile.value, settings.projectSearchedFrom);
  const draft = {
    template: flags.template,
    merge_data: { ...fromFiles, ...fromSet },
    signatory: {
      name: flags.name,
      email: flags.email,
      ...(flags.phone === undefined ? {} : { phone: flags.phone }),
    },
    ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
  };
  const request = buildCreateRequest(draft, templates, problems);
  if (problems.length > 0 || !request) {
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

  if (flags.dryRun) {
    ctx.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    return ExitCode.ok;
  }

  const client = await connect(settings, flags, ctx);
  const { createEnvelope } = await import('../../envelope/send.js');
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
