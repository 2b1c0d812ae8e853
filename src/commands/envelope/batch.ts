// esign envelope batch <file>: one envelope per record, with results streamed as JSON Lines and a
// run that can always be resumed. The flags and the project's defaults are resolved here once into
// typed values; the engine (src/batch/) checks the records into a plan (prepare) and sends it
// (run); this command wires what a person, a script and a CI runner meet: the settings and the
// client, the duplicates question, the progress line, the summary and the command that finishes
// the run, the GitHub Actions report, and the exit code.
import { setMaxListeners } from 'node:events';
import { accessSync, constants, createReadStream, statSync, writeFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { whereToCheckEnvelopes } from '../../api/check-envelope.js';
import type { BatchDefaults, InputFormat } from '../../batch/build-request.js';
import { DurableAppender } from '../../batch/durable-file.js';
import { type FailureGroup, sameErrorKey } from '../../batch/failure-groups.js';
import type { ResultLine } from '../../batch/formats.js';
import { IntentJournal } from '../../batch/journal.js';
import { RateLimiter } from '../../batch/pacing/rate-limiter.js';
import { SAME_FAILURE_STOP_AFTER } from '../../batch/policy.js';
import { type Plan, type Prepared, prepare } from '../../batch/prepare.js';
import type { PreviousResults } from '../../batch/previous-results.js';
import { type BatchReport, buildReport } from '../../batch/report.js';
import { type BatchEvent, type RunReport, run as runBatch, type SendPlan } from '../../batch/run.js';
import { fileSink, stdoutSink } from '../../batch/sinks.js';
import {
  batchAnnotations,
  publishBatchReport,
  publishInvalidInput,
  publishRefused,
  resultLinesForLog,
} from '../../ci/batch-summary.js';
import { githubActionsEnabled, maskValues, writeCommands } from '../../ci/github-actions.js';
import { connect, loadSettings } from '../../config/connect.js';
import { type Setting, type Settings, templateNamesOf } from '../../config/settings.js';
import type { Context, Env } from '../../context.js';
import { createdEnvelopeText } from '../../envelope/created.js';
import { CliError, ExitCode, OutputFailedError, UsageError } from '../../errors.js';
import { describeReadError } from '../../fs/files.js';
import { LEASE_MS, LockLostError } from '../../fs/lock.js';
import { promptsAllowed } from '../../io/interaction.js';
import { startProgress } from '../../io/progress.js';
import { connectionOf } from '../../options.js';
import { problemSentence } from '../../problems.js';
import { type ResolvedTemplate, resolveTemplate } from '../../project/templates.js';
import {
  checkExpiryLimit,
  knownExpiryLimit,
  type Problems,
  parseExpiresInDays,
  parseSetFlags,
  readMergeDataFiles,
} from '../../request/request.js';
import { redact, redactStrings } from '../../text/redact.js';
import { escapeControl } from '../../text/terminal-text.js';
import { parseRate, RATE_EXPECTED, type Rate, secondsText } from '../../text/units.js';
import type { Options } from '../global-flags.js';
import {
  claimOutput,
  loadEarlierResults,
  type OutputClaim,
  realOutputPath,
  refuseForeignFiles,
  refuseOverwrite,
} from './batch-output.js';
import {
  duplicatesWarning,
  failureListText,
  heldUnknownText,
  interruptedText,
  invalidRecordsError,
  listFailuresCommand,
  recordFailureError,
  sameFailureStopText,
  stoppingText,
  summaryText,
  unknownNextStep,
} from './batch-text.js';
import { type batch, DEFAULT_CONCURRENCY } from './envelope.decl.js';
import { type NextCommandOptions, type NextStep, nextCommand } from './next-command.js';

type BatchFlags = Options<typeof batch>;

/**
 * How far apart the results file's syncs are: a sync makes the lines written so far survive a power
 * cut (a killed process loses nothing it wrote), and a record counts as done once one covers it.
 * The journal's synced reservations cover a power cut in between.
 */
const RESULTS_SYNC_EVERY_MS = 100;

/** Unwritten envelopes listed on stderr up to this many; more go to a file whose path is printed. */
const MAX_UNWRITTEN_ON_STDERR = 20;

/** The run the flags and the project's defaults ask for, resolved once. */
interface BatchJob {
  /** The records: a file (its absolute path), or standard input. */
  input: { path: string | undefined; format: InputFormat };
  /** Where results go: a file (as given, its real path, and as the user named it), or standard output. */
  output: { given: string; path: string; shownAs: string } | undefined;
  resume: boolean;
  retryUnknown: boolean;
  dryRun: boolean;
  /** Duplicates are meant (--allow-duplicates). */
  allowDuplicates: boolean;
  /** Whether a person at the terminal is asked before duplicates are sent. */
  askBeforeDuplicates: boolean;
  defaults: BatchDefaults;
  concurrency: number;
  maxRetries: number;
  rate: Rate | undefined;
  maxRateWaitMs: number;
  keepGoing: boolean;
  /** In GitHub Actions: outputs, a summary and annotations for the runner. */
  actions: boolean;
  /** The job summary names each failed record's signatory email (--summary-emails). */
  summaryEmails: boolean;
  json: boolean;
  verbose: boolean;
  /** The command that runs this batch again (resume, retry unknown), as the user can paste it. */
  next: NextCommandOptions;
  settings: Settings;
  env: Env;
}

export async function run(flags: BatchFlags, ctx: Context): Promise<number> {
  const actions = githubActionsEnabled(flags.ciOutput, ctx.env);
  try {
    const job = await resolveJob(flags, ctx, actions);
    return job.dryRun ? await dryRun(job, ctx) : await sendAll(job, ctx);
  } catch (error) {
    // Refused before anything was sent (exit 2: results already in --output, an unfinished earlier
    // run, another input): in GitHub Actions the step outputs still say so, as for invalid records.
    const refused = error instanceof CliError && error.exitCode === ExitCode.usage && !flags.dryRun;
    if (refused && !published.has(error) && actions) {
      publishRefused({ message: error.message, hint: error.hint }, ctx.env);
    }
    throw error;
  }
}

/** Errors whose step outputs and summary were written where they were raised (invalid records). */
const published = new WeakSet<object>();

async function resolveJob(flags: BatchFlags, ctx: Context, actions: boolean): Promise<BatchJob> {
  const format = formatOf(flags.file, flags.format);
  const given = flags.output === undefined ? undefined : resolve(ctx.cwd, flags.output);
  if (flags.resume && !given) {
    throw new UsageError('--resume needs --output <file>: the results of the earlier run are read from it.');
  }
  if (flags.retryUnknown && !flags.resume) throw new UsageError('--retry-unknown goes with --resume.');
  if (given) checkWritableFolder(given, flags.output as string);
  const output =
    given && flags.output !== undefined
      ? { given, path: realOutputPath(given, flags.output), shownAs: flags.output }
      : undefined;
  // The settings first: the profile chooses which template names of the project file are in force.
  const settings = loadSettings(connectionOf(flags), ctx, { verbose: flags.verbose });
  const fromProject = settings.project?.content.defaults;
  const defaults = await readDefaults(flags, settings, ctx);
  const path = flags.file === '-' ? undefined : resolve(ctx.cwd, flags.file);
  if (path) checkReadableFile(path, flags.file);
  const concurrency = flags.concurrency ?? fromProject?.concurrency ?? DEFAULT_CONCURRENCY;
  const rate = flags.rate ?? projectRate(settings);
  return {
    input: { path, format },
    output,
    resume: flags.resume === true,
    retryUnknown: flags.retryUnknown === true,
    dryRun: flags.dryRun === true,
    allowDuplicates: flags.allowDuplicates === true,
    askBeforeDuplicates:
      flags.yes !== true &&
      promptsAllowed({ noInput: flags.input === false, json: flags.json, dryRun: flags.dryRun }, ctx),
    defaults,
    concurrency,
    maxRetries: flags.maxRetries,
    rate,
    maxRateWaitMs: flags.maxRateWait,
    keepGoing: flags.keepGoing === true,
    actions,
    summaryEmails: flags.summaryEmails === true,
    json: flags.json === true,
    verbose: flags.verbose === true,
    next: asSent(flags, settings, { concurrency, rate }),
    settings,
    env: ctx.env,
  };
}

/** The project file's `defaults.rate`, read as --rate reads its text. */
function projectRate(settings: Settings): Rate | undefined {
  const project = settings.project;
  const text = project?.content.defaults?.rate;
  if (text === undefined) return undefined;
  const rate = parseRate(text);
  if (rate === undefined) {
    // Worded as --rate's own refusal of the same text (src/text/units.ts).
    throw new UsageError(`${project?.path}: 'defaults.rate' must be ${RATE_EXPECTED} (got "${text}").`);
  }
  return rate;
}

/**
 * The options for the commands printed for what comes next: the API, profile and timeout this run
 * used, even when they came from the environment (a command pasted into another shell, or into a
 * CI step without that variable, must not send elsewhere) rather than from a flag.
 */
function asSent(
  flags: BatchFlags,
  settings: Settings,
  resolved: { concurrency: number; rate: Rate | undefined },
): NextCommandOptions {
  const chosen = <T>(setting: Setting<T>) => (setting.source === 'default' ? undefined : setting.value);
  const timeoutMs = chosen(settings.timeoutMs);
  return {
    file: flags.file,
    format: flags.format,
    template: flags.template,
    data: flags.data,
    set: flags.set,
    expiresInDays: flags.expiresInDays,
    profile: flags.profile ?? chosen(settings.profile),
    baseUrl: settings.baseUrl.value ?? flags.baseUrl,
    timeout: flags.timeout ?? (timeoutMs === undefined ? undefined : String(timeoutMs / 1000)),
    ciOutput: flags.ciOutput,
    concurrency: resolved.concurrency,
    maxRetries: flags.maxRetries,
    rate: resolved.rate,
    maxRateWait: flags.maxRateWait,
    allowDuplicates: flags.allowDuplicates,
    keepGoing: flags.keepGoing,
    output: flags.output,
  };
}

function formatOf(file: string, flag: InputFormat | undefined): InputFormat {
  if (flag) return flag;
  const extension = extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  throw new UsageError(
    file === '-'
      ? 'Reading records from standard input needs --format jsonl or --format csv.'
      : `Cannot tell the format of '${file}' from its name.`,
    { hint: 'Name the file .jsonl or .csv, or pass --format jsonl|csv.' },
  );
}

/**
 * The defaults every record starts from: the flags over the project file's (`defaults`), and the
 * template names in force for the active profile, for --template and the records' template_id.
 */
async function readDefaults(flags: BatchFlags, settings: Settings, ctx: Context): Promise<BatchDefaults> {
  const problems: Problems = [];
  const fromFiles = await readMergeDataFiles(flags.data, ctx, problems);
  const fromSet = parseSetFlags(flags.set, problems);
  const expiryFlag = parseExpiresInDays(flags.expiresInDays, '--expires-in-days', problems);
  const expires = expiryFlag ?? settings.project?.content.defaults?.expires_in_days;
  // Over the sandbox's bound where the base URL is the sandbox's: the default is told once here,
  // each record's own value with its line.
  const maxExpires = knownExpiryLimit(settings.baseUrl.value);
  checkExpiryLimit(
    expires,
    maxExpires,
    expiryFlag === undefined ? `defaults.expires_in_days of ${settings.project?.path}` : '--expires-in-days',
    problems,
  );
  const templates = templateNamesOf(settings, ctx.cwd);
  let template: ResolvedTemplate | undefined;
  if (flags.template !== undefined) {
    const resolved = resolveTemplate(flags.template, templates, '--template');
    if ('problem' in resolved) problems.push(resolved.problem);
    else template = resolved;
  }
  const [only] = problems;
  if (only) {
    throw new UsageError(problems.length === 1 ? problemSentence(only) : 'The default flags have problems:', {
      details: problems.length === 1 ? [] : problems.map(problemSentence),
      ...(problems.length === 1 && only.hint ? { hint: only.hint } : {}),
    });
  }
  const from = new Map<string, string>();
  for (const key of Object.keys(fromFiles)) from.set(key, '--data');
  for (const key of Object.keys(fromSet)) from.set(key, '--set');
  return {
    template,
    template_from: '--template',
    merge_data_from: from,
    merge_data: { ...fromFiles, ...fromSet },
    expires_in_days: expires,
    templates,
    max_expires_in_days: maxExpires,
  };
}

function checkReadableFile(path: string, shown: string): void {
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new UsageError(`Cannot read ${shown}: ${describeReadError(error)}.`);
  }
}

