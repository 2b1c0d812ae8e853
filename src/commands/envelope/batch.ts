// esign envelope batch <file>: validate every record in one streaming pass, then create the
// envelopes in a second, with results streamed as JSON Lines and a run that can always be resumed.
import { accessSync, constants, createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ulid } from '../../api/schemas.js';
import {
  type BatchDefaults,
  buildBatchRequest,
  fingerprint,
  type InputFormat,
} from '../../batch/build-request.js';
import { DurableAppender } from '../../batch/durable-file.js';
import {
  dropTornTail,
  type PreviousResults,
  readPendingJournal,
  readPreviousResults,
  unansweredIntents,
} from '../../batch/previous-results.js';
import { type RawItem, readCsv, readJsonl } from '../../batch/readers.js';
import { type BatchCounts, type BatchRecord, runBatch } from '../../batch/run-batch.js';
import type { CommandInput } from '../../cli.js';
import type { Context } from '../../context.js';
import {
  type Problems,
  parseExpiresInDays,
  parseSetFlags,
  readMergeDataFiles,
} from '../../envelope/request.js';
import { CliError, ExitCode, InputError, UsageError } from '../../errors.js';
import { describeReadError } from '../../io/files.js';
import { spinnerWanted } from '../../io/spinner.js';
import { type CommonOptions, connect, loadSettings } from '../settings.js';

interface BatchFlags extends CommonOptions {
  format?: InputFormat;
  template?: string;
  data?: string[];
  set?: string[];
  expiresInDays?: string;
  concurrency: string;
  maxRetries: string;
  output?: string;
  resume?: boolean;
  retryUnknown?: boolean;
}

const MAX_LISTED_PROBLEMS = 20;

function wholeNumber(raw: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`${flag}: '${raw}' must be a whole number from ${min} to ${max}.`);
  }
  return Number(raw);
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

