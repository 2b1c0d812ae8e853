// The batch engine: N workers take records in input order and create their envelopes. Safety rules:
// - a request that may have reached the server is never re-sent: its record is `unknown`;
// - an intent is on disk before each request, and each result before the record counts as done;
// - one shared pacer (pacing/) paces every send; a 429 pauses every worker and is not counted
//   against --max-retries; every wait a record goes through (its turn, a shared pause, a backoff)
//   counts against --max-rate-wait from when it was ready to go, and past it the record fails;
// - what an answer means is src/api/outcome.ts's decision, what happens next src/batch/policy.ts's;
// - a 401 stops the whole batch, and so do the first answered records all refused the same way
//   (policy.ts's afterAnswer); an interrupt stops starting records and lets in-flight ones finish.
import type { ApiClient } from '../api/client.js';
import type { CreateOutcome } from '../api/outcome.js';
import { parseRateLimit } from '../api/rate-limit-headers.js';
import { type BackoffOptions, DEFAULT_BACKOFF } from '../api/retry.js';
import { type CliError, OUTCOME_UNKNOWN } from '../errors.js';
import { type FailureGroup, FailureGroups, messageWithoutRequestId, sameErrorKey } from './failure-groups.js';
import type { ResultLine } from './formats.js';
import { Pacer } from './pacing/pacer.js';
import type { LimiterState, RateLimiter } from './pacing/rate-limiter.js';
import {
  afterAnswer,
  BATCH_MAX_WAIT_MS,
  countRetry,
  DEFAULT_MAX_RATE_WAIT_MS,
  NEW_STREAK,
  type NextStep,
  nextStep,
  type RecordState,
  type RetryBounds,
  type SameFailureStreak,
} from './policy.js';
import { type BatchCounts, MAX_REPORTED_RECORDS, type ReportedRecord } from './report.js';
import type { SpooledRecord } from './spool.js';

/** A record ready to send: its input line, its fingerprint, its signatory's email and the validated JSON body. */
type BatchRecord = SpooledRecord;

/** Where the results go: standard output, or the --output file. */
export interface ResultSink {
  /** Stores a result (a file gathers the results of a turn into one write). Throws if it cannot. */
  write(result: ResultLine): void;
  /** Resolves once every result written so far is stored for good (synced, for a file). */
  flushed(): Promise<void>;
  /** No more results will come: store what is written now, without waiting for the next grouped sync. */
  finish?(): void;
  /** While the reader is behind, a promise to wait for before sending more; otherwise undefined. */
  ready?(): Promise<void> | undefined;
  /** Calls `listener` when it breaks on its own (stdout's reader went away, a write failed). */
  onBroken?(listener: (error: unknown) => void): void;
  /** Once broken: results written before that may never have reached the reader. */
  unread?(): ResultLine[];
}

/** What the batch needs of the API client: a send, and the classifier with the client's context. */
type BatchClient = Pick<ApiClient, 'sendCreate' | 'classify' | 'classifyFailure'>;

interface BatchJournal {
  /** Resolves once it is on disk that these records may be sent. */
  reserve(records: readonly BatchRecord[]): Promise<void>;
  /** Notes that the request for `record` is leaving: it may leave once this resolves, never if it rejects. */
  sent(record: BatchRecord): Promise<void>;
}

/** What to send, and how patiently. */
export interface SendPlan {
  /** The next records in input order (an empty array: no more). */
  records: () => Promise<BatchRecord[]>;
  /** Counts that the checks settled already (skipped, and unknown ones not sent again). */
  settled?: Partial<BatchCounts>;
  concurrency: number;
  /** Retries counted as attempts (a 503, a request that never left) a record may use (--max-retries). */
  maxRetries: number;
  /** How long one record may wait in all (turns, pauses, backoffs) from when it was ready (--max-rate-wait). */
  maxRateWaitMs?: number;
  /** A 503's Retry-After longer than this fails the record instead of waiting. */
  maxWaitMs?: number;
  backoff?: BackoffOptions;
  random?: () => number;
  /**
   * Stop sending once this many answered records, the first of the run, were all refused with the
   * same error (policy.ts's afterAnswer); undefined: never (--keep-going).
   */
  stopAfterSameFailures?: number | undefined;
}