function checkWritableFolder(path: string, shown: string): void {
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `Cannot write --output ${shown}: its folder ${dirname(path)} ${describeReadError(error) === 'no such file' ? 'does not exist' : 'is not writable'}.`,
    );
  }
}

/** The records, from their file or from standard input. */
function recordsStream(job: BatchJob, ctx: Context): Readable {
  return job.input.path ? createReadStream(job.input.path) : (ctx.stdin.stream() as Readable);
}

/** What an earlier run left in --output, when this run resumes it (read only, for a dry run). */
async function earlierResults(job: BatchJob, write: boolean): Promise<PreviousResults> {
  if (!job.output || !job.resume) return new Map();
  // A resume is refused when the earlier results were sent to another API than this run's.
  return loadEarlierResults(job.output.path, {
    write,
    baseUrl: job.settings.baseUrl.value,
    shownAs: job.output.shownAs,
    env: job.env,
  });
}

/** The records checked into a plan, or the error that refuses them. */
async function planOf(job: BatchJob, ctx: Context, previous: PreviousResults, keep: boolean): Promise<Plan> {
  const prepared: Prepared = await prepare(
    {
      format: job.input.format,
      stream: recordsStream(job, ctx),
      previous,
      retryUnknown: job.retryUnknown,
      keep,
      signal: ctx.signal,
    },
    job.defaults,
  );
  if (prepared.kind === 'plan') return prepared.plan;
  if (prepared.kind === 'another_input') {
    throw new UsageError(
      `--output ${previous.shownAs ?? 'file'} holds the results of another input: none of the ${prepared.resultsHeld} records it holds results for is a record of this input. Nothing was sent.`,
      {
        hint: 'Resume with the input those results came from, or write the results of this input to another --output.',
      },
    );
  }
  const error = invalidRecordsError(prepared.records, keep ? 'nothing was sent' : 'nothing would be sent');
  if (keep && job.actions) {
    publishInvalidInput({ ...prepared.records, message: error.message, hint: error.hint }, ctx.env);
    published.add(error);
  }
  throw error;
}

