// The next step of a record (src/batch/policy.ts) as a table: outcome × state × bounds → step. The
// batch's bounds come from its flags; `create`'s are a batch of one's with its own limits.
import { describe, expect, it } from 'vitest';
import type { CreateOutcome, RetryReason } from '../../src/api/outcome.js';
import {
  BATCH_MAX_WAIT_MS,
  CREATE_BOUNDS,
  countRetry,
  type NextStep,
  nextStep,
  type RecordState,
  type RetryBounds,
} from '../../src/batch/policy.js';
import {
  ApiRejectedError,
  type CliError,
  NetworkError,
  NotAuthenticatedError,
  RateLimitedError,
  ServerError,
} from '../../src/errors.js';

const BATCH: RetryBounds = {
  maxRetries: 5,
  maxRateLimited: Number.POSITIVE_INFINITY,
  maxRateWaitMs: 60_000,
  maxWaitMs: BATCH_MAX_WAIT_MS,
  backoff: { baseMs: 250, capMs: 30_000 },
  random: () => 0.5,
};

const ENVELOPE = {
  envelope_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  signing_url: 'https://sign.example.com/s/x',
  status: 'ready' as const,
  created_at: '2026-11-22T10:00:00.000Z',
  expires_at: '2026-12-22T10:00:00.000Z',
};

const created: CreateOutcome = { kind: 'created', envelope: ENVELOPE, requestId: 'r' };
const rejected = (error: CliError = new ApiRejectedError('422')): CreateOutcome => ({
  kind: 'rejected',
  error,
});
const unknown: CreateOutcome = { kind: 'unknown', error: new ServerError('500') };
const retry = (why: RetryReason, afterMs?: number): CreateOutcome => ({
  kind: 'retry',
  why,
  afterMs,
  error:
    why === 'rate_limited'
      ? new RateLimitedError('429')
      : why === 'not_sent'
        ? new NetworkError('x', false)
        : new ServerError('503'),
});
const state = (attempts = 0, rateLimited = 0, readyAt = 0): RecordState => ({
  attempts,
  rateLimited,
  readyAt,
});

const STORE = (result: 'created' | 'unknown' | 'failed'): NextStep => ({ kind: 'store', result });
const RETRY = (counts: 'attempt' | 'rate_wait', waitMs: number, shared: boolean): NextStep => ({
  kind: 'retry',
  counts,
  waitMs,
  shared,
});

type Row = [
  name: string,
  outcome: CreateOutcome,
  state: RecordState,
  bounds: RetryBounds,
  now: number,
  pauseMs: number | undefined,
  expected: NextStep,
];