/**
 * What the engine decided about a record that ends it, with its figures, for the command to word
 * (the engine names no flag, and says nothing of what to run next):
 * - `unknown_outcome`: an answer after which the envelope may exist (a 500, a 2xx that is not an
 *   envelope): the record is never sent again by itself;
 * - `turn_expired`: the record waited `waitedMs` for its turn and would wait past `budgetMs`
 *   (`last`: the latest error it met, if any);
 * - `rate_wait_exceeded`: the API asks for `leftMs` more, which would take it past `budgetMs`.
 */
export type RecordFailure =
  | { kind: 'unknown_outcome'; error: CliError }
  | { kind: 'turn_expired'; waitedMs: number; budgetMs: number; last: CliError | undefined }
  | { kind: 'rate_wait_exceeded'; waitedMs: number; leftMs: number; budgetMs: number; error: CliError };

/** What a run works with. */
export interface BatchPorts {
  client: BatchClient;
  sink: ResultSink;
  journal?: BatchJournal | undefined;
  /** The shared rate limiter (made with --rate's ceiling): every send waits for its turn there. */
  pacer: RateLimiter;
  /**
   * The run's one clock, in milliseconds since the epoch: pacing, waits and the reading of answers
   * (Retry-After dates, resets). Real time: the pacer's waits are real.
   */
  clock: () => number;
  /** Aborted on Ctrl-C: no new record starts; in-flight ones finish. */
  signal: AbortSignal;
  /**
   * Whether the run still holds its output (--output's lock) at this moment: asked before each
   * request leaves, and answered at once while the lock was renewed a moment ago. False: the request
   * does not leave, and no new record starts (the command aborts `signal` then, and says why).
   */
  held?: (() => boolean | Promise<boolean>) | undefined;
  /** Aborted on a second Ctrl-C: requests in flight are abandoned too (the journal keeps them). */
  abandon?: AbortSignal | undefined;
  /** Told what happens as it happens. */
  events?: ((event: BatchEvent) => void) | undefined;
  /** The error a record ends with, for what the engine decided about it: the command words it. */
  recordError: (failure: RecordFailure) => CliError;
}

/** What a run tells as it goes. */
export type BatchEvent =
  /** Records settled: a result stored (synced) for each. */
  | { kind: 'progress'; counts: BatchCounts }
  /** A record is sent again after `waitMs`. */
  | { kind: 'retry'; line: number; status: number | null; waitMs: number }
  /** The run starts stopping (Ctrl-C), with the requests still in flight. */
  | { kind: 'stopping'; inFlight: number };

/** What a run came to. */
export interface RunReport {
  counts: BatchCounts;
  /** How long the run took, on its clock. */
  elapsedMs: number;
  /** Set when a 401 stopped the batch. */
  stoppedBy: CliError | undefined;
  /** Set when the first answered records all failed with this same error: the run stopped sending. */
  sameFailure: { error: CliError; count: number } | undefined;
  interrupted: boolean;
  /** The rate limiter at the end: 429s met, time waited for the API. */
  limits: LimiterState;
  /** Set when the results could not be stored (closed pipe, full disk): the run stopped. */
  outputError: unknown;
  /**
   * Results of envelopes created (or maybe created) that could not be stored or may not have
   * reached the reader.
   */
  unwritten: ResultLine[];
  /** Requests abandoned in flight by a second Ctrl-C: their outcome is unknown (the journal has them). */
  abandoned: number;
  /** Failed and unknown records (the first MAX_REPORTED_RECORDS), and how many there were. */
  records: ReportedRecord[];
  recordsSeen: number;
  /** Failed and unknown records by error (failure-groups.ts), and how many had yet other errors. */
  groups: FailureGroup[];
  otherFailures: number;
}

/** What a record came to: its outcome when created, else its error as stored. */
type RecordResult =
  | Extract<CreateOutcome, { kind: 'created' }>
  | { kind: 'failed' | 'unknown'; error: CliError };

/** The reason the run's own stop signal gives once every worker is done. */
const RUN_OVER = 'the batch is over';

type RetryOutcome = Extract<CreateOutcome, { kind: 'retry' }>;