async function dryRun(job: BatchJob, ctx: Context): Promise<number> {
  if (job.output) {
    // As the run would.
    const run = { ...job.output, resume: job.resume, env: job.env };
    refuseForeignFiles(job.output.given, job.output.path, run);
    refuseOverwrite(job.output.path, run);
  }
  const plan = await planOf(job, ctx, await earlierResults(job, false), false);
  if (plan.duplicateCount > 0) ctx.stderr.write(duplicatesWarning(plan.duplicates, plan.duplicateCount));
  ctx.stderr.write(
    `Dry run: ${plan.total} records valid; ${plan.toSend} would be sent, ${plan.skipped} skipped (already created), ${plan.unknown} left unknown; ${plan.duplicateCount} ${plan.duplicateCount === 1 ? 'duplicate' : 'duplicates'}. Nothing was sent.\n`,
  );
  ctx.stderr.write(
    heldUnknownText(plan.unknownRecords, plan.unknown, {
      privacy: { emails: job.summaryEmails },
      resultsFile: job.output?.shownAs,
    }),
  );
  return ExitCode.ok;
}

async function sendAll(job: BatchJob, ctx: Context): Promise<number> {
  const claim = job.output
    ? await claimOutput(job.output, { ...job.output, resume: job.resume, env: job.env })
    : undefined;
  try {
    const plan = await planOf(job, ctx, await earlierResults(job, true), true);
    try {
      const leftOut =
        plan.duplicateCount > 0 && !job.allowDuplicates ? await settleDuplicates(job, ctx, plan) : undefined;
      const sent = await send(job, ctx, { plan: leftOut ? leavingOut(plan, leftOut) : plan, claim });
      return reportRun(job, ctx, plan, sent);
    } finally {
      plan.dispose();
    }
  } finally {
    await claim?.release();
  }
}

