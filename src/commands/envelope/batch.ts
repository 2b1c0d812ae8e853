// esign envelope batch <file>: validate every record in one streaming pass, then create the
// envelopes in a second, with results streamed as JSON Lines and a run that can always be resumed.
import { accessSync, constants, createReadStream, existsSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import * as z from 'zod/mini';
import { ulid } from '../../api/schemas.js';
import {
  type BatchDefaults,
  buildBatchRequest,
  fingerprintOf,
  type InputFormat,
} from '../../batch/build-request.js';
import { DurableAppender } from '../../batch/durable-file.js';
import { IntentJournal, readJournal, unansweredIntents } from '../../batch/journal.js';
import { dropTornTail, type PreviousResults, readPreviousResults } from '../../batch/previous-results.js';
import { readCsv, readJsonl } from '../../batch/readers.js';
import { type BatchCounts, type ResultSink, runBatch } from '../../batch/run-batch.js';
import { createSpool, type SpoolWriter } from '../../batch/spool.js';
import type { Context } from '../../context.js';
import {
  type Problems,
  parseExpiresInDays,
  parseSetFlags,
  readMergeDataFiles,
} from '../../envelope/request.js';
import { ExitCode, InputError, InterruptedError, UsageError } from '../../errors.js';
import { describeReadError } from '../../io/files.js';
import { acquireLock, releaseLock } from '../../io/lock.js';
import { spinnerWanted } from '../../io/spinner.js';
import { globalOptions, repeated, wholeNumber } from '../options.js';
import { connect, loadSettings } from '../settings.js';

export const options = z.object({
  ...globalOptions,
  file: z.string(),
  format: z.optional(z.enum(['jsonl', 'csv'], { error: 'must be jsonl or csv' })),
  template: z.optional(z.string()),
  data: repeated(),
  set: repeated(),
  expiresInDays: z.optional(z.string()),
  concurrency: z._default(wholeNumber(1, 64), 4),
  maxRetries: z._default(wholeNumber(0, 20), 5),
  output: z.optional(z.string()),
  resume: z.optional(z.boolean()),
  retryUnknown: z.optional(z.boolean()),
});
type BatchFlags = z.infer<typeof options>;

const MAX_LISTED_PROBLEMS = 20;

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

async function readDefaults(flags: BatchFlags, ctx: Context): Promise<BatchDefaults> {
  const problems: Problems = [];
  const fromFiles = await readMergeDataFiles(flags.data ?? [], ctx, problems);
  const fromSet = parseSetFlags(flags.set ?? [], problems);
  const expires = parseExpiresInDays(flags.expiresInDays, '--expires-in-days', problems);
  if (flags.template !== undefined) {
    const template = ulid().safeParse(flags.template);
    if (!template.success) problems.push(`--template: ${template.error.issues[0]?.message}.`);
  }
  if (problems.length > 0) {
    throw new UsageError(
      problems.length === 1 ? (problems[0] as string) : 'The default flags have problems:',
      {
        details: problems.length === 1 ? [] : problems,
      },
    );
  }
  return {
    template_id: flags.template?.toUpperCase(),
    merge_data: { ...fromFiles, ...fromSet },
    expires_in_days: expires,
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

interface Prepared {
  total: number;
  problems: string[];
  problemCount: number;
  skipped: number;
  /** Unknown in an earlier run and not to be retried. */
  unknown: number;
}

/**
 * The first pass: every record checked, and each one still to be sent written to the spool as the
 * exact body that passed. Nothing is kept in memory but counts and the first problems.
 */
async function prepare(
  format: InputFormat,
  input: Readable,
  defaults: BatchDefaults,
  previous: PreviousResults,
  retryUnknown: boolean,
  spool: SpoolWriter,
  signal: AbortSignal,
): Promise<Prepared> {
  const prepared: Prepared = { total: 0, problems: [], problemCount: 0, skipped: 0, unknown: 0 };
  const report = (line: number, problem: string) => {
    prepared.problemCount++;
    if (prepared.problems.length < MAX_LISTED_PROBLEMS) prepared.problems.push(`line ${line}: ${problem}`);
  };
  const records = format === 'csv' ? readCsv(input) : readJsonl(input);
  /** Lines the earlier run created (or may have) that still hold a record. */
  const settledLines = new Set<number>();
  for await (const item of records) {
    if (signal.aborted)
      throw new InterruptedError('Interrupted while checking the records; nothing was sent.');
    prepared.total++;
    const before = previous.get(item.line);
    if (before && before.state !== 'failed') settledLines.add(item.line);
    if ('problem' in item) {
      report(item.line, item.problem);
      continue;
    }
    const found: Problems = [];
    const request = buildBatchRequest(item.record, defaults, format, found);
    for (const problem of found) report(item.line, problem);
    if (!request) continue;
    const body = JSON.stringify(request);
    const print = fingerprintOf(body);
    if (before && before.state !== 'failed' && before.fingerprint !== print) {
      report(
        item.line,
        `this record changed since the results were written (there it was ${before.state === 'created' ? 'created' : 'sent with an unknown outcome'}); resuming could send someone a second envelope`,
      );
    }
    if (prepared.problemCount > 0) continue; // nothing will be sent: no need to spool
    if (before?.state === 'created') prepared.skipped++;
    else if (before?.state === 'unknown' && !retryUnknown) prepared.unknown++;
    else spool.add(item.line, print, body);
  }
  // A settled line with no record any more: lines were removed or joined, so records have moved,
  // and one that was created could now stand at a line that reads as never sent.
  const gone = [...previous].filter(([line, before]) => before.state !== 'failed' && !settledLines.has(line));
  for (const [line, before] of gone.sort(([a], [b]) => a - b)) {
    report(
      line,
      `the earlier run ${before.state === 'created' ? 'created' : 'sent (outcome unknown)'} the record here, and the input no longer has one; if lines moved, resuming could send someone a second envelope`,
    );
  }
  return prepared;
}

/**
 * With --resume: what the earlier runs did, with unanswered intents turned into `unknown` results.
 * The journal is read even when --output is gone: its intents then all count as unknown.
 */
async function loadPrevious(output: string): Promise<PreviousResults> {
  const previous: PreviousResults = existsSync(output)
    ? await dropTornTail(output).then(() => readPreviousResults(output))
    : new Map();
  const { intents, exact } = unansweredIntents(await readJournal(`${output}.pending`), previous);
  if (intents.length > 0) {
    const lines = intents.map((intent) =>
      JSON.stringify({
        line: intent.line,
        ok: false,
        error: {
          code: 'outcome_unknown',
          message: exact
            ? 'The run stopped after this request was sent and before its answer was stored.'
            : 'The machine restarted while this record was being sent: it may or may not have left.',
          status: null,
        },
        fingerprint: intent.fingerprint,
      }),
    );
    const appender = DurableAppender.open(output);
    try {
      await appender.append(`${lines.join('\n')}\n`);
    } finally {
      await appender.close();
    }
    for (const intent of intents) {
      if (previous.get(intent.line)?.state !== 'created') {
        previous.set(intent.line, {
          state: 'unknown',
          fingerprint: intent.fingerprint,
          offset: Number.MAX_SAFE_INTEGER,
        });
      }
    }
  }
  return previous;
}

function summaryLine(counts: BatchCounts, total: number, ms: number, where: string): string {
  const seconds = ms / 1000;
  const sent = counts.created + counts.failed + counts.unknown;
  const rate = seconds > 0 ? sent / seconds : 0;
  return `Batch: ${counts.created} created, ${counts.failed} failed, ${counts.unknown} unknown, ${counts.skipped} skipped of ${total} records in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s); results ${where}.\n`;
}

export async function run(flags: BatchFlags, ctx: Context): Promise<number> {
  const { file, concurrency, maxRetries } = flags;
  const format = formatOf(file, flags.format);
  const output = flags.output === undefined ? undefined : resolve(ctx.cwd, flags.output);
  if (flags.resume && !output) {
    throw new UsageError('--resume needs --output <file>: the results of the earlier run are read from it.');
  }
  if (flags.retryUnknown && !flags.resume) throw new UsageError('--retry-unknown goes with --resume.');
  if (output) checkWritableFolder(output, flags.output as string);
  const defaults = await readDefaults(flags, ctx);
  const path = file === '-' ? undefined : resolve(ctx.cwd, file);
  if (path) checkReadableFile(path, file);
  const release = output ? await claimOutput(output, flags) : undefined;
  try {
    const previous = output && flags.resume ? await loadPrevious(output) : new Map();
    return await sendAll({ ctx, flags, format, path, output, concurrency, maxRetries, defaults, previous });
  } finally {
    await release?.();
  }
}

/**
 * Makes this run the only one on `output` (a lock beside it, until the run ends), and makes sure no
 * earlier run's results or intents are overwritten without --resume.
 */
async function claimOutput(output: string, flags: BatchFlags): Promise<() => Promise<void>> {
  const lockPath = `${output}.lock`;
  await acquireLock(lockPath, {
    busy: (owner) =>
      new UsageError(`Another esign batch (process ${owner}) is writing to --output ${flags.output}.`, {
        hint: `Wait for it to finish, or stop it. If none is running, remove ${lockPath}.`,
      }),
    failed: (error) =>
      new UsageError(`Cannot create ${lockPath}: ${describeReadError(error)}.`, {
        hint: 'The folder of --output must be writable.',
      }),
  });
  try {
    if (!flags.resume) {
      const holds = (file: string) => existsSync(file) && statSync(file).size > 0;
      if (holds(`${output}.pending`)) {
        throw new UsageError(`An earlier run into --output ${flags.output} did not finish.`, {
          hint: 'Add --resume to finish it: requests it may have sent are reported, never sent again by themselves.',
        });
      }
      if (holds(output)) {
        throw new UsageError(`--output ${flags.output} already holds results.`, {
          hint: 'Add --resume to continue that run without sending anyone a second envelope, or choose another file.',
        });
      }
    }
  } catch (error) {
    await releaseLock(lockPath);
    throw error;
  }
  return () => releaseLock(lockPath);
}

interface SendAll {
  ctx: Context;
  flags: BatchFlags;
  format: InputFormat;
  /** The input file; undefined for standard input. */
  path: string | undefined;
  output: string | undefined;
  concurrency: number;
  maxRetries: number;
  defaults: BatchDefaults;
  previous: PreviousResults;
}

/** Both passes: check every record into the spool, then send them. */
async function sendAll({
  ctx,
  flags,
  format,
  path,
  output,
  concurrency,
  maxRetries,
  defaults,
  previous,
}: SendAll): Promise<number> {
  const spool = createSpool();
  try {
    let checked: Prepared;
    try {
      checked = await prepare(
        format,
        path ? createReadStream(path) : (ctx.stdin.stream() as Readable),
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
      const more = checked.problemCount - checked.problems.length;
      throw new InputError(
        `${checked.problemCount} of ${checked.total} records ${checked.problemCount === 1 ? 'is' : 'are'} invalid; nothing was sent.`,
        {
          details: more > 0 ? [...checked.problems, `… and ${more} more`] : checked.problems,
          hint: 'Fix the records (line numbers are those of the input file) and run again.',
        },
      );
    }

    const settings = loadSettings(flags, ctx);
    const client = await connect(settings, flags, ctx, { connections: concurrency });
    const results = output ? DurableAppender.open(output, { syncEveryMs: 5 }) : undefined;
    const journalPath = output ? `${output}.pending` : undefined;
    const journal = journalPath ? await IntentJournal.create(journalPath) : undefined;
    const progress = await startProgress(ctx, checked.total, checked.skipped + checked.unknown);
    const started = performance.now();
    let outcome: Awaited<ReturnType<typeof runBatch>> | undefined;
    try {
      outcome = await runBatch(
        () => spool.reader.next(),
        client,
        results ?? coalescedWriter(ctx),
        journal && results
          ? {
              reserve: (records) => journal.reserve(records, results.end),
              sent: (record) => journal.sent(record.line, results.end),
            }
          : undefined,
        {
          concurrency,
          maxRetries,
          settled: { skipped: checked.skipped, unknown: checked.unknown },
          signal: ctx.signal,
          now: () => ctx.now(),
          onProgress: progress.update,
          onRetry: flags.verbose
            ? ({ line, status, waitMs }) =>
                ctx.stderr.write(
                  `line ${line}: ${status ?? 'network error'}; retrying in ${(waitMs / 1000).toFixed(1)} s\n`,
                )
            : undefined,
        },
      );
    } finally {
      progress.stop();
      await client.close();
      await results?.close();
      await journal?.close();
      // When the run ended normally, every request that left has its answer stored and synced, so
      // the intents are spent. Otherwise (storing failed, an unexpected error) they are kept: a
      // resumed run treats the records they name as unknown.
      if (journalPath && outcome && !results?.failed) await unlink(journalPath).catch(() => {});
    }

    const { counts } = outcome;
    ctx.stderr.write(
      summaryLine(
        counts,
        checked.total,
        performance.now() - started,
        output ? `in ${flags.output}` : 'on stdout',
      ),
    );
    if (outcome.stoppedBy) {
      outcome.stoppedBy.details.push(
        'The batch stopped at the first 401; records not yet sent were left for a later run.',
      );
      throw outcome.stoppedBy;
    }
    if (outcome.interrupted) {
      ctx.stderr.write(
        `Interrupted: ${checked.total - counts.created - counts.failed - counts.unknown - counts.skipped} records were not sent.${output ? ' Run the same command with --resume to finish.' : ''}\n`,
      );
      return ExitCode.interrupted;
    }
    return counts.failed > 0 || counts.unknown > 0 ? ExitCode.batchIncomplete : ExitCode.ok;
  } finally {
    spool.dispose();
  }
}

interface Progress {
  update: (counts: BatchCounts) => void;
  stop: () => void;
}

/**
 * A live line on a terminal: done/total, failures, rate and time left. Nothing when not a TTY.
 * `settled` records (skipped on resume) count as done but not towards the rate.
 */
async function startProgress(ctx: Context, total: number, settled: number): Promise<Progress> {
  if (!spinnerWanted(ctx)) return { update: () => {}, stop: () => {} };
  const { default: ora } = await import('ora');
  const spinner = ora({
    text: `0/${total}`,
    stream: ctx.spinnerStream,
    isEnabled: true,
    discardStdin: false,
  }).start();
  const started = performance.now();
  let last = 0;
  return {
    update: (counts) => {
      const now = performance.now();
      if (now - last < 100) return;
      last = now;
      const done = counts.created + counts.failed + counts.unknown + counts.skipped;
      const rate = (done - settled) / ((now - started) / 1000);
      const left = rate > 0 ? (total - done) / rate : 0;
      spinner.text = `${done}/${total} done · ${counts.failed + counts.unknown} failed or unknown · ${rate.toFixed(0)}/s · ${left.toFixed(0)} s left`;
    },
    stop: () => spinner.stop(),
  };
}

/** Results for stdout, gathered into one write per turn of the event loop instead of one per line. */
function coalescedWriter(ctx: Context): ResultSink {
  let buffered = '';
  let flushing: Promise<void> | undefined;
  return {
    write(text) {
      buffered += text;
      flushing ??= new Promise((resolve) =>
        setImmediate(() => {
          const chunk = buffered;
          buffered = '';
          flushing = undefined;
          ctx.stdout.write(chunk);
          resolve();
        }),
      );
    },
    flushed: () => flushing ?? Promise.resolve(),
    ready: () => ctx.stdout.drained?.(),
  };
}