/** The record was not finished: the run stopped before it was sent, or while it was in flight. */
const ABANDONED = Symbol('abandoned');
type Abandoned = typeof ABANDONED;

/** One worker's record in progress (one object per worker, reused for each of its records). */
interface WorkerState extends RecordState {
  /** The pause every send waits for after the latest answer (a 429, a 503 that said when). */
  pauseMs: number | undefined;
  /** The latest error met, for the message of a record that waited too long. */
  last: CliError | undefined;
  /** Whether the latest outcome came from an answer of the API (not a network error). */
  answered: boolean;
}

function errorJson(error: CliError) {
  return {
    code: error.code,
    message: error.message,
    status: error.status,
    ...(error.details.length ? { details: error.details } : {}),
    ...(error.hint ? { hint: error.hint } : {}),
  };
}

/** Sends the plan's records through the ports; resolves with what the run came to. */
export function run(plan: SendPlan, ports: BatchPorts): Promise<RunReport> {
  return new BatchRun(plan, ports).run();
}

/**
 * One run: the workers, what they share (the pacer, the counts, the results not yet synced), and
 * how the run ends. Each worker takes a record and goes through turn, note, send, classify and next
 * step (#send) until the record has a result to store.
 */
class BatchRun {
  readonly #client: BatchClient;
  readonly #sink: ResultSink;
  readonly #journal: BatchJournal | undefined;
  readonly #plan: SendPlan;
  readonly #ports: BatchPorts;
  readonly #clock: () => number;
  readonly #started: number;
  readonly #bounds: RetryBounds;
  readonly #counts: BatchCounts;
  readonly #halt = new AbortController();
  readonly #limiter: RateLimiter;
  readonly #pacer: Pacer;
  readonly #feed: Feeder;
  #stoppedBy: CliError | undefined;
  #storeError: unknown;
  #failure: unknown;
  readonly #unwritten: ResultLine[] = [];
  readonly #reported: ReportedRecord[] = [];
  readonly #groups = new FailureGroups();
  #streak: SameFailureStreak = NEW_STREAK;
  #sameFailure: RunReport['sameFailure'];
  #abandoned = 0;
  #recordsSeen = 0;
  /** Kinds of the results written and not yet covered by a sync. */
  readonly #unsynced: RecordResult['kind'][] = [];
  #syncing: Promise<void> | undefined;