/**
 * Duplicates found and not declared meant: a person at a terminal is asked before they are sent; a
 * script is warned, and they are sent as before. No, the default, is asked once more where there
 * are other records: send those, leaving the duplicates out (their lines are returned)? No again:
 * exit 2, nothing sent.
 */
async function settleDuplicates(
  job: BatchJob,
  ctx: Context,
  plan: Plan,
): Promise<ReadonlySet<number> | undefined> {
  const warning = duplicatesWarning(plan.duplicates, plan.duplicateCount);
  const count = plan.duplicateCount;
  if (!job.askBeforeDuplicates) {
    ctx.stderr.write(
      `${warning}  Sending ${count === 1 ? 'it' : 'them'} anyway; add --allow-duplicates to quiet this, or check with --dry-run first.\n`,
    );
    return;
  }
  ctx.stderr.write(warning);
  const { askYesNo, finishQuestions, streamsOf } = await import('../../envelope/interactive.js');
  const streams = streamsOf(ctx);
  const question = `Send ${count === 1 ? 'the duplicate' : `all ${count} duplicates`} anyway?`;
  if (await askYesNo(question, streams)) {
    finishQuestions(streams, { said: `Sending ${count === 1 ? 'it' : 'them'} with the others.` });
    return undefined;
  }
  const others = plan.toSend - plan.duplicatesToSend;
  const records = (n: number) => `${n} ${n === 1 ? 'record' : 'records'}`;
  if (others > 0) {
    const leaving = `the ${plan.duplicatesToSend === 1 ? 'duplicate' : `${plan.duplicatesToSend} duplicates`}`;
    if (await askYesNo(`Send the other ${records(others)}, leaving out ${leaving}?`, streams)) {
      finishQuestions(streams, { said: `Sending ${records(others)}; ${leaving} left out, not sent.` });
      return plan.duplicateLines;
    }
  }
  finishQuestions(streams, { said: 'Nothing was sent.', declined: true });
  throw new UsageError('Not sent: the input has duplicate records; nothing was sent.', {
    hint: 'Remove the duplicates, or add --allow-duplicates if they are meant.',
  });
}

