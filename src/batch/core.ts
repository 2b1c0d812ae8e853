// The batch's run core: the phases in order (prepare → resume → send → report), each in a module of
// its own. It returns the end-of-run report as one typed object (BatchReport) with the exit code,
// so that a caller (the command, a CI job summary) never needs the batch's internals.

import { setMaxListeners } from 'node:events';
import { createReadStream, writeFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  batchAnnotations,
  batchResultLineForLog,
  publishBatchReport,
  publishInvalidInput,
  publishRefused,
} from '../ci/batch-summary.js';
import { githubActionsEnabled, maskValues, writeCommands } from '../ci/github-actions.js';
import { connect, loadSettings } from '../config/connect.js';
import type { Setting, Settings } from '../config/settings.js';
import type { Context } from '../context.js';
import { createdEnvelopeText } from '../envelope/created.js';
import {
  CliError,
  ExitCode,
  InputError,
  InterruptedError,
  OutputFailedError,
  UsageError,
} from '../errors.js';
import { promptsAllowed } from '../io/interaction.js';
import type { GlobalOptions } from '../options.js';
import { redact, redactStrings } from '../text/redact.js';
import { parseRate, RATE_EXPECTED, type Rate, secondsText } from '../text/units.js';
import type { BatchDefaults, InputFormat } from './build-request.js';
import { DurableAppender } from './durable-file.js';
import { type FailureGroup, sameErrorKey } from './failure-groups.js';
import { parseResult } from './formats.js';
import { IntentJournal } from './journal.js';
import { type NextStep, nextCommand } from './next-command.js';
import { RateLimiter } from './pacing/rate-limiter.js';
import { SAME_FAILURE_STOP_AFTER } from './policy.js';
import {
  checkReadableFile,
  checkWritableFolder,
  type DefaultFlags,
  formatOf,
  type Prepared,
  prepare,
  readDefaults,
} from './prepare.js';
import type { PreviousResults } from './previous-results.js';
import { startProgress } from './progress.js';
import {
  type BatchReport,
  buildReport,
  failureListText,
  listFailuresCommand,
  sameFailureStopText,
  summaryText,
} from './report.js';
import { claimOutput, loadPrevious, realOutputPath, refuseOverwrite } from './resume.js';
import { type BatchOutcome, type ResultSink, runBatch } from './run-batch.js';
import { fileSink, stdoutSink } from './sinks.js';
import { createSpool, type SpooledRecord } from './spool.js';

export interface BatchFlags extends GlobalOptions, DefaultFlags {
  file: string;
  format?: InputFormat | undefined;
  /** Undefined when the flag was not given: the project file's `defaults.concurrency`, then 4. */
  concurrency?: number | undefined;
  maxRetries: number;
  rate?: Rate | undefined;
  maxRateWait: number;
  output?: string | undefined;
  resume?: boolean | undefined;
  retryUnknown?: boolean | undefined;
  dryRun?: boolean | undefined;
  allowDuplicates?: boolean | undefined;
  /** Send every record even when the first ones all fail the same way. */
  keepGoing?: boolean | undefined;
  /** At a terminal: send duplicates without asking. */
  yes?: boolean | undefined;
  /** `--no-input` (commander's negation of --input): never ask. */
  input?: boolean | undefined;
}

export interface BatchRun {
  code: number;
  /** Undefined for a dry run (nothing was sent). */
  report: BatchReport | undefined;
}

/** The flags with the project file's defaults filled in (flag > project file > default). */
interface ResolvedFlags extends BatchFlags {
  concurrency: number;
}

/** --concurrency when neither the flag nor the project file says. */
export const DEFAULT_CONCURRENCY = 4;

/**
 * How far apart the results file's syncs are. A sync makes the lines written so far survive a power
 * cut (a killed process loses nothing it wrote); a record counts as done once one covers it. Each
 * sync spends about 0.3 ms in the kernel, more on a busy disk, and wakes a thread: every 5 ms, that
 * was a measurable share of a fast batch's two cores. The journal's synced reservations cover a
 * power cut in between.
 */
