// The batch engine: N workers take records in input order and create their envelopes. Safety rules:
// - a request that may have reached the server is never re-sent: its record is `unknown`;
// - an intent is on disk before each request, and each result before the record counts as done;
// - one shared rate limiter (limiter.ts) paces every send; a 429 pauses every worker and is not
//   counted against --max-retries (a record fails on 429s only past --max-rate-wait);
// - 503 and requests that never left are retried with backoff (Retry-After wins);
// - a 401 stops the whole batch; an interrupt stops starting records and lets in-flight ones finish.
import type { ApiClient } from '../api/client.js';
import { interpretCreateResponse } from '../api/client.js';
import { parseRateLimit } from '../api/rate-limit-headers.js';
import { type BackoffOptions, DEFAULT_BACKOFF, retryDelay } from '../api/retry.js';
import type { Envelope } from '../api/schemas.js';
import {
  type CliError,
  NetworkError,
  NotAuthenticatedError,
  RateLimitedError,
  ServerError,
} from '../errors.js';
import { formatResult, OUTCOME_UNKNOWN, parseResult, type ResultLine } from './formats.js';
import { type LimiterState, Pacer, RateLimiter } from './limiter.js';
import { MAX_REPORTED_RECORDS, type ReportedRecord } from './report.js';
import type { SpooledRecord } from './spool.js';

/** A record ready to send: its input line, its fingerprint and the validated JSON body. */
export type BatchRecord = SpooledRecord;

export interface ResultSink {
  /** Stores a result line (a file gathers the lines of a turn into one write). Throws if it cannot. */
  write(text: string): void;
  /** Resolves once every line written so far is stored for good (synced, for a file). */
  flushed(): Promise<void>;
  /** No more lines will come: store what is written now, without waiting for the next grouped sync. */
  finish?(): void;
  /** While the reader is behind, a promise to wait for before sending more; otherwise undefined. */
  ready?(): Promise<void> | undefined;
  /** The error that broke it (a closed pipe, a full disk), once it broke. */
  broken?(): unknown;
  /** Calls `listener` when it breaks on its own (stdout's reader went away). */
  onBroken?(listener: (error: unknown) => void): void;
  /** Once broken: lines written before that may never have reached the reader. */
  unread?(): string[];
}

export interface BatchJournal {
  /** Resolves once it is on disk that these records may be sent. */
  reserve(records: readonly BatchRecord[]): Promise<void>;
  /** Notes that the request for `record` is leaving: it may leave once this resolves, never if it rejects. */
  sent(record: BatchRecord): Promise<void>;
}

export interface BatchOptions {
  concurrency: number;
  maxRetries: number;
  /** Counts that the validation pass settled already (skipped, and unknown ones not retried). */
  settled?: Partial<BatchCounts>;
  /** Aborted on Ctrl-C: no new record starts; in-flight ones finish. */
  signal: AbortSignal;
  /** Aborted on a second Ctrl-C: requests in flight are abandoned too (the journal keeps them). */
  hardSignal?: AbortSignal;
  /** Told at once when the run starts stopping (Ctrl-C), with the requests still in flight. */
  onStopping?: (inFlight: number) => void;
  now: () => Date;
  random?: () => number;
  backoff?: BackoffOptions;
  /** A 503's Retry-After longer than this fails the record instead of waiting. */
  maxWaitMs?: number;
  /** How long one record may wait for the API's rate limit (429s) in all before it fails. */
  maxRateWaitMs?: number;
  /** The shared rate limiter (made with --rate's ceiling); a fresh one when not given. */
  limiter?: RateLimiter;
  /** Milliseconds since the epoch, for pacing (real time: the limiter's waits are real). */
  clock?: () => number;
  onProgress?: (counts: BatchCounts) => void;
  onRetry?: (info: { line: number; status: number | null; waitMs: number }) => void;
}

export interface BatchCounts {
  created: number;
  failed: number;
  unknown: number;
  skipped: number;
}

export interface BatchOutcome {
  counts: BatchCounts;
  /** Set when a 401 stopped the batch. */
  stoppedBy: CliError | undefined;
  interrupted: boolean;
  /** The rate limiter at the end: 429s met, time waited for the API. */
  limits: LimiterState;
  /** Set when the results could not be stored (closed pipe, full disk): the run stopped. */
  outputError: unknown;
  /**
   * Result lines of envelopes created (or maybe created) that could not be stored or may not have
   * reached the reader, as JSON lines.
   */
  unwritten: string[];
  /** Requests abandoned in flight by a second Ctrl-C: their outcome is unknown (the journal has them). */
  abandoned: number;
  /** Failed and unknown records (the first MAX_REPORTED_RECORDS), and how many there were. */
  records: ReportedRecord[];
  recordsSeen: number;
}

