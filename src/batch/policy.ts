// What happens next to a record once its request has an outcome (src/api/outcome.ts), decided once
// for the batch and for `envelope create` (a batch of one, with its own bounds). Pure: the time and
// any pause the rate limiter set come in as arguments, the randomness of backoff through `bounds`.
//
//   created, unknown          the result is stored
//   rejected                  stored as failed; a 401 also stops every record (the token is bad)
//   retry                     sent again after a wait, while the bounds allow:
//     rate_limited (429)      the wait counts as rate waiting, never as one of the record's retries
//                             (in a batch it is not this record's fault: every worker waits)
//     unavailable, not_sent   the wait counts as an attempt (--max-retries)
//   past a bound              stored as failed; `budget` says when it is --max-rate-wait
//
// Every wait counts against `maxRateWaitMs` from the moment the record was ready to go: a record
// whose next wait would end past it fails now, not after waiting for nothing.
//
// And for the whole batch: a 401 stops it (above), and so do the first 20 answered records all
// refused with the same error (afterAnswer), unless --keep-going.

import type { CreateOutcome } from '../api/outcome.js';
import { type BackoffOptions, retryDelay } from '../api/retry.js';
import { type CliError, NotAuthenticatedError } from '../errors.js';
import { PAUSE_FLOOR_MS } from './pacing/pause.js';

export { DEFAULT_MAX_RATE_WAIT_MS } from './defaults.js';

/** The longest single wait a batch takes for a 503 that says when; a longer one fails the record. */
export const BATCH_MAX_WAIT_MS = 120_000;

export interface RetryBounds {
  /** Retries counted as attempts: a 503, a request that never left (--max-retries). */
  maxRetries: number;
  /** How many 429s a record may meet and still be sent again (a batch: no bound but time). */
  maxRateLimited: number;
  /** How long a record may wait in all (turns, pauses, backoffs) from when it was ready (--max-rate-wait). */
  maxRateWaitMs: number;
  /** The longest single wait a 503 may ask for. */
  maxWaitMs: number;
  /**
   * The backoff of a retry the server gave no time for. Undefined: such a request is not sent again
   * (`create` waits only when the server says how long: a create is not idempotent).
   */
  backoff: BackoffOptions | undefined;
  random?: () => number;
}

/** Where a record stands: how many retries it used, and since when it waits to go. */
export interface RecordState {
  /** Retries counted as attempts so far. */
  attempts: number;
  /** 429s met so far. */
  rateLimited: number;
  /** When the record was ready to go, on the clock `now` is read from. */
  readyAt: number;
}

export type NextStep =
  | { kind: 'store'; result: 'created' | 'unknown' | 'failed' }
  /** Store it as failed, and send no other record: the token is refused. */
  | { kind: 'stop' }
  /**
   * Send it again after `waitMs`. `shared`: the wait is the rate limiter's pause, which every send
   * waits for already (the record just waits for its turn); otherwise a wait of its own.
   */
  | { kind: 'retry'; counts: 'attempt' | 'rate_wait'; waitMs: number; shared: boolean }
  /** Store it as failed: its next wait would end past --max-rate-wait (it waited `waitedMs` so far). */
  | { kind: 'expired'; waitedMs: number; leftMs: number };

const STORE_CREATED: NextStep = { kind: 'store', result: 'created' };
const STORE_UNKNOWN: NextStep = { kind: 'store', result: 'unknown' };
const STORE_FAILED: NextStep = { kind: 'store', result: 'failed' };
const STOP: NextStep = { kind: 'stop' };

/**
 * The next step for a record whose request came to `outcome` at `now`. `pauseMs`: how long the rate
 * limiter now pauses every send (a 429, or a 503 that said when), when it does.
 */
export function nextStep(
  outcome: CreateOutcome,
  state: RecordState,
  bounds: RetryBounds,
  { now, pauseMs }: { now: number; pauseMs?: number | undefined },
): NextStep {
  switch (outcome.kind) {
    case 'created':
      return STORE_CREATED;
    case 'unknown':
      return STORE_UNKNOWN;
    case 'rejected':
      return outcome.error instanceof NotAuthenticatedError ? STOP : STORE_FAILED;
    case 'retry':
      return retryStep(outcome, state, bounds, { now, pauseMs });
  }
}