const RESULTS_SYNC_EVERY_MS = 100;

/** Unwritten envelopes listed on stderr up to this many; more go to a file whose path is printed. */
const MAX_UNWRITTEN_ON_STDERR = 20;

export async function runBatchCore(flags: BatchFlags, ctx: Context): Promise<BatchRun> {
  try {
    return await runChecked(flags, ctx);
  } catch (error) {
    // Refused before anything was sent (exit 2: results already in --output, an unfinished earlier
    // run, another input): in GitHub Actions the step outputs still say so, as for invalid records.
    const refused = error instanceof CliError && error.exitCode === ExitCode.usage && !flags.dryRun;
    if (refused && !published.has(error) && githubActionsEnabled(flags.ciOutput, ctx.env)) {
      publishRefused({ message: error.message, hint: error.hint }, ctx.env);
    }
    throw error;
  }
}

/** Errors whose step outputs and summary were written where they were raised (invalid records). */
const published = new WeakSet<object>();

async function runChecked(flags: BatchFlags, ctx: Context): Promise<BatchRun> {
  const format = formatOf(flags.file, flags.format);
  const given = flags.output === undefined ? undefined : resolve(ctx.cwd, flags.output);
  if (flags.resume && !given) {
    throw new UsageError('--resume needs --output <file>: the results of the earlier run are read from it.');
  }
  if (flags.retryUnknown && !flags.resume) throw new UsageError('--retry-unknown goes with --resume.');
  if (given) checkWritableFolder(given, flags.output as string);
  const output = given ? realOutputPath(given, flags.output) : undefined;
  // The settings first: the profile chooses which template names of the project file are in force.
  const settings = loadSettings(flags, ctx);
  const resolved = withProjectDefaults(flags, settings);
  const defaults = await readDefaults(flags, ctx, settings);
  const path = flags.file === '-' ? undefined : resolve(ctx.cwd, flags.file);
  if (path) checkReadableFile(path, flags.file);
  // A resume is refused when the earlier results were sent to another API than this run's.
  const sameApi = { baseUrl: settings.baseUrl.value, shownAs: flags.output };
  if (flags.dryRun) {
    if (output) refuseOverwrite(output, flags); // as the run would
    const previous =
      output && flags.resume ? await loadPrevious(output, { ...sameApi, write: false }) : new Map();
    return { code: await dryRun(flags, ctx, format, path, defaults, previous), report: undefined };
  }
  const release = output ? await claimOutput(output, flags) : undefined;
  try {
    const previous: PreviousResults =
      output && flags.resume ? await loadPrevious(output, sameApi) : new Map();
    return await sendAll(resolved, settings, ctx, format, path, output, defaults, previous);
  } finally {
    await release?.();
  }
}

/** --concurrency and --rate over the project file's `defaults`, over the built-in defaults. */
function withProjectDefaults(flags: BatchFlags, settings: Settings): ResolvedFlags {
  const project = settings.project;
  const fromProject = project?.content.defaults;
  let rate = flags.rate;
  if (rate === undefined && fromProject?.rate !== undefined) {
    rate = parseRate(fromProject.rate);
    if (rate === undefined) {
      throw new UsageError(
        // Worded as --rate's own refusal of the same text (src/text/units.ts).
        `${project?.path}: 'defaults.rate' must be ${RATE_EXPECTED} (got "${fromProject.rate}").`,
      );
    }
  }
  return {
    ...flags,
    concurrency: flags.concurrency ?? fromProject?.concurrency ?? DEFAULT_CONCURRENCY,
    rate,
  };
}

/**
 * Result lines on stdout, in GitHub Actions: each signing URL masked (on stderr, before the line
 * that holds it reaches stdout) and each line made inert for the runner's command parser.
 */
function actionsSink(inner: ResultSink, stderr: Context['stderr']): ResultSink {
  return { ...inner, write: (text) => inner.write(batchResultLineForLog(text, stderr)) };
}

