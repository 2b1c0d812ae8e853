// The batch engine: N workers take records in input order and create their envelopes. Safety rules:
// - a request that may have reached the server is never re-sent: its record is `unknown`;
// - an intent is on disk before each request, and each result before the record counts as done;
// - 429/503 and requests that never left are retried with backoff (Retry-After wins);
// - a 401 stops the whole batch; an interrupt stops starting records and lets in-flight ones finish.
import type { ApiClient } from '../api/client.js';
import { interpretCreateResponse } from '../api/client.js';
import { type BackoffOptions, DEFAULT_BACKOFF, retryDelay, sleep } from '../api/retry.js';
import { type CliError, NetworkError, NotAuthenticatedError, ServerError } from '../errors.js';
import type { SpooledRecord } from './spool.js';

/** A record ready to send: its input line, its fingerprint and the validated JSON body. */
export type BatchRecord = SpooledRecord;

export interface ResultSink {
  /** Stores a result line (for a file: written at once). Throws if it cannot. */
  write(text: string): void;
  /** Resolves once every line written so far is stored for good (synced, for a file). */
  flushed(): Promise<void>;
  /** While the reader is behind, a promise to wait for before sending more; otherwise undefined. */
  ready?(): Promise<void> | undefined;
}

export interface BatchJournal {
  /** Resolves once it is on disk that these records may be sent. */
  reserve(records: readonly BatchRecord[]): Promise<void>;
  /** Notes that the request for `record` is leaving now (throws if that cannot be written). */
  sent(record: BatchRecord): void;
}

export interface BatchOptions {
  concurrency: number;
  maxRetries: number;
  /** Counts that the validation pass settled already (skipped, and unknown ones not retried). */
  settled?: Partial<BatchCounts>;
  /** Aborted on Ctrl-C: no new record starts; in-flight ones finish. */
  signal: AbortSignal;
  now: () => Date;
  random?: () => number;
  backoff?: BackoffOptions;
  /** A Retry-After longer than this fails the record instead of waiting. */
  maxWaitMs?: number;
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
}

type RecordResult =
  | { kind: 'created'; data: Record<string, unknown> }
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
  let stoppedBy: CliError | undefined;
  const onInterrupt = () => halt.abort(options.signal.reason);
  if (options.signal.aborted) onInterrupt();
  else options.signal.addEventListener('abort', onInterrupt, { once: true });
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const maxWaitMs = options.maxWaitMs ?? 120_000;

  const wait = async (
    attempt: number,
    retryAfterMs: number | undefined,
    line: number,
    status: number | null,
  ) => {
    const waitMs = retryDelay(attempt, retryAfterMs, backoff, options.random);
    if (waitMs > maxWaitMs) return false;
    options.onRetry?.({ line, status, waitMs });
    try {
      await sleep(waitMs, halt.signal);
      return true;
    } catch {
      return false;
    }
  };

  const send = async (record: BatchRecord): Promise<RecordResult> => {
    for (let attempt = 0; ; attempt++) {
      if (halt.signal.aborted) return { kind: 'abandoned' };
      let response: Awaited<ReturnType<ApiClient['sendCreate']>>;
      journal?.sent(record);
      try {
        response = await client.sendCreate(record.body);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        if (error.sent) return { kind: 'unknown', error };
        if (attempt < options.maxRetries && (await wait(attempt, undefined, record.line, null))) continue;
        return halt.signal.aborted ? { kind: 'abandoned' } : { kind: 'failed', error };
      }
      const outcome = interpretCreateResponse(response, options.now());
      if (outcome.ok) return { kind: 'created', data: outcome.envelope };
      if (mayHaveCreated(response.status)) return { kind: 'unknown', error: asUnknown(outcome.error) };
      if (outcome.error instanceof NotAuthenticatedError && !stoppedBy) {
        stoppedBy = outcome.error;
        halt.abort(outcome.error);
      }
      if (outcome.retryable && attempt < options.maxRetries) {
        if (await wait(attempt, outcome.retryAfterMs, record.line, response.status)) continue;
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
  let storeError: unknown;
  const settle = () => {
    const covered = unsynced.length;
    syncing = sink.flushed().then(
      () => {
        for (const kind of unsynced.splice(0, covered)) counts[kind]++;
        options.onProgress?.(counts);
        syncing = unsynced.length > 0 ? settle() : undefined;
      },
      (error: unknown) => {
        storeError ??= error;
        halt.abort(error); // the results cannot be stored: stop everyone, then report it
        syncing = undefined;
      },
    );
    return syncing;
  };
  const store = (record: BatchRecord, result: Exclude<RecordResult, { kind: 'abandoned' }>) => {
    const line =
      result.kind === 'created'
        ? { line: record.line, ok: true, ...result.data, fingerprint: record.fingerprint }
        : { line: record.line, ok: false, error: errorJson(result.error), fingerprint: record.fingerprint };
    sink.write(`${JSON.stringify(line)}\n`);
    unsynced.push(result.kind);
    syncing ??= settle();
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
      failure ??= error;
      halt.abort(error); // the others finish what they hold, then the error is reported
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    options.signal.removeEventListener('abort', onInterrupt);
    await feed.settle();
    while (syncing) await syncing;
  }
  if (failure ?? storeError) throw failure ?? storeError;
  return { counts, stoppedBy, interrupted: options.signal.aborted };
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