/** The plan without the records on `lines` (the duplicates the person chose to leave out). */
function leavingOut(plan: Plan, lines: ReadonlySet<number>): Plan {
  return {
    ...plan,
    records: async () => {
      for (;;) {
        const some = await plan.records();
        const kept = some.filter((record) => !lines.has(record.line));
        // An empty array is the end: a batch of duplicates only is read past, not returned.
        if (some.length === 0 || kept.length > 0) return kept;
      }
    },
  };
}

/** What sending came to, with the token the results were redacted of. */
interface Sent {
  report: RunReport;
  secrets: ReadonlySet<string>;
  /** Aborted when another run took over --output's lock during this one. */
  lost: AbortSignal | undefined;
}

/**
 * Opens what sending needs (the client, the results file, the journal, the pacing, the progress
 * line, the second Ctrl-C), sends the plan's records, and closes it all whatever happened.
 */
async function send(
  job: BatchJob,
  ctx: Context,
  { plan, claim }: { plan: Plan; claim: OutputClaim | undefined },
): Promise<Sent> {
  const lost = claim?.lost;
  const { concurrency, output } = job;
  const client = await connect(job.settings, ctx, {
    verbose: job.verbose,
    connections: concurrency,
    remindTokenAge: !job.json,
    // A record's own template_id (a JSON Lines key or a CSV column) wins over --template.
    templateFrom:
      job.defaults.template === undefined
        ? "the records' template_id"
        : "--template (or a record's own template_id)",
  });
  // Every token the client sends (a token command may give another after a 401): results are
  // redacted of each.
  const secrets = client.tokens;
  const results = output
    ? DurableAppender.open<ResultLine>(output.path, {
        syncEveryMs: RESULTS_SYNC_EVERY_MS,
        mode: 0o600,
        gather: true,
        env: job.env,
      })
    : undefined;
  const journalPath = output ? `${output.path}.pending` : undefined;
  const journal = journalPath
    ? await IntentJournal.create(journalPath, { results, env: job.env })
    : undefined;
  // The run's one clock: real time, as the pacer's waits are real.
  const clock = Date.now;
  const pacer = new RateLimiter(clock(), { ceiling: job.rate, concurrency });
  const settled = plan.skipped + plan.unknown;
  const progress = await startProgress(ctx, {
    total: plan.total,
    settled,
    limiter: pacer,
    json: job.json,
    clock,
  });
  // A second Ctrl-C abandons the requests in flight (the journal keeps them: a resume reports them
  // as unknown), then the summary and the resume command are still printed.
  const abandon = new AbortController();
  setMaxListeners(concurrency + 16, abandon.signal);
  ctx.secondInterrupt.claim();
  const onSecond = () => abandon.abort(ctx.secondInterrupt.signal.reason);
  ctx.secondInterrupt.signal.addEventListener('abort', onSecond, { once: true });
  let report: RunReport | undefined;
  const checkIn = whereToCheckEnvelopes(job.settings.baseUrl.value);
  try {
    report = await runBatch(sendPlan(job, plan), {
      client,
      sink: results
        ? fileSink(results, secrets, client.options.baseUrl)
        : stdoutSink(ctx.stdout, job.actions ? resultLinesForLog(ctx.stderr) : {}),
      journal:
        journal && results
          ? {
              reserve: (records) => journal.reserve(records, results.end),
              sent: (record) => journal.sent(record.line, results.end),
            }
          : undefined,
      pacer,
      clock,
      // A run whose lock was taken over starts no new record, as after a Ctrl-C; and no request
      // leaves unless the lock is known to be held at that moment (a stopped run learns it first).
      signal: lost ? AbortSignal.any([ctx.signal, lost]) : ctx.signal,
      held: claim?.held,
      abandon: abandon.signal,
      events: (event) => onEvent(event, { job, ctx, progress }),
      recordError: (failure) => recordFailureError(failure, checkIn),
    });
  } finally {
    ctx.secondInterrupt.signal.removeEventListener('abort', onSecond);
    progress.stop();
    await client.close();
    await results?.close().catch(() => {});
    await journal?.close().catch(() => {});
    // When the run ended normally, every request that left has its answer stored and synced, so
    // the intents are spent. Otherwise (storing failed, a second Ctrl-C, an unexpected error)
    // they are kept: a resumed run treats the records they name as unknown.
    if (journalPath && report && !report.outputError && !abandon.signal.aborted) {
      await unlink(journalPath).catch(() => {});
    }
  }
  return { report, secrets, lost };
}