function input(ctx: Context, path: string | undefined): Readable {
  return path ? createReadStream(path) : (ctx.stdin.stream() as Readable);
}

function invalid(checked: Prepared, what: string): InputError {
  const more = checked.problemCount - checked.problems.length;
  const records = `${checked.invalid} of ${checked.total} records ${checked.invalid === 1 ? 'is' : 'are'} invalid`;
  const problems = `${checked.problemCount} ${checked.problemCount === 1 ? 'problem' : 'problems'}`;
  return new InputError(`${records} (${problems}); ${what}.`, {
    details: more > 0 ? [...checked.problems, `… and ${more} more`] : checked.problems,
    hint: 'Fix the records (line numbers are those of the input file) and run again.',
  });
}

function duplicatesWarning(checked: Prepared): string {
  const more = checked.duplicateCount - checked.duplicates.length;
  const lines = [...checked.duplicates, ...(more > 0 ? [`… and ${more} more`] : [])];
  return `warning: ${checked.duplicateCount} duplicate ${checked.duplicateCount === 1 ? 'record' : 'records'} (the same person would get the same envelope twice):\n${lines.map((line) => `  ${line}\n`).join('')}`;
}

async function dryRun(
  flags: BatchFlags,
  ctx: Context,
  format: InputFormat,
  path: string | undefined,
  defaults: BatchDefaults,
  previous: PreviousResults,
): Promise<number> {
  const checked = await prepare(
    format,
    input(ctx, path),
    defaults,
    previous,
    Boolean(flags.retryUnknown),
    undefined,
    ctx.signal,
  );
  if (checked.problemCount > 0) throw invalid(checked, 'nothing would be sent');
  if (checked.duplicateCount > 0) ctx.stderr.write(duplicatesWarning(checked));
  ctx.stderr.write(
    `Dry run: ${checked.total} records valid; ${checked.toSend} would be sent, ${checked.skipped} skipped (already created), ${checked.unknown} left unknown; ${checked.duplicateCount} ${checked.duplicateCount === 1 ? 'duplicate' : 'duplicates'}. Nothing was sent.\n`,
  );
  return ExitCode.ok;
}

/**
 * The command that finishes this run, as the user can paste it (next-command.ts). `flags.baseUrl`
 * is the base URL the run sent to, wherever it came from.
 */
export function resumeCommand(flags: BatchFlags, extra: NextStep[] = []): string {
  return nextCommand(flags, ['--resume', ...extra]);
}

/**
 * The flags for the commands printed for what comes next: the API, profile and timeout this run
 * used, even when they came from the environment (a command pasted into another shell, or into
 * a CI step without that variable, must not send elsewhere) rather than from a flag.
 */
function flagsAsSent(flags: BatchFlags, settings: Settings): BatchFlags {
  const chosen = <T>(setting: Setting<T>) => (setting.source === 'default' ? undefined : setting.value);
  const timeoutMs = chosen(settings.timeoutMs);
  return {
    ...flags,
    baseUrl: settings.baseUrl.value ?? flags.baseUrl,
    profile: flags.profile ?? chosen(settings.profile),
    timeout: flags.timeout ?? (timeoutMs === undefined ? undefined : String(timeoutMs / 1000)),
  };
}

async function sendAll(
  flags: ResolvedFlags,
  settings: Settings,
  ctx: Context,
  format: InputFormat,
  path: string | undefined,
  output: string | undefined,
  defaults: BatchDefaults,
  previous: PreviousResults,
): Promise<BatchRun> {
  const spool = createSpool();
  try {
    const checked = await checkRecords(flags, ctx, format, path, defaults, previous, spool);
    const sent = await sendChecked(flags, settings, ctx, output, checked, spool);
    return reportRun(flags, settings, ctx, output, checked, sent);
  } finally {
    spool.dispose();
  }
}

/**
 * Reads and checks every record into the spool before any is sent: an invalid record refuses the
 * whole input; duplicates are sent, with a warning unless --allow-duplicates says they are meant.
 */