  constructor(plan: SendPlan, ports: BatchPorts) {
    const { journal } = ports;
    this.#client = ports.client;
    this.#sink = ports.sink;
    this.#journal = journal;
    this.#plan = plan;
    this.#ports = ports;
    this.#clock = ports.clock;
    this.#started = ports.clock();
    this.#bounds = {
      maxRetries: plan.maxRetries,
      maxRateLimited: Number.POSITIVE_INFINITY,
      maxRateWaitMs: plan.maxRateWaitMs ?? DEFAULT_MAX_RATE_WAIT_MS,
      maxWaitMs: plan.maxWaitMs ?? BATCH_MAX_WAIT_MS,
      backoff: plan.backoff ?? DEFAULT_BACKOFF,
      random: plan.random,
    };
    this.#counts = { created: 0, failed: 0, unknown: 0, skipped: 0, ...plan.settled };
    this.#limiter = ports.pacer;
    this.#pacer = new Pacer(this.#limiter, this.#clock, this.#halt.signal);
    // Reservations are made a few dozen records ahead of the workers, so that one sync covers many
    // records and is off each request's path. After a system crash or power cut (not after a mere
    // kill), reserved records that never left count as unknown: never a duplicate, at worst a few
    // records to check by hand.
    this.#feed = new Feeder(
      plan.records,
      journal ? (records) => journal.reserve(records) : undefined,
      journal ? Math.min(256, Math.max(32, 4 * plan.concurrency)) : 256,
    );
  }

  async run(): Promise<RunReport> {
    const { signal } = this.#ports;
    this.#sink.onBroken?.((error) => this.#outputBroke(error));
    const onInterrupt = () => this.#interrupt();
    if (signal.aborted) onInterrupt();
    else signal.addEventListener('abort', onInterrupt, { once: true });
    try {
      await Promise.all(Array.from({ length: this.#plan.concurrency }, () => this.#work()));
    } finally {
      // The run is over: whatever the pacer still holds (a timer, a sleep) is let go, so that
      // nothing of the run keeps the process alive.
      this.#halt.abort(this.#halt.signal.aborted ? this.#halt.signal.reason : RUN_OVER);
      signal.removeEventListener('abort', onInterrupt);
      await this.#feed.settle();
      this.#sink.finish?.();
      while (this.#syncing) await this.#syncing;
    }
    if (this.#failure !== undefined) throw this.#failure;
    return this.#outcome();
  }

  #interrupt(): void {
    if (!this.#halt.signal.aborted)
      this.#ports.events?.({ kind: 'stopping', inFlight: this.#limiter.inFlight });
    this.#halt.abort(this.#ports.signal.reason);
  }

  /** The results cannot be stored any more: no new record starts; those in flight finish. */
  #outputBroke(error: unknown): void {
    this.#storeError ??= error;
    this.#halt.abort(error);
  }

  async #work(): Promise<void> {
    const state: WorkerState = {
      attempts: 0,
      rateLimited: 0,
      readyAt: 0,
      pauseMs: undefined,
      last: undefined,
      answered: false,
    };
    try {
      while (!this.#halt.signal.aborted) {
        const behind = this.#sink.ready?.();
        if (behind) await behind; // results are not piling up in memory while their reader is slow
        const record = await this.#feed.next();
        if (!record || this.#halt.signal.aborted) return;
        state.attempts = 0;
        state.rateLimited = 0;
        state.last = undefined;
        state.readyAt = this.#clock();
        const result = await this.#send(record, state);
        if (result !== ABANDONED) this.#store(record, result);
      }
    } catch (error) {
      if (isOutputError(error)) this.#outputBroke(error);
      else {
        this.#failure ??= error;
        this.#halt.abort(error); // the others finish what they hold, then the error is reported
      }
    }
  }

  /** One record, until it has a result: its turn, the journal's note, the request, its outcome, the next step. */
  async #send(record: BatchRecord, state: WorkerState): Promise<RecordResult | Abandoned> {
    const deadline = state.readyAt + this.#bounds.maxRateWaitMs;
    for (;;) {
      const ticket = this.#pacer.turn(deadline);
      const turn = typeof ticket === 'object' ? await ticket : ticket;
      if (turn === false) return ABANDONED;
      if (turn === 'expired') return this.#waitedTooLong(state);
      // At once (no await) while the output's lock was renewed a moment ago and there is no journal.
      const leaving = this.#mayLeave(record);
      if (leaving !== true && !(await leaving)) return ABANDONED;
      let outcome: CreateOutcome | Abandoned;
      try {
        const response = await this.#client.sendCreate(record.body, this.#ports.abandon);
        outcome = this.#answered(response, turn, state);
      } catch (error) {
        outcome = this.#noAnswer(error, state);
      }
      if (outcome === ABANDONED) return ABANDONED;
      const now = this.#clock();
      const step = nextStep(outcome, state, this.#bounds, { now, pauseMs: state.pauseMs });
      if (step.kind !== 'retry') {
        // A record's last answer, not each retried one, counts toward a stop for the same failure.
        return this.#result(outcome, step, state.answered);
      }
      // The policy retries only an outcome that is a retry.
      const waited = await this.#wait(record, { outcome: outcome as RetryOutcome, step }, state, deadline);
      if (waited !== true) return waited;
    }
  }

  /**
   * Before a request leaves: the output is still the run's (its lock held at this moment), the
   * journal notes it, and the lock is still held after the note. The first look keeps a run that
   * knows it lost its output from noting a request it will not send (a resume would call it
   * unknown); the second closes the gap of a run stopped between the first look and the note: a
   * run that took the output over meanwhile did not see the note, so the request must not leave,
   * and only a request noted before a look that found the lock held ever leaves (a run that takes
   * the output over after that look reads the note and never sends the record again).
   * False: it does not leave; a lock no longer held also starts no new record.
   */
  #mayLeave(record: BatchRecord): true | Promise<boolean> {
    const held = this.#ports.held?.() ?? true;
    if (held === true && !this.#journal) return true;
    return this.#noteLeaving(record, held);
  }

  async #noteLeaving(record: BatchRecord, held: boolean | Promise<boolean>): Promise<boolean> {
    if (held !== true && !(await held)) return this.#lost();
    if (!this.#journal) return true;
    try {
      await this.#journal.sent(record);
    } catch (error) {
      // The journal could not note it (a full disk): so it is not sent.
      this.#pacer.lost();
      this.#outputBroke(error);
      return false;
    }
    // Looked at in place, not through a helper of its own: an async call a record is garbage a record.
    const after = this.#ports.held?.() ?? true;
    return after === true || (await after) || this.#lost();
  }

  /** The output's lock is no longer held (lockHeld's answer): no new record starts. */
  #lost(): false {
    this.#pacer.lost();
    if (!this.#halt.signal.aborted) this.#halt.abort(new Error('the output is no longer this run’s'));
    return false;
  }

  /** Tells the pacer of an answer, and classifies it with the client's context. */
  #answered(response: Awaited<ReturnType<BatchClient['sendCreate']>>, sent: number, state: WorkerState) {
    const now = this.#clock();
    state.pauseMs = this.#pacer.answered(now, response.status, parseRateLimit(response.headers, now), sent);
    state.answered = true;
    return this.#client.classify(response, now);
  }

  /** A request that got no answer. */
  #noAnswer(error: unknown, state: WorkerState): CreateOutcome | Abandoned {
    this.#pacer.lost();
    state.pauseMs = undefined;
    state.answered = false;
    if (this.#ports.abandon?.aborted) {
      this.#abandoned++;
      return ABANDONED; // the journal says it left: a resume reports it as unknown
    }
    return this.#client.classifyFailure(error);
  }

  /** The first answered records all refused the same way: no new record starts (policy.ts). */
  #watchSameFailure(outcome: CreateOutcome): void {
    const { streak, stop } = afterAnswer(
      this.#streak,
      outcome,
      sameErrorKey,
      this.#plan.stopAfterSameFailures,
    );
    this.#streak = streak;
    if (stop && outcome.kind === 'rejected' && !this.#halt.signal.aborted) {
      this.#sameFailure = { error: outcome.error, count: streak.count };
      this.#halt.abort(outcome.error);
    }
  }

  /** The result a step other than a retry stores. `answered`: the outcome is an answer of the API. */
  #result(
    outcome: CreateOutcome,
    step: Exclude<NextStep, { kind: 'retry' }>,
    answered: boolean,
  ): RecordResult {
    if (answered) this.#watchSameFailure(outcome);
    if (outcome.kind === 'created') return outcome;
    const { error } = outcome;
    if (step.kind === 'stop' && !this.#stoppedBy) {
      this.#stoppedBy = error;
      this.#halt.abort(error);
    }
    if (step.kind === 'expired') {
      const expired =
        outcome.kind === 'retry' && outcome.why === 'rate_limited'
          ? this.#ports.recordError({
              kind: 'rate_wait_exceeded',
              waitedMs: step.waitedMs,
              leftMs: step.leftMs,
              budgetMs: this.#bounds.maxRateWaitMs,
              error,
            })
          : error;
      return { kind: 'failed', error: expired };
    }
    if (step.kind === 'store' && step.result === 'unknown') {
      // A connection that broke after sending says so itself; any other answer is told as unknown.
      const unknown =
        error.code === OUTCOME_UNKNOWN ? error : this.#ports.recordError({ kind: 'unknown_outcome', error });
      return { kind: 'unknown', error: unknown };
    }
    return { kind: 'failed', error };
  }

  /**
   * Waits before the record is sent again: for its turn, when the pacer pauses every send (it asks
   * again at once), else a backoff of its own. True to go on; otherwise the record's end.
   */
  async #wait(
    record: BatchRecord,
    { outcome, step }: { outcome: RetryOutcome; step: Extract<NextStep, { kind: 'retry' }> },
    state: WorkerState,
    deadline: number,
  ): Promise<true | RecordResult | Abandoned> {
    countRetry(state, step);
    state.last = outcome.error;
    this.#ports.events?.({
      kind: 'retry',
      line: record.line,
      status: outcome.error.status,
      waitMs: step.waitMs,
    });
    if (step.shared) return true;
    const slept = await this.#pacer.sleep(step.waitMs, deadline);
    if (slept === true) return true;
    if (slept === 'expired') return this.#waitedTooLong(state);
    return this.#halt.signal.aborted ? ABANDONED : { kind: 'failed', error: outcome.error };
  }

  /** The record's wait would go past --max-rate-wait: it fails now. */
  #waitedTooLong(state: WorkerState): RecordResult {
    const waitedMs = Math.max(0, this.#clock() - state.readyAt);
    const error = this.#ports.recordError({
      kind: 'turn_expired',
      waitedMs,
      budgetMs: this.#bounds.maxRateWaitMs,
      last: state.last,
    });
    return { kind: 'failed', error };
  }

  /**
   * A worker's slot is free once the answer is in and its line written; the sync comes behind it,
   * covering many lines at once, and a record counts as done only then.
   */
  #settle(): Promise<void> {
    const covered = this.#unsynced.length;
    this.#syncing = this.#sink.flushed().then(
      () => {
        for (const kind of this.#unsynced.splice(0, covered)) this.#counts[kind]++;
        this.#ports.events?.({ kind: 'progress', counts: { ...this.#counts } });
        this.#syncing = this.#unsynced.length > 0 ? this.#settle() : undefined;
      },
      (error: unknown) => {
        this.#outputBroke(error); // the results cannot be stored: stop everyone, then report it
        this.#syncing = undefined;
      },
    );
    return this.#syncing;
  }

  #store(record: BatchRecord, result: RecordResult): void {
    const line = resultLine(record, result);
    if (result.kind !== 'created') this.#report(record, result);
    if (this.#storeError === undefined) {
      try {
        this.#sink.write(line);
        this.#unsynced.push(result.kind);
        this.#syncing ??= this.#settle();
        return;
      } catch (error) {
        this.#outputBroke(error);
      }
    }
    if (result.kind !== 'failed') this.#unwritten.push(line);
  }

  #report(record: BatchRecord, result: Exclude<RecordResult, { kind: 'created' }>): void {
    this.#recordsSeen++;
    const { error } = result;
    this.#groups.add(result.kind, record.line, error);
    if (this.#reported.length >= MAX_REPORTED_RECORDS) return;
    this.#reported.push({
      line: record.line,
      email: record.email,
      state: result.kind,
      // The request id differs from record to record and is in the results: the message has the room.
      message: messageWithoutRequestId(error),
    });
  }

  #outcome(): RunReport {
    if (this.#storeError !== undefined) {
      // Results the reader may not have got, then those never written; each envelope once.
      const seen = new Set<ResultLine>();
      const lost = [...(this.#sink.unread?.() ?? []), ...this.#unwritten].filter((result) => {
        if (seen.has(result) || !mayHaveEnvelope(result)) return false;
        seen.add(result);
        return true;
      });
      this.#unwritten.splice(0, this.#unwritten.length, ...lost);
    }
    const now = this.#clock();
    return {
      counts: this.#counts,
      elapsedMs: now - this.#started,
      stoppedBy: this.#stoppedBy,
      sameFailure: this.#sameFailure,
      interrupted: this.#ports.signal.aborted,
      limits: this.#limiter.state(now),
      outputError: this.#storeError,
      unwritten: this.#unwritten,
      abandoned: this.#abandoned,
      records: this.#reported,
      recordsSeen: this.#recordsSeen,
      groups: this.#groups.groups(),
      otherFailures: this.#groups.others(),
    };
  }
}

function resultLine(record: BatchRecord, result: RecordResult): ResultLine {
  if (result.kind === 'created') {
    return {
      line: record.line,
      ok: true,
      ...result.envelope,
      request_id: result.requestId,
      fingerprint: record.fingerprint,
    };
  }
  return {
    line: record.line,
    ok: false,
    error: errorJson(result.error),
    ...(result.error.requestId ? { request_id: result.error.requestId } : {}),
    fingerprint: record.fingerprint,
  };
}

/** A failure to write a file of the run (journal, results): the disk, not the program. */
function isOutputError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO' || code === 'EFBIG' || code === 'EPIPE';
}

/** A result of a created envelope, or of one that may exist. */
function mayHaveEnvelope(result: ResultLine): boolean {
  return result.ok || result.error.code === OUTCOME_UNKNOWN;
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