function retryStep(
  outcome: Extract<CreateOutcome, { kind: 'retry' }>,
  state: RecordState,
  bounds: RetryBounds,
  { now, pauseMs }: { now: number; pauseMs: number | undefined },
): NextStep {
  const rateLimited = outcome.why === 'rate_limited';
  const used = rateLimited ? state.rateLimited >= bounds.maxRateLimited : state.attempts >= bounds.maxRetries;
  if (used) return STORE_FAILED;
  const said = pauseMs ?? outcome.afterMs;
  // Without a time from the server, only a bound with a backoff of its own sends it again.
  if (said === undefined && !bounds.backoff) return STORE_FAILED;
  // A 503 that asks for longer than a retry may wait: it is not worth holding the record.
  if (!rateLimited && said !== undefined && said > bounds.maxWaitMs) return STORE_FAILED;
  const shared = pauseMs !== undefined;
  const waitMs = ownWait(retryDelay(state.attempts, said, bounds.backoff, bounds.random), said, shared);
  const waitedMs = Math.max(0, now - state.readyAt);
  if (waitedMs + waitMs > bounds.maxRateWaitMs) return { kind: 'expired', waitedMs, leftMs: waitMs };
  return {
    kind: 'retry',
    counts: rateLimited ? 'rate_wait' : 'attempt',
    waitMs,
    shared,
  };
}

/**
 * A wait of the record's own that the server timed (a `create`, which has no shared pause) is at
 * least the pause floor: a `Retry-After: 0` or a reset gone by is never a resend in a tight loop.
 * A shared pause has its floor already (the limiter's pause), and a backoff its own growth.
 */
function ownWait(waitMs: number, said: number | undefined, shared: boolean): number {
  return said !== undefined && !shared ? Math.max(PAUSE_FLOOR_MS, waitMs) : waitMs;
}

/** Counts the retry `step` in `state` (the caller does it once it goes ahead with the retry). */
export function countRetry(state: RecordState, step: Extract<NextStep, { kind: 'retry' }>): void {
  if (step.counts === 'attempt') state.attempts++;
  else state.rateLimited++;
}

/**
 * `envelope create`'s bounds: a batch of one that waits only when the server says how long, for at
 * most a minute in all, and sends again at most 3 times for 429s and 3 times for 503s.
 */
export const CREATE_BOUNDS: RetryBounds = {
  maxRetries: 3,
  maxRateLimited: 3,
  maxRateWaitMs: 60_000,
  maxWaitMs: 60_000,
  backoff: undefined,
};

/** How many answered records failing the same way stop a batch (unless --keep-going). */
export const SAME_FAILURE_STOP_AFTER = 20;

/**
 * Whether the first answered records of a batch all failed the same way so far: `count` records
 * with the error `key`; `broken` once one was answered otherwise. Records that got no answer (a
 * network error, a wait past --max-rate-wait) are not counted either way.
 */
export interface SameFailureStreak {
  key: string | undefined;
  count: number;
  broken: boolean;
}

export const NEW_STREAK: SameFailureStreak = { key: undefined, count: 0, broken: false };

/**
 * The streak after a record whose request was answered came to `outcome`, and whether the batch
 * stops sending now: when the first `stopAfter` answered records (undefined: never, --keep-going)
 * were all refused with the same error that sending again cannot change (same status and message:
 * a wrong template fails every record with the same 422). A created envelope, another error, or an
 * answer that may be retried ends the streak for the run. `key` is failure-groups.ts's sameErrorKey.
 */
export function afterAnswer(
  streak: SameFailureStreak,
  outcome: CreateOutcome,
  key: (error: CliError) => string,
  stopAfter: number | undefined,
): { streak: SameFailureStreak; stop: boolean } {
  if (streak.broken || stopAfter === undefined) return { streak, stop: false };
  if (outcome.kind !== 'rejected' || (streak.key !== undefined && key(outcome.error) !== streak.key)) {
    return { streak: { ...streak, broken: true }, stop: false };
  }
  const next = { key: streak.key ?? key(outcome.error), count: streak.count + 1, broken: false };
  return { streak: next, stop: next.count === stopAfter };
}