async function checkRecords(
  flags: ResolvedFlags,
  ctx: Context,
  format: InputFormat,
  path: string | undefined,
  defaults: BatchDefaults,
  previous: PreviousResults,
  spool: ReturnType<typeof createSpool>,
): Promise<Prepared> {
  let checked: Prepared;
  try {
    checked = await prepare(
      format,
      input(ctx, path),
      defaults,
      previous,
      Boolean(flags.retryUnknown),
      spool.writer,
      ctx.signal,
    );
    spool.writer.finish();
  } finally {
    spool.writer.close();
  }
  if (checked.problemCount > 0) {
    const error = invalid(checked, 'nothing was sent');
    if (githubActionsEnabled(flags.ciOutput, ctx.env)) {
      publishInvalid(checked, error, ctx);
      published.add(error);
    }
    throw error;
  }
  if (checked.duplicateCount > 0 && !flags.allowDuplicates) await settleDuplicates(flags, ctx, checked);
  return checked;
}

/**
 * Duplicates found and not declared meant: a person at a terminal is asked before they are sent
 * (No, the default: exit 2, nothing sent); a script is warned, and they are sent as before.
 */
async function settleDuplicates(flags: ResolvedFlags, ctx: Context, checked: Prepared): Promise<void> {
  if (flags.yes || !promptsAllowed({ ...flags, noInput: flags.input === false }, ctx)) {
    ctx.stderr.write(
      `${duplicatesWarning(checked)}  Sending ${checked.duplicateCount === 1 ? 'it' : 'them'} anyway; add --allow-duplicates to quiet this, or check with --dry-run first.\n`,
    );
    return;
  }
  ctx.stderr.write(duplicatesWarning(checked));
  const { askYesNo, streamsOf } = await import('../envelope/interactive.js');
  const count = checked.duplicateCount;
  if (
    await askYesNo(
      `Send ${count === 1 ? 'the duplicate' : `all ${count} duplicates`} anyway?`,
      streamsOf(ctx),
    )
  )
    return;
  throw new UsageError('Not sent: the input has duplicate records; nothing was sent.', {
    hint: 'Remove the duplicates, or add --allow-duplicates if they are meant.',
  });
}

/** What the sending phase hands to the report. */
interface Sent {
  outcome: BatchOutcome;
  elapsedMs: number;
  /** In GitHub Actions: a job summary and step outputs are published. */
  actions: boolean;
  secrets: ReadonlySet<string>;
}

/**
 * Opens what sending needs (the client, the results file, the journal, the pacing, the progress
 * line, the second Ctrl-C), sends the checked records, and closes it all whatever happened.
 */