/** The plan's records, sent as the job says. */
function sendPlan(job: BatchJob, plan: Plan): SendPlan {
  return {
    records: plan.records,
    settled: { skipped: plan.skipped, unknown: plan.unknown },
    concurrency: job.concurrency,
    maxRetries: job.maxRetries,
    maxRateWaitMs: job.maxRateWaitMs,
    stopAfterSameFailures: job.keepGoing ? undefined : SAME_FAILURE_STOP_AFTER,
  };
}

/** What the run tells as it goes: the progress line, the first interrupt, retries under --verbose. */
function onEvent(
  event: BatchEvent,
  {
    job,
    ctx,
    progress,
  }: { job: BatchJob; ctx: Context; progress: { update: (counts: RunReport['counts']) => void } },
): void {
  if (event.kind === 'progress') progress.update(event.counts);
  else if (event.kind === 'stopping') {
    ctx.stderr.write(stoppingText(event.inFlight, ctx.signal.reason, ctx.terminal.stderrIsTTY));
  } else if (job.verbose) {
    ctx.stderr.write(
      `line ${event.line}: ${event.status ?? 'network error'}; retrying in ${secondsText(event.waitMs)}\n`,
    );
  }
}

/** The command that finishes this run, as the user can paste it. */
function resumeCommand(job: BatchJob, extra: NextStep[] = []): string {
  return nextCommand(job.next, ['--resume', ...extra]);
}