type RecordResult =
  | { kind: 'created'; data: Envelope; requestId: string }
  | { kind: 'failed' | 'unknown'; error: CliError }
  | { kind: 'abandoned' };

/**
 * Answers after which the envelope may exist: a 2xx whose body is not an envelope, and a 5xx other
 * than 503 (a server that failed half-way, or a gateway that gave up waiting for one). A 503 means
 * "not now" and is retried like a 429.
 */
function mayHaveCreated(status: number): boolean {
  return (status >= 200 && status < 300) || (status >= 500 && status !== 503);
}

/** The same error, reported as an unknown outcome: never sent again without --retry-unknown. */
function asUnknown(error: CliError): CliError {
  return new ServerError(
    `${error.message.replace(/\.$/, '')}; the envelope may have been created, so the record is not sent again by itself.`,
    {
      status: error.status,
      details: error.details,
      hint: 'Check in the dashboard whether it exists, then run with --resume --retry-unknown if it does not.',
    },
    'outcome_unknown',
  );
}

function errorJson(error: CliError) {
  return {
    code: error.code,
    message: error.message,
    status: error.status,
    ...(error.details.length ? { details: error.details } : {}),
  };
}

export async function runBatch(
  read: () => Promise<BatchRecord[]>,
  client: ApiClient,
  sink: ResultSink,
  journal: BatchJournal | undefined,
  options: BatchOptions,
): Promise<BatchOutcome> {
  const counts: BatchCounts = { created: 0, failed: 0, unknown: 0, skipped: 0, ...options.settled };
  const halt = new AbortController();
  const clock = options.clock ?? Date.now;
  const limiter = options.limiter ?? new RateLimiter(clock());
  let stoppedBy: CliError | undefined;
  let storeError: unknown;
  const unwritten: string[] = [];
  const reported: ReportedRecord[] = [];
  let abandoned = 0;
  let recordsSeen = 0;
  /** The results cannot be stored any more: no new record starts; those in flight finish. */
  const outputBroke = (error: unknown) => {
    storeError ??= error;
    halt.abort(error);
  };
  sink.onBroken?.(outputBroke);
  const onInterrupt = () => {
    if (!halt.signal.aborted) options.onStopping?.(limiter.inFlight);
    halt.abort(options.signal.reason);
  };
  if (options.signal.aborted) onInterrupt();
  else options.signal.addEventListener('abort', onInterrupt, { once: true });
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const maxWaitMs = options.maxWaitMs ?? 120_000;
  const maxRateWaitMs = options.maxRateWaitMs ?? DEFAULT_MAX_RATE_WAIT_MS;
  const pacer = new Pacer(limiter, clock, halt.signal);

  /** Backoff for a request that never left or a 503: this record's own retry, counted. */
  const wait = async (
    attempt: number,
    retryAfterMs: number | undefined,
    line: number,
    status: number | null,
  ) => {
    const waitMs = retryDelay(attempt, retryAfterMs, backoff, options.random);
    if (waitMs > maxWaitMs) return false;
    options.onRetry?.({ line, status, waitMs });
    return pacer.sleep(waitMs);
  };

  const send = async (record: BatchRecord): Promise<RecordResult> => {
    let attempt = 0;
    /** Time this record spent waiting for its turn since the API first rate-limited it. */
    let rateWaitedMs = 0;
    let rateLimited = false;
    for (;;) {
      if (halt.signal.aborted) return { kind: 'abandoned' };
      const asked = rateLimited ? clock() : 0;
      const turn = pacer.turn();
      const sent = typeof turn === 'object' ? await turn : turn;
      if (sent === false) return { kind: 'abandoned' };
      if (rateLimited) rateWaitedMs += clock() - asked;
      let response: Awaited<ReturnType<ApiClient['sendCreate']>>;
      try {
        if (journal) await journal.sent(record);
      } catch (error) {
        // The journal could not note it (a full disk): so it is not sent.
        pacer.lost();
        outputBroke(error);
        return { kind: 'abandoned' };
      }
      try {
        response = await client.sendCreate(record.body, options.hardSignal);
      } catch (error) {
        pacer.lost();
        if (options.hardSignal?.aborted) {
          abandoned++;
          return { kind: 'abandoned' }; // the journal says it left: a resume reports it as unknown
        }
        if (!(error instanceof NetworkError)) throw error;
        if (error.sent) return { kind: 'unknown', error };
        if (attempt < options.maxRetries && (await wait(attempt++, undefined, record.line, null))) continue;
        return halt.signal.aborted ? { kind: 'abandoned' } : { kind: 'failed', error };
      }
      const now = clock();
      const pause = pacer.answered(now, response.status, parseRateLimit(response.headers, now), sent);
      const outcome = interpretCreateResponse(response, options.now());
      if (outcome.ok) return { kind: 'created', data: outcome.envelope, requestId: response.requestId };
      if (mayHaveCreated(response.status)) return { kind: 'unknown', error: asUnknown(outcome.error) };
      if (outcome.error instanceof NotAuthenticatedError && !stoppedBy) {
        stoppedBy = outcome.error;
        halt.abort(outcome.error);
      }
      if (response.status === 429) {
        // Not this record's fault, and not one of its retries: it waits with everyone else.
        const left = pause ?? 0;
        if (rateWaitedMs + left > maxRateWaitMs) {
          return {
            kind: 'failed',
            error: rateWaitExceeded(outcome.error, rateWaitedMs, left, maxRateWaitMs),
          };
        }
        rateLimited = true;
        options.onRetry?.({ line: record.line, status: 429, waitMs: left });
        continue;
      }
      if (outcome.retryable && attempt < options.maxRetries) {
        if (pause !== undefined) {
          // A 503 that says when: every worker pauses already; this record waits its turn again.
          if (pause > maxWaitMs) return { kind: 'failed', error: outcome.error };
          attempt++;
          options.onRetry?.({ line: record.line, status: response.status, waitMs: pause });
          continue;
        }
        if (await wait(attempt++, outcome.retryAfterMs, record.line, response.status)) continue;
        if (halt.signal.aborted) return { kind: 'abandoned' };
      }
      return { kind: 'failed', error: outcome.error };
    }
  };

  // Reservations are made a few dozen records ahead of the workers, so that one sync covers many
  // records and is off each request's path. After a system crash or power cut (not after a mere
  // kill), reserved records that never left count as unknown: never a duplicate, at worst a few
  // records to check by hand.
  const feed = new Feeder(
    read,
    journal ? (records) => journal.reserve(records) : undefined,
    journal ? Math.min(256, Math.max(32, 4 * options.concurrency)) : 256,
  );
  // A worker's slot is free once the answer is in and its line written; the sync comes behind it,
  // covering many lines at once, and a record counts as done only then.
  const unsynced: Exclude<RecordResult['kind'], 'abandoned'>[] = [];
  let syncing: Promise<void> | undefined;
  const settle = () => {
    const covered = unsynced.length;
    syncing = sink.flushed().then(
      () => {
        for (const kind of unsynced.splice(0, covered)) counts[kind]++;
        options.onProgress?.(counts);
        syncing = unsynced.length > 0 ? settle() : undefined;
      },
      (error: unknown) => {
        outputBroke(error); // the results cannot be stored: stop everyone, then report it
        syncing = undefined;
      },
    );
    return syncing;
  };
  const store = (record: BatchRecord, result: Exclude<RecordResult, { kind: 'abandoned' }>) => {
    const line: ResultLine =
      result.kind === 'created'
        ? {
            line: record.line,
            ok: true,
            ...result.data,
            request_id: result.requestId,
            fingerprint: record.fingerprint,
          }
        : {
            line: record.line,
            ok: false,
            error: errorJson(result.error),
            ...(result.error.requestId ? { request_id: result.error.requestId } : {}),
            fingerprint: record.fingerprint,
          };
    if (result.kind !== 'created') {
      recordsSeen++;
      if (reported.length < MAX_REPORTED_RECORDS) {
        reported.push({
          line: record.line,
          email: emailOf(record.body),
          state: result.kind,
          message: result.error.message,
        });
      }
    }
    const text = formatResult(line);
    if (storeError === undefined) {
      try {
        sink.write(`${text}\n`);
        unsynced.push(result.kind);
        syncing ??= settle();
        return;
      } catch (error) {
        outputBroke(error);
      }
    }
    if (result.kind !== 'failed') unwritten.push(text);
  };

  let failure: unknown;
  const worker = async () => {
    try {
      while (!halt.signal.aborted) {
        const behind = sink.ready?.();
        if (behind) await behind; // results are not piling up in memory while their reader is slow
        const record = await feed.next();
        if (!record || halt.signal.aborted) return;
        const result = await send(record);
        if (result.kind !== 'abandoned') store(record, result);
      }
    } catch (error) {
      if (isOutputError(error)) outputBroke(error);
      else {
        failure ??= error;
        halt.abort(error); // the others finish what they hold, then the error is reported
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    options.signal.removeEventListener('abort', onInterrupt);
    await feed.settle();
    sink.finish?.();
    while (syncing) await syncing;
  }
  if (failure !== undefined) throw failure;
  if (storeError !== undefined) {
    // Lines the reader may not have got, then those never written; each envelope once.
    const seen = new Set<string>();
    const lost = [...(sink.unread?.() ?? []), ...unwritten].filter((text) => {
      if (seen.has(text) || !mayHaveEnvelope(text)) return false;
      seen.add(text);
      return true;
    });
    unwritten.splice(0, unwritten.length, ...lost);
  }
  return {
    counts,
    stoppedBy,
    interrupted: options.signal.aborted,
    limits: limiter.state(clock()),
    outputError: storeError,
    unwritten,
    abandoned,
    records: reported,
    recordsSeen,
  };
}

/** A failure to write a file of the run (journal, results): the disk, not the program. */
function isOutputError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO' || code === 'EFBIG' || code === 'EPIPE';
}

function emailOf(body: string): string | undefined {
  try {
    const email = (JSON.parse(body) as { signatory?: { email?: unknown } }).signatory?.email;
    return typeof email === 'string' ? email : undefined;
  } catch {
    return undefined;
  }
}

/** A result line of a created envelope, or of one that may exist. */
function mayHaveEnvelope(text: string): boolean {
  const parsed = parseResult(text);
  return parsed.ok && (parsed.value.ok || parsed.value.error.code === OUTCOME_UNKNOWN);
}

/** The default of --max-rate-wait: how long one record may wait for the API's rate limit. */
export const DEFAULT_MAX_RATE_WAIT_MS = 15 * 60_000;

function rateWaitExceeded(error: CliError, waitedMs: number, leftMs: number, budgetMs: number): CliError {
  const s = (ms: number) => `${Math.ceil(ms / 1000)} s`;
  return new RateLimitedError(
    `Rate limited by the API for too long: this record waited ${s(waitedMs)} and the API asks for ${s(leftMs)} more, past --max-rate-wait ${s(budgetMs)}. ${error.message}`,
    {
      status: error.status,
      hint: 'Nothing was created for it. Raise --max-rate-wait, or run again later with --resume.',
    },
  );
}

/**
 * Hands the records to the workers in input order. With a journal, a record is handed out only
 * once its reservation is on disk; the next chunk is reserved while the workers use up this one.
 */
class Feeder {
  #ready: BatchRecord[] = [];
  #pending: BatchRecord[] = [];
  #exhausted = false;
  #refill: Promise<void> | undefined;
  #error: unknown;

  constructor(
    private readonly read: () => Promise<BatchRecord[]>,
    private readonly reserve: ((records: BatchRecord[]) => Promise<void>) | undefined,
    private readonly chunk: number,
  ) {}

  get #drained(): boolean {
    return this.#exhausted && this.#pending.length === 0;
  }

  async next(): Promise<BatchRecord | undefined> {
    for (;;) {
      if (this.#error !== undefined) throw this.#error;
      const record = this.#ready.shift();
      if (record) {
        if (this.#ready.length <= this.chunk && !this.#drained) void this.#startRefill();
        return record;
      }
      if (this.#drained && !this.#refill) return undefined;
      await this.#startRefill();
    }
  }

  /** Waits for a refill under way (at the end of a run). */
  async settle(): Promise<void> {
    await this.#refill;
  }

  #startRefill(): Promise<void> {
    this.#refill ??= this.#fill()
      .catch((error: unknown) => {
        this.#error ??= error;
      })
      .finally(() => {
        this.#refill = undefined;
      });
    return this.#refill;
  }

  async #fill(): Promise<void> {
    while (!this.#exhausted && this.#pending.length < this.chunk) {
      const more = await this.read();
      if (more.length === 0) this.#exhausted = true;
      else for (const record of more) this.#pending.push(record);
    }
    const batch = this.#pending.splice(0, this.chunk);
    if (batch.length === 0) return;
    await this.reserve?.(batch);
    for (const record of batch) this.#ready.push(record);
  }
}