async function sendChecked(
  flags: ResolvedFlags,
  settings: Settings,
  ctx: Context,
  output: string | undefined,
  checked: Prepared,
  spool: ReturnType<typeof createSpool>,
): Promise<Sent> {
  const { concurrency } = flags;
  const actions = githubActionsEnabled(flags.ciOutput, ctx.env);
  const client = await connect(settings, flags, ctx, { connections: concurrency });
  const token = settings.token.value;
  const secrets = new Set(token ? [token] : []);
  const results = output
    ? DurableAppender.open(output, { syncEveryMs: RESULTS_SYNC_EVERY_MS, mode: 0o600, gather: true })
    : undefined;
  const journalPath = output ? `${output}.pending` : undefined;
  const journal = journalPath ? await IntentJournal.create(journalPath, { results }) : undefined;
  // The run's one clock: real time, as the pacer's waits are real.
  const clock = Date.now;
  const limiter = new RateLimiter(clock(), { ceiling: flags.rate, concurrency });
  const progress = await startProgress(ctx, checked.total, checked.skipped + checked.unknown, limiter, {
    json: flags.json,
    clock,
  });
  // A second Ctrl-C abandons the requests in flight (the journal keeps them: a resume reports
  // them as unknown), then the summary and the resume command are still printed.
  const hard = new AbortController();
  setMaxListeners(concurrency + 16, hard.signal);
  ctx.secondInterrupt.claim();
  const onSecond = () => hard.abort(ctx.secondInterrupt.signal.reason);
  ctx.secondInterrupt.signal.addEventListener('abort', onSecond, { once: true });
  const started = performance.now();
  let outcome: BatchOutcome | undefined;
  try {
    outcome = await sendRecords({
      flags,
      ctx,
      checked,
      spool,
      client,
      results,
      journal,
      secrets,
      actions,
      limiter,
      clock,
      progress,
      hard,
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
    if (journalPath && outcome && !outcome.outputError && !hard.signal.aborted) {
      await unlink(journalPath).catch(() => {});
    }
  }
  return { outcome, elapsedMs: performance.now() - started, actions, secrets };
}

/**
 * The end of a run: the summary and the failed records on stderr, the CI report, then the run's
 * error (results not written, a 401) or its exit code with the command that finishes it.
 */
function reportRun(
  flags: ResolvedFlags,
  settings: Settings,
  ctx: Context,
  output: string | undefined,
  checked: Prepared,
  { outcome, elapsedMs, actions, secrets }: Sent,
): BatchRun {
  const where = output ? `in ${flags.output}` : 'on stdout';
  const sentTo = flagsAsSent(flags, settings);
  const outputError = outcome.outputError as NodeJS.ErrnoException | undefined;
  const report = reportOf(checked, outcome, elapsedMs, output);
  ctx.stderr.write(summaryText(report, where));
  // The failed and unknown records by error, as `create` prints its own error and hint (a 401
  // stops the run and is printed as the run's error instead).
  const runError = outcome.stoppedBy && sameErrorKey(outcome.stoppedBy);
  const isRunError = (group: FailureGroup) => group.state === 'failed' && group.key === runError;
  ctx.stderr.write(
    failureListText(
      report,
      flags.output === undefined ? undefined : listFailuresCommand(flags.output),
      isRunError,
    ),
  );
  if (actions) publishForActions(report, outcome, ctx, isRunError);

  if (outputError) {
    const mask = actions ? (urls: string[]) => maskValues(ctx.stderr, urls.map(ctx.redact)) : undefined;
    throw outputFailed(sentTo, outputError, output, outcome.unwritten, secrets, mask);
  }
  if (outcome.stoppedBy) {
    outcome.stoppedBy.details.push(
      'The batch stopped at the first 401; records not yet sent were left for a later run.',
    );
    throw outcome.stoppedBy;
  }
  if (outcome.interrupted) {
    ctx.stderr.write(interruptedText(sentTo, report.notSent, outcome, output));
    return { code: ExitCode.interrupted, report };
  }
  if (outcome.sameFailure) ctx.stderr.write(sameFailureStopText(report, afterFixing(sentTo, report, output)));
  if (report.unknown > 0) ctx.stderr.write(unknownNextStep(sentTo, report.unknown, Boolean(output)));
  const code = report.failed > 0 || report.unknown > 0 ? ExitCode.batchIncomplete : ExitCode.ok;
  return { code, report };
}

/** The run's BatchReport, from what the checks and the sending came to. */
function reportOf(
  checked: Prepared,
  outcome: BatchOutcome,
  elapsedMs: number,
  output: string | undefined,
): BatchReport {
  const { counts } = outcome;
  const outputError = outcome.outputError as NodeJS.ErrnoException | undefined;
  return buildReport({
    total: checked.total,
    counts,
    elapsedMs,
    limits: outcome.limits,
    resultsFile: output,
    interrupted: outcome.interrupted,
    stoppedBy: outcome.stoppedBy ? 'unauthenticated' : outcome.sameFailure ? 'same_failure' : undefined,
    notSent:
      checked.total - counts.created - counts.failed - counts.unknown - counts.skipped - outcome.abandoned,
    outputError: outputError ? String(outputError.code ?? outputError.message) : undefined,
    unwritten: outcome.unwritten.length,
    records: outcome.records,
    recordsSeen: outcome.recordsSeen,
    groups: outcome.groups,
    otherFailures: outcome.otherFailures,
  });
}

/** How to go on after a stop for the same failure, once its cause is fixed. */
function afterFixing(flags: BatchFlags, report: BatchReport, output: string | undefined): string {
  if (output) return `finish with\n  ${resumeCommand(flags)}`;
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
  outcome: BatchOutcome,
  ctx: Context,
  isRunError: (group: FailureGroup) => boolean,
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
    publishBatchReport(report, ctx.env, ctx.redact);
  } catch (error) {
    const clean =
      !outcome.outputError &&
      !outcome.stoppedBy &&
      !outcome.interrupted &&
      report.failed + report.unknown === 0;
    if (clean) throw error;
    ctx.stderr.write(`warning: ${(error as Error).message}\n`);
  }
}

/**
 * In GitHub Actions, a batch refused for invalid records still says so on the job page: the step
 * outputs (nothing created) and a job summary listing the invalid lines.
 */
function publishInvalid(checked: Prepared, error: InputError, ctx: Context): void {
  publishInvalidInput(
    {
      total: checked.total,
      invalid: checked.invalid,
      problems: checked.problems,
      problemCount: checked.problemCount,
      message: error.message,
      hint: error.hint,
    },
    ctx.env,
  );
}

/** What an interrupted run left: records not sent, requests abandoned, the command that finishes. */
function interruptedText(
  flags: BatchFlags,
  notSent: number,
  outcome: BatchOutcome,
  output: string | undefined,
): string {
  const abandoned =
    outcome.abandoned === 0
      ? ''
      : ` ${outcome.abandoned} ${outcome.abandoned === 1 ? 'request in flight was' : 'requests in flight were'} abandoned: the envelope may exist${output ? ', and --resume reports it as unknown' : ''}.`;
  return `Interrupted: ${notSent} records were not sent.${abandoned}${output ? ` Run the same command with --resume to finish.\n  ${resumeCommand(flags)}` : ''}\n`;
}

/** What sendAll has ready when the records go out. */
interface Sending {
  flags: ResolvedFlags;
  ctx: Context;
  checked: Prepared;
  spool: ReturnType<typeof createSpool>;
  client: Awaited<ReturnType<typeof connect>>;
  results: DurableAppender | undefined;
  journal: IntentJournal | undefined;
  secrets: ReadonlySet<string>;
  actions: boolean;
  limiter: RateLimiter;
  clock: () => number;
  progress: Awaited<ReturnType<typeof startProgress>>;
  /** Aborted by a second Ctrl-C. */
  hard: AbortController;
}

/** Sends the checked records through runBatch: where the results go, the journal, the options. */
function sendRecords(run: Sending): ReturnType<typeof runBatch> {
  const { flags, ctx, checked, spool, client, results, journal, secrets, actions } = run;
  let sink: ResultSink;
  if (results) sink = fileSink(results, secrets, client.options.baseUrl);
  else if (actions) sink = actionsSink(stdoutSink(ctx.stdout), ctx.stderr);
  else sink = stdoutSink(ctx.stdout);
  const notes =
    journal && results
      ? {
          reserve: (records: SpooledRecord[]) => journal.reserve(records, results.end),
          sent: (record: SpooledRecord) => journal.sent(record.line, results.end),
        }
      : undefined;
  return runBatch({
    records: () => spool.reader.next(),
    client,
    sink,
    journal: notes,
    options: {
      concurrency: flags.concurrency,
      maxRetries: flags.maxRetries,
      maxRateWaitMs: flags.maxRateWait,
      limiter: run.limiter,
      clock: run.clock,
      settled: { skipped: checked.skipped, unknown: checked.unknown },
      signal: ctx.signal,
      hardSignal: run.hard.signal,
      onProgress: run.progress.update,
      stopAfterSameFailures: flags.keepGoing ? undefined : SAME_FAILURE_STOP_AFTER,
      onStopping: (inFlight) =>
        ctx.stderr.write(stoppingText(inFlight, ctx.signal.reason, ctx.terminal.stderrIsTTY)),
      onRetry: flags.verbose
        ? ({ line, status, waitMs }) =>
            ctx.stderr.write(
              `line ${line}: ${status ?? 'network error'}; retrying in ${secondsText(waitMs)}\n`,
            )
        : undefined,
    },
  });
}

/**
 * What the first interrupt says at once: what the run waits for, if anything, and what a second
 * one does, in the words of the signal that came (Ctrl-C at a terminal, SIGTERM from a CI runner
 * or `kill`).
 */
export function stoppingText(inFlight: number, reason: unknown, terminal: boolean): string {
  const signal = reason instanceof InterruptedError ? reason.signalName : undefined;
  const by = signal === 'SIGTERM' ? ' (SIGTERM)' : '';
  // On a terminal, a line of its own after the ^C it echoed (or the live progress line); in a log,
  // no empty line.
  const start = terminal ? '\n' : '';
  if (inFlight === 0) return `${start}stopping${by}: no request is in flight; no new record is sent\n`;
  const requests = `${inFlight} ${inFlight === 1 ? 'request' : 'requests'}`;
  const again = signal === 'SIGTERM' ? 'a second SIGTERM or Ctrl-C abandons them' : 'Ctrl-C again to abort';
  return `${start}stopping${by}: waiting for ${requests} in flight; ${again}\n`;
}

function unknownNextStep(flags: BatchFlags, unknown: number, hasOutput: boolean): string {
  const records = unknown === 1 ? '1 record has' : `${unknown} records have`;
  if (!hasOutput) {
    return `${records} an unknown outcome: the envelope may exist. Check in the dashboard before sending them again (the results above say which lines).\n`;
  }
  return `${records} an unknown outcome: the envelope may exist. Check in the dashboard; for those that do not exist, run\n  ${resumeCommand(flags, ['--retry-unknown'])}\nwhich sends every unknown record again: a signatory whose envelope does exist gets a second one.\n`;
}

/**
 * The results could not be written (closed pipe, full disk): every envelope created whose result
 * was lost is listed on stderr, or in a file whose path is printed when there are many.
 */
function outputFailed(
  flags: BatchFlags,
  error: NodeJS.ErrnoException,
  output: string | undefined,
  unwritten: string[],
  secrets: ReadonlySet<string>,
  /** In GitHub Actions: masks the signing URLs before they are listed on stderr. */
  mask?: (urls: string[]) => void,
): OutputFailedError {
  const what = output ? `--output ${flags.output}` : 'standard output';
  const details: string[] = [];
  if (unwritten.length > 0) {
    const urls: string[] = [];
    const listed = unwritten.map((text) => {
      const parsed = parseResult(text); // lines this run wrote through formatResult a moment ago
      if (!parsed.ok) return text;
      const result = parsed.value;
      if (result.ok) urls.push(result.signing_url);
      return result.ok
        ? `line ${result.line}: ${createdEnvelopeText(result)}`
        : `line ${result.line}: outcome unknown (the envelope may exist)`;
    });
    let file: string | undefined;
    if (listed.length > MAX_UNWRITTEN_ON_STDERR) {
      file = join(tmpdir(), `esign-batch-unwritten-${process.pid}-${Date.now()}.jsonl`);
      try {
        writeFileSync(file, redact(`${unwritten.join('\n')}\n`, secrets), { mode: 0o600, flag: 'wx' });
      } catch {
        file = undefined;
      }
    }
    if (!file) mask?.(urls);
    details.push(
      `${unwritten.length} ${unwritten.length === 1 ? 'envelope was' : 'envelopes were'} created (or may have been) whose results may not have been written${file ? `; their result lines are in ${file}` : ':'}`,
      ...(file ? [] : listed),
    );
  }
  return new OutputFailedError(error, what, {
    details,
    hint: output
      ? `No new record was started. Make room, then finish with\n  ${resumeCommand(flags)}\nRecords whose results were lost count as unknown there and are not sent again.`
      : 'No new record was started. Send results to a file with --output, so that a run can be resumed.',
  });
}