/**
 * The end of a run: the summary and the failed records on stderr, the CI report, then the run's
 * error (results not written, a 401) or its exit code with the command that finishes it.
 */
function reportRun(job: BatchJob, ctx: Context, plan: Plan, { report: run, secrets, lost }: Sent): number {
  const { output } = job;
  const where = output ? `in ${output.shownAs}` : 'on stdout';
  const outputError = run.outputError as NodeJS.ErrnoException | undefined;
  const report = reportOf(plan, run, output?.path);
  ctx.stderr.write(summaryText(report, where));
  // The failed and unknown records by error, as `create` prints its own error and hint (a 401
  // stops the run and is printed as the run's error instead).
  const runError = run.stoppedBy && sameErrorKey(run.stoppedBy);
  const isRunError = (group: FailureGroup) => group.state === 'failed' && group.key === runError;
  ctx.stderr.write(
    failureListText(
      report,
      output === undefined ? undefined : listFailuresCommand(output.shownAs),
      isRunError,
    ),
  );
  if (job.actions) publishForActions(report, run, ctx, { isRunError, emails: job.summaryEmails });

  if (outputError) throw outputFailed(job, { error: outputError, unwritten: run.unwritten, secrets }, ctx);
  if (run.stoppedBy) {
    run.stoppedBy.details.push(
      'The batch stopped at the first 401; records not yet sent were left for a later run.',
    );
    throw run.stoppedBy;
  }
  if (lost?.aborted && !ctx.signal.aborted) throw lockTakenOver(job, report, lost.reason);
  if (run.interrupted) {
    ctx.stderr.write(interruptedText(report.notSent, run.abandoned, output ? resumeCommand(job) : undefined));
    return ExitCode.interrupted;
  }
  if (run.sameFailure) ctx.stderr.write(sameFailureStopText(report, afterFixing(job, report)));
  if (report.unknown > 0) {
    ctx.stderr.write(
      heldUnknownText(plan.unknownRecords, plan.unknown, {
        privacy: { emails: job.summaryEmails },
        resultsFile: output?.shownAs,
      }),
    );
    ctx.stderr.write(
      unknownNextStep(report.unknown, {
        retryUnknown: output ? resumeCommand(job, ['--retry-unknown']) : undefined,
        checkIn: whereToCheckEnvelopes(job.settings.baseUrl.value),
      }),
    );
  }
  return report.failed > 0 || report.unknown > 0 ? ExitCode.batchIncomplete : ExitCode.ok;
}

/** The run's report, from what the checks and the sending came to. */
function reportOf(plan: Plan, run: RunReport, resultsFile: string | undefined): BatchReport {
  const { counts } = run;
  const outputError = run.outputError as NodeJS.ErrnoException | undefined;
  return buildReport({
    total: plan.total,
    counts,
    elapsedMs: run.elapsedMs,
    limits: run.limits,
    resultsFile,
    interrupted: run.interrupted,
    stoppedBy: run.stoppedBy ? 'unauthenticated' : run.sameFailure ? 'same_failure' : undefined,
    notSent: plan.total - counts.created - counts.failed - counts.unknown - counts.skipped - run.abandoned,
    outputError: outputError ? String(outputError.code ?? outputError.message) : undefined,
    unwritten: run.unwritten.length,
    records: run.records,
    recordsSeen: run.recordsSeen,
    groups: run.groups,
    otherFailures: run.otherFailures,
  });
}

/** How to go on after a stop for the same failure, once its cause is fixed. */
function afterFixing(job: BatchJob, report: BatchReport): string {
  if (job.output) return `finish with\n  ${resumeCommand(job)}`;
  // Without --output there is nothing to resume from: the records created would be created again.
  const created = report.created > 0 ? ` without the ${report.created} records created above` : '';
  return `run the same command again${created}.`;
}

/**
 * In GitHub Actions: the job summary and the step outputs. A runner file that cannot be written is
 * the run's error only when nothing else went wrong; otherwise it is a note.
 */