function reader(format: InputFormat, path: string): AsyncGenerator<RawItem> {
  const stream = createReadStream(path);
  return format === 'csv' ? readCsv(stream) : readJsonl(stream);
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

/** The first pass: every record checked, nothing kept but a count and the problems. */
async function validateAll(
  format: InputFormat,
  path: string,
  defaults: BatchDefaults,
  previous: PreviousResults,
): Promise<{ total: number; problems: string[]; problemCount: number }> {
  const problems: string[] = [];
  let problemCount = 0;
  let total = 0;
  const report = (line: number, problem: string) => {
    problemCount++;
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push(`line ${line}: ${problem}`);
  };
  for await (const item of reader(format, path)) {
    total++;
    if ('problem' in item) {
      report(item.line, item.problem);
      continue;
    }
    const found: Problems = [];
    const request = buildBatchRequest(item.record, defaults, format, found);
    for (const problem of found) report(item.line, problem);
    const before = previous.get(item.line);
    if (request && before && before.state !== 'failed' && before.fingerprint !== fingerprint(request)) {
      report(
        item.line,
        `this record changed since the results were written (there it was ${before.state === 'created' ? 'created' : 'sent with an unknown outcome'}); resuming could send someone a second envelope`,
      );
    }
  }
  return { total, problems, problemCount };
}

/** The second pass: the same records, now as requests. */
async function* requests(
  format: InputFormat,
  path: string,
  defaults: BatchDefaults,
): AsyncGenerator<BatchRecord> {
  for await (const item of reader(format, path)) {
    const problems: Problems = [];
    const request =
      'problem' in item ? undefined : buildBatchRequest(item.record, defaults, format, problems);
    if (!request) {
      // The first pass found every record valid: the file changed while the batch ran.
      throw new CliError(
        `Line ${item.line} of the input changed while the batch ran; no more records were sent.`,
        ExitCode.internal,
        'input_changed',
        {
          details: 'problem' in item ? [item.problem] : problems,
          hint: 'Leave the input alone during a run. Fix it, then run again with --resume.',
        },
      );
    }
    yield { line: item.line, request, fingerprint: fingerprint(request) };
  }
}

async function spoolStdin(ctx: Context): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'esign-batch-'));
  const path = join(dir, 'stdin');
  await pipeline(ctx.stdin.stream() as Readable, createWriteStream(path, { mode: 0o600 }));
  return { path, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** With --resume: what the earlier runs did, with unanswered intents turned into `unknown` results. */
async function loadPrevious(output: string): Promise<PreviousResults> {
  if (!existsSync(output)) return new Map();
  await dropTornTail(output);
  const previous = await readPreviousResults(output);
  const intents = unansweredIntents(await readPendingJournal(`${output}.pending`), previous);
  if (intents.length > 0) {
    const lines = intents.map((intent) =>
      JSON.stringify({
        line: intent.line,
        ok: false,
        error: {
          code: 'outcome_unknown',
          message: 'The run stopped after this request was sent and before its answer was stored.',
          status: null,
        },
        fingerprint: intent.fingerprint,
      }),
    );
    const appender = await DurableAppender.open(output);
    await appender.append(`${lines.join('\n')}\n`);
    await appender.close();
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

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const flags = input.options as unknown as BatchFlags;
  const file = input.args[0] ?? '';
  const format = formatOf(file, flags.format);
  const concurrency = wholeNumber(flags.concurrency, '--concurrency', 1, 64);
  const maxRetries = wholeNumber(flags.maxRetries, '--max-retries', 0, 20);
  const output = flags.output === undefined ? undefined : resolve(ctx.cwd, flags.output);
  if (flags.resume && !output) {
    throw new UsageError('--resume needs --output <file>: the results of the earlier run are read from it.');
  }
  if (flags.retryUnknown && !flags.resume) throw new UsageError('--retry-unknown goes with --resume.');
  if (output && !flags.resume && existsSync(output) && statSync(output).size > 0) {
    throw new UsageError(`--output ${flags.output} already holds results.`, {
      hint: 'Add --resume to continue that run without sending anyone a second envelope, or choose another file.',
    });
  }
  if (output) checkWritableFolder(output, flags.output as string);
  const defaults = await readDefaults(flags, ctx);

  const spooled = file === '-' ? await spoolStdin(ctx) : undefined;
  const path = spooled?.path ?? resolve(ctx.cwd, file);
  try {
    if (!spooled) checkReadableFile(path, file);
    const previous = output && flags.resume ? await loadPrevious(output) : new Map();
    const checked = await validateAll(format, path, defaults, previous);
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
    const results = output ? await DurableAppender.open(output, 2) : undefined;
    const journalPath = output ? `${output}.pending` : undefined;
    if (journalPath) await writeFile(journalPath, '', { mode: 0o600 });
    const journal = journalPath ? await DurableAppender.open(journalPath, 1) : undefined;
    const progress = await startProgress(ctx, checked.total);
    const started = performance.now();
    let outcome: Awaited<ReturnType<typeof runBatch>>;
    try {
      outcome = await runBatch(
        requests(format, path, defaults),
        client,
        results ? { write: (text) => results.append(text) } : coalescedWriter(ctx),
        journal && results
          ? {
              intend: (line, print) =>
                journal.append(`${JSON.stringify({ line, fingerprint: print, offset: results.end })}\n`),
            }
          : undefined,
        {
          concurrency,
          maxRetries,
          retryUnknown: Boolean(flags.retryUnknown),
          previous,
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
      // Every request that left has its answer stored, so the intents are spent. Only if storing
      // failed are they kept: a resumed run then treats those records as unknown.
      if (journalPath && !results?.failed) await unlink(journalPath).catch(() => {});
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
    await spooled?.cleanup();
  }
}

interface Progress {
  update: (counts: BatchCounts) => void;
  stop: () => void;
}

/** A live line on a terminal: done/total, failures, rate and time left. Nothing when not a TTY. */
async function startProgress(ctx: Context, total: number): Promise<Progress> {
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
      const rate = done / ((now - started) / 1000);
      const left = rate > 0 ? (total - done) / rate : 0;
      spinner.text = `${done}/${total} done · ${counts.failed + counts.unknown} failed or unknown · ${rate.toFixed(0)}/s · ${left.toFixed(0)} s left`;
    },
    stop: () => spinner.stop(),
  };
}

/** Results for stdout, gathered into one write per turn of the event loop instead of one per line. */
function coalescedWriter(ctx: Context): { write(text: string): Promise<void> } {
  let buffered: string[] = [];
  let flushed: Promise<void> | undefined;
  return {
    write(text) {
      buffered.push(text);
      flushed ??= new Promise((resolve) =>
        setImmediate(() => {
          const chunk = buffered.join('');
          buffered = [];
          flushed = undefined;
          ctx.stdout.write(chunk);
          resolve();
        }),
      );
      return flushed;
    },
  };
}