const rows: Row[] = [
  ['created → stored', created, state(), BATCH, 0, undefined, STORE('created')],
  ['unknown → stored, never sent again', unknown, state(), BATCH, 0, undefined, STORE('unknown')],
  ['rejected → stored as failed', rejected(), state(), BATCH, 0, undefined, STORE('failed')],
  [
    '401 → stop every record',
    rejected(new NotAuthenticatedError('401')),
    state(),
    BATCH,
    0,
    undefined,
    { kind: 'stop' },
  ],
  // 429 in a batch: the pacer's pause, shared, counted as rate waiting, never as an attempt.
  [
    'batch 429: waits the pause with everyone',
    retry('rate_limited', 0),
    state(),
    BATCH,
    1000,
    1000,
    RETRY('rate_wait', 1000, true),
  ],
  [
    'batch 429 after all retries used: still waits (429s are not retries)',
    retry('rate_limited'),
    state(5, 40),
    BATCH,
    1000,
    2000,
    RETRY('rate_wait', 2000, true),
  ],
  [
    'batch 429 whose pause ends past --max-rate-wait: fails now',
    retry('rate_limited', 3_600_000),
    state(),
    BATCH,
    0,
    3_600_000,
    { kind: 'expired', waitedMs: 0, leftMs: 3_600_000 },
  ],
  [
    'batch 429: time spent before counts from when the record was ready',
    retry('rate_limited'),
    state(0, 1, 1000),
    BATCH,
    51_000,
    10_001,
    { kind: 'expired', waitedMs: 50_000, leftMs: 10_001 },
  ],
  [
    'batch 429: exactly at the budget still waits',
    retry('rate_limited'),
    state(0, 1, 1000),
    BATCH,
    51_000,
    10_000,
    RETRY('rate_wait', 10_000, true),
  ],
  // 503 and requests that never left: attempts.
  [
    'batch 503 that says when: the shared pause, an attempt',
    retry('unavailable', 2000),
    state(),
    BATCH,
    0,
    2000,
    RETRY('attempt', 2000, true),
  ],
  [
    'batch 503 past the longest wait: fails',
    retry('unavailable', 200_000),
    state(),
    BATCH,
    0,
    200_000,
    STORE('failed'),
  ],
  [
    'batch 503 without a time: a backoff of its own',
    retry('unavailable'),
    state(2),
    BATCH,
    0,
    undefined,
    RETRY('attempt', 500, false),
  ],
  [
    'batch never sent: a backoff of its own',
    retry('not_sent'),
    state(),
    BATCH,
    0,
    undefined,
    RETRY('attempt', 125, false),
  ],
  ['batch 503 with every retry used: fails', retry('unavailable', 0), state(5), BATCH, 0, 0, STORE('failed')],
  [
    'batch backoff past --max-rate-wait: fails now',
    retry('not_sent'),
    state(1, 0, 0),
    BATCH,
    59_900,
    undefined,
    { kind: 'expired', waitedMs: 59_900, leftMs: 250 },
  ],
  // create: a batch of one that waits only when the server says how long.
  [
    'create 429 Retry-After 0: sent again after the 1 s floor, never in a tight loop',
    retry('rate_limited', 0),
    state(),
    CREATE_BOUNDS,
    0,
    undefined,
    RETRY('rate_wait', 1000, false),
  ],
  [
    'create 429 after 3 of them: fails',
    retry('rate_limited', 0),
    state(0, 3),
    CREATE_BOUNDS,
    0,
    undefined,
    STORE('failed'),
  ],
  [
    'create 429 without a time: fails',
    retry('rate_limited'),
    state(),
    CREATE_BOUNDS,
    0,
    undefined,
    STORE('failed'),
  ],
  [
    'create 429 Retry-After past a minute: fails now',
    retry('rate_limited', 3_600_000),
    state(),
    CREATE_BOUNDS,
    0,
    undefined,
    { kind: 'expired', waitedMs: 0, leftMs: 3_600_000 },
  ],
  [
    'create 503 Retry-After 0: sent again after the 1 s floor',
    retry('unavailable', 0),
    state(0, 1),
    CREATE_BOUNDS,
    0,
    undefined,
    RETRY('attempt', 1000, false),
  ],
  [
    'create 503 without a time: fails (a create is not idempotent)',
    retry('unavailable'),
    state(),
    CREATE_BOUNDS,
    0,
    undefined,
    STORE('failed'),
  ],
  [
    'create never sent: fails, not retried',
    retry('not_sent'),
    state(),
    CREATE_BOUNDS,
    0,
    undefined,
    STORE('failed'),
  ],
  [
    'create 503 past a minute: fails',
    retry('unavailable', 61_000),
    state(),
    CREATE_BOUNDS,
    0,
    undefined,
    STORE('failed'),
  ],
];

describe('nextStep: outcome × state × bounds → what happens to the record', () => {
  it.each(rows)('%s', (_name, outcome, recordState, bounds, now, pauseMs, expected) => {
    expect(nextStep(outcome, recordState, bounds, { now, pauseMs })).toEqual(expected);
  });

  it('counts a retry where the step says: an attempt, or rate waiting', () => {
    const record = state();
    countRetry(record, { kind: 'retry', counts: 'attempt', waitMs: 0, shared: false });
    countRetry(record, { kind: 'retry', counts: 'rate_wait', waitMs: 0, shared: true });
    countRetry(record, { kind: 'retry', counts: 'rate_wait', waitMs: 0, shared: true });
    expect(record).toEqual({ attempts: 1, rateLimited: 2, readyAt: 0 });
  });

  it('a record met by 429s forever is stored as failed once its waits pass the budget, however small each is', () => {
    const record = state();
    let now = 0;
    let steps = 0;
    for (;;) {
      const step = nextStep(retry('rate_limited', 0), record, BATCH, { now, pauseMs: 1000 });
      if (step.kind !== 'retry') {
        expect(step).toEqual({ kind: 'expired', waitedMs: 60_000, leftMs: 1000 });
        break;
      }
      countRetry(record, step);
      now += step.waitMs;
      steps++;
    }
    expect(steps).toBe(60);
  });
});