function publishForActions(
  report: BatchReport,
  run: RunReport,
  ctx: Context,
  { isRunError, emails }: { isRunError: (group: FailureGroup) => boolean; emails: boolean },
): void {
  // One annotation per error (the run's own error, a 401, is annotated where it is reported),
  // redacted before it is escaped, and written as esign's own workflow commands.
  const shown = redactStrings(report, ctx.redact);
  const original = (group: FailureGroup) => report.groups[shown.groups.indexOf(group)] as FailureGroup;
  writeCommands(
    ctx.stderr,
    batchAnnotations(shown, (group) => isRunError(original(group))),
  );
  try {
    publishBatchReport(report, ctx.env, ctx.redact, { emails });
  } catch (error) {
    const clean =
      !run.outputError && !run.stoppedBy && !run.interrupted && report.failed + report.unknown === 0;
    if (clean) throw error;
    ctx.stderr.write(`warning: ${(error as Error).message}\n`);
  }
}

/**
 * The results could not be written (closed pipe, full disk): every envelope created whose result
 * was lost is listed on stderr, or in a file whose path is printed when there are many. In GitHub
 * Actions the signing URLs are masked before they are listed.
 */
function outputFailed(
  job: BatchJob,
  lost: { error: NodeJS.ErrnoException; unwritten: readonly ResultLine[]; secrets: ReadonlySet<string> },
  ctx: Context,
): OutputFailedError {
  const { output } = job;
  const { unwritten } = lost;
  const what = output ? `--output ${output.shownAs}` : 'standard output';
  const details: string[] = [];
  if (unwritten.length > 0) {
    const listed = unwritten.map((result) =>
      result.ok
        ? `line ${result.line}: ${createdEnvelopeText(result)}`
        : `line ${result.line}: outcome unknown (the envelope may exist)`,
    );
    let file: string | undefined;
    if (listed.length > MAX_UNWRITTEN_ON_STDERR) {
      file = join(tmpdir(), `esign-batch-unwritten-${process.pid}-${Date.now()}.jsonl`);
      const lines = unwritten.map((result) => JSON.stringify(result)).join('\n');
      try {
        writeFileSync(file, redact(`${lines}\n`, lost.secrets), { mode: 0o600, flag: 'wx' });
      } catch {
        file = undefined;
      }
    }
    if (!file && job.actions) {
      const urls = unwritten.flatMap((result) => (result.ok ? [ctx.redact(result.signing_url)] : []));
      maskValues(ctx.stderr, urls);
    }
    details.push(
      `${unwritten.length} ${unwritten.length === 1 ? 'envelope was' : 'envelopes were'} created (or may have been) whose results may not have been written${file ? `; their result lines are in ${file}` : ':'}`,
      ...(file ? [] : listed),
    );
  }
  return new OutputFailedError(lost.error, what, {
    details,
    hint: output
      ? `No new record was started. Make room, then finish with\n  ${resumeCommand(job)}\nRecords whose results were lost count as unknown there and are not sent again.`
      : 'No new record was started. Send results to a file with --output, so that a run can be resumed.',
  });
}

/**
 * Another run took over --output's lock while this one stood still past its lease (a suspended
 * machine, a stopped job): this run started no new record from then on. Both may have written to
 * the results, so neither is resumed by itself.
 */
function lockTakenOver(job: BatchJob, report: BatchReport, why: unknown): CliError {
  const shown = job.output?.shownAs ?? 'the results file';
  const what =
    why instanceof LockLostError && why.why === 'unconfirmed'
      ? `This run stood still past its lease (${LEASE_MS / 1000} s), then could not make sure it still holds the lock on --output ${shown} (${escapeControl(why.message)})`
      : `Another run took over the lock on --output ${shown} while this run stood still (its lock was not renewed for ${LEASE_MS / 1000} s)`;
  return new CliError(
    `${what}; this run stopped starting records, with ${report.notSent} not sent.`,
    ExitCode.outputFailed,
    'output_lock_lost',
    {
      hint: `Let the other run finish; then check --output ${shown} (every line of both runs is in it) and resume with --resume, which sends nobody a second envelope.`,
    },
  );
}
