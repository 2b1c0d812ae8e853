// Each regime of the rate limiter (src/batch/pacing/) on its own, with `now` passed in, and the
// invariants of their composition on the virtual clock: the floor, a quota of zero, hostile times.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimit, type RateLimitInfo } from '../../src/api/rate-limit-headers.js';
import { AdaptivePace } from '../../src/batch/pacing/adaptive.js';
import { PAUSE_FLOOR_MS, Pause, pauseFor429, RESET_MARGIN_MS } from '../../src/batch/pacing/pause.js';
import { Quota } from '../../src/batch/pacing/quota.js';
import { RateLimiter } from '../../src/batch/pacing/rate-limiter.js';
import { SlowStart } from '../../src/batch/pacing/slow-start.js';
import { simulate } from '../helpers/limiter-sim.js';

const T = 1_700_000_000_000;

describe('pause', () => {
  it('counts overlapping pauses once, and a pause after the end of another as its own', () => {
    const pause = new Pause();
    pause.extend(T, T + 1000);
    pause.extend(T + 500, T + 2000);
    pause.extend(T + 600, T + 1500); // shorter: no change
    expect(pause.until).toBe(T + 2000);
    expect(pause.waitedMs(T + 1000)).toBe(1000);
    expect(pause.waitedMs(T + 5000)).toBe(2000);
    pause.extend(T + 5000, T + 5300);
    expect(pause.waitedMs(T + 9000)).toBe(2300);
  });

  const base = {
    now: T,
    knownReset: undefined,
    again: false,
    in429Row: 1,
    backoffMs: 1000,
    backoffCapMs: 60_000,
  };

  it('Retry-After: 0, or a date gone by, still pauses the floor', () => {
    expect(pauseFor429({ ...base, info: { retryAfterMs: 0 } })).toBe(PAUSE_FLOOR_MS);
    expect(pauseFor429({ ...base, info: { retryAfterMs: 0, resetAt: T - 5000, remaining: 0 } })).toBe(
      PAUSE_FLOOR_MS,
    );
    expect(pauseFor429({ ...base, info: { retryAfterMs: 0 }, again: true, in429Row: 9 })).toBe(
      PAUSE_FLOOR_MS,
    );
  });

  it('a reset already past, without Retry-After, backs off (doubling), never 0', () => {
    expect(pauseFor429({ ...base, info: { resetAt: T - 1, remaining: 0 } })).toBe(1000);
    expect(pauseFor429({ ...base, info: { resetAt: T - 1, remaining: 0 }, in429Row: 3, again: true })).toBe(
      4000,
    );
  });

  it('a reset just ahead is waited for as is the first time, and at least the floor on a 429 after that pause', () => {
    expect(pauseFor429({ ...base, info: { resetAt: T + 50 } })).toBe(50 + RESET_MARGIN_MS);
    expect(pauseFor429({ ...base, info: { resetAt: T + 50 }, again: true, in429Row: 2 })).toBe(
      PAUSE_FLOOR_MS,
    );
    // The window's edge: a reset that went by as the answer came, under a Retry-After of 1 s.
    const edge = { retryAfterMs: 1000, resetAt: T - 10 };
    expect(pauseFor429({ ...base, info: edge })).toBe(RESET_MARGIN_MS);
    expect(pauseFor429({ ...base, info: edge, again: true, in429Row: 2 })).toBe(PAUSE_FLOOR_MS);
  });

  it('property: whatever the server says, a 429 after a pause ended pauses at least the floor, and every pause is a finite number', () => {
    const info = fc.record(
      {
        retryAfterMs: fc.oneof(fc.constant(0), fc.nat(5000), fc.constant(999_999_999_999_000)),
        resetAt: fc.integer({ min: T - 10_000, max: T + 10_000 }),
        remaining: fc.nat(5),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(info, fc.integer({ min: 2, max: 30 }), (told: RateLimitInfo, in429Row) => {
        const wait = pauseFor429({ ...base, info: told, again: true, in429Row });
        expect(wait).toBeGreaterThanOrEqual(PAUSE_FLOOR_MS);
        expect(Number.isFinite(wait)).toBe(true);
      }),
    );
  });
});

describe('slow start', () => {
  it('rounds of 1, 2, 4, 8, 16, then half as many again up to the concurrency', () => {
    const start = new SlowStart(64);
    const sizes: number[] = [];
    while (true) {
      let size = 0;
      while (!start.holding && size < 100) {
        start.sent();
        size++;
      }
      sizes.push(size);
      if (size >= 100) break;
      for (let i = 0; i < size; i++) start.answered(false);
    }
    expect(sizes).toEqual([1, 2, 4, 8, 16, 24, 36, 54, 64, 100]);
  });

  it('ends at the first answer that tells a quota or is a 429', () => {
    const start = new SlowStart(8);
    start.sent();
    expect(start.holding).toBe(true);
    start.answered(true);
    expect(start.holding).toBe(false);
    for (let i = 0; i < 50; i++) start.sent();
    expect(start.holding).toBe(false);
  });
});

describe('adaptive pace', () => {
  it('paces at nothing before the first 429, then at what got through, probing up 1% a second', () => {
    const pace = new AdaptivePace(T);
    expect(pace.spacing(T + 5000)).toBe(0);
    for (let i = 0; i < 100; i++) pace.accepted();
    // 100 accepted in 1 s, then a 429 that pauses 1 s: at most 100 in 2 s, 97% of it paced at.
    pace.pauseBegins(1000);
    pace.rateLimited(T + 1000, 1000, false);
    const spacing = pace.spacing(T + 1000);
    expect(spacing).toBeCloseTo(1000 / (50 * 0.97), 6);
    expect(pace.spacing(T + 11_000)).toBeLessThan(spacing);
  });

  it('the 429s of one pause teach once', () => {
    const pace = new AdaptivePace(T);
    for (let i = 0; i < 100; i++) pace.accepted();
    pace.rateLimited(T + 1000, 1000, false);
    const spacing = pace.spacing(T + 1000);
    pace.rateLimited(T + 1001, 1000, true);
    pace.rateLimited(T + 1002, 1000, true);
    expect(pace.spacing(T + 1000)).toBe(spacing);
  });
});

describe('quota', () => {
  const known = { inFlight: 0, sentTotal: 1 };

  it('spreads what is left of the quota over what is left of the window', () => {
    const quota = new Quota();
    quota.sent(T, 1);
    quota.learn(T + 10, { limit: 10, remaining: 4, resetAt: T + 1000 }, 1, known);
    // 4 left, 990 ms to the reset, from a send due at T + 10: one every 198 ms.
    expect(
      quota.due(T + 10, { due: Number.NEGATIVE_INFINITY, last: T + 10, paced: 0, inFlight: 0 }),
    ).toBeCloseTo(T + 10 + 990 / 5, 6);
  });

  it('none left: the next send waits for the window to end, and past it for an answer while the limit is in flight', () => {
    const quota = new Quota();
    quota.sent(T, 1);
    quota.learn(T + 10, { limit: 1, remaining: 0, resetAt: T + 1000 }, 1, known);
    expect(quota.due(T + 10, { due: Number.NEGATIVE_INFINITY, last: T, paced: 0, inFlight: 0 })).toBe(
      T + 1000 + RESET_MARGIN_MS,
    );
    expect(quota.due(T + 1100, { due: Number.NEGATIVE_INFINITY, last: T, paced: 0, inFlight: 1 })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it('a limit of zero spaces nothing by it (no division by zero)', () => {
    const quota = new Quota();
    quota.sent(T, 1);
    quota.learn(T + 10, { limit: 0, windowMs: 1000 }, 1, known);
    expect(quota.due(T + 10, { due: T, last: T, paced: 0, inFlight: 0 })).toBe(T);
  });
});

describe('composed: the invariants', () => {
  it('a quota of zero (X-RateLimit-Limit: 0, or RateLimit-Limit: 0 with a reset): a pause until the reset, then one request at a time a floor apart, never "never"', () => {
    for (const headers of [
      { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' },
      { 'ratelimit-limit': '0', 'ratelimit-remaining': '0', 'ratelimit-reset': '2' },
    ]) {
      const limiter = new RateLimiter(T, { concurrency: 8 });
      let now = T;
      const sends: number[] = [];
      for (let i = 0; i < 5; i++) {
        now = limiter.nextAt(now);
        expect(Number.isFinite(now)).toBe(true);
        const sent = limiter.sent(now);
        sends.push(now);
        // Every send holds the next until its answer: one at a time.
        expect(limiter.nextAt(now)).toBe(Number.POSITIVE_INFINITY);
        now += 20;
        limiter.answered(now, 429, parseRateLimit(headers, now), sent);
      }
      expect(sends[1] as number).toBeGreaterThanOrEqual(T + 2000);
      for (let i = 1; i < sends.length; i++) {
        expect((sends[i] as number) - (sends[i - 1] as number)).toBeGreaterThanOrEqual(PAUSE_FLOOR_MS);
      }
    }
  });

  it('a server that answers every request with 429 and Retry-After: 0: the batch sends a round a second at most, not in a tight loop', () => {
    const concurrency = 8;
    const limiter = new RateLimiter(T, { concurrency });
    // Workers on a virtual clock: each sends at its turn and is answered 5 ms later.
    let now = T;
    let sends = 0;
    const answers: { at: number; sent: number }[] = [];
    let ready = concurrency;
    while (now < T + 60_000 && sends < 100_000) {
      while (ready > 0 && limiter.nextAt(now) <= now) {
        answers.push({ at: now + 5, sent: limiter.sent(now) });
        ready--;
        sends++;
      }
      const next = Math.min(
        answers[0]?.at ?? Number.POSITIVE_INFINITY,
        ready > 0 ? limiter.nextAt(now) : Infinity,
      );
      expect(Number.isFinite(next)).toBe(true);
      now = next;
      while (answers.length > 0 && (answers[0] as { at: number }).at <= now) {
        const answer = answers.shift() as { at: number; sent: number };
        limiter.answered(now, 429, parseRateLimit({ 'retry-after': '0' }, now), answer.sent);
        ready++;
      }
    }
    expect(sends).toBeLessThanOrEqual(concurrency * 61);
    expect(limiter.state(now).waitedMs).toBeGreaterThanOrEqual(55_000);
  });

  it('property: with nothing in flight, the next turn is always a finite time, whatever the answers said', () => {
    const headers = fc.record(
      {
        'x-ratelimit-limit': fc.constantFrom('0', '1', '50'),
        'x-ratelimit-remaining': fc.constantFrom('0', '1'),
        'x-ratelimit-reset': fc.constantFrom('0', '1', '30', '253402300799'),
        'retry-after': fc.constantFrom('0', '1', '999999999999'),
        ratelimit: fc.constantFrom('"p";r=0;t=0', 'limit=0, remaining=0, reset=5'),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(200, 429, 503), headers, fc.nat(3000)), {
          minLength: 1,
          maxLength: 12,
        }),
        (answers) => {
          const limiter = new RateLimiter(T, { concurrency: 4 });
          let now = T;
          for (const [status, told, after] of answers) {
            now = limiter.nextAt(now);
            expect(Number.isFinite(now)).toBe(true);
            const sent = limiter.sent(now);
            now += after;
            limiter.answered(now, status, parseRateLimit(told, now), sent);
          }
          expect(limiter.inFlight).toBe(0);
          expect(Number.isFinite(limiter.nextAt(now))).toBe(true);
        },
      ),
    );
  });

  it('the quota and the floor leave a well-behaved API as fast as before (50/s, concurrency 16)', () => {
    const run = simulate({
      limit: 50,
      windowMs: 1000,
      style: 'x-ratelimit',
      records: 500,
      concurrency: 16,
      latencyMs: 50,
    });
    expect(run.created).toBe(500);
    expect(run.share).toBeGreaterThanOrEqual(0.93);
  });
});
