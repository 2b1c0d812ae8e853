import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pacer } from '../../src/batch/pacing/pacer.js';
import { RateLimiter } from '../../src/batch/pacing/rate-limiter.js';
import { parseDuration, parseRate } from '../../src/text/units.js';
import { simulate } from '../helpers/limiter-sim.js';

type SimOptions = Parameters<typeof simulate>[0];

/** The case: 50 a second in 1 s windows, answers in 50 ms, 1,000 records; `options` add or override. */
const fiftyASecond = (options: Pick<SimOptions, 'style' | 'concurrency'> & Partial<SimOptions>) =>
  simulate({ limit: 50, windowMs: 1000, records: 1000, latencyMs: 50, ...options });

describe('rate limiter (virtual clock)', () => {
  for (const style of ['x-ratelimit', 'ietf'] as const) {
    for (const concurrency of [1, 16, 64]) {
      it(`${style}, concurrency ${concurrency}: paced to the quota, at most one 429 a window on average`, () => {
        const run = simulate({ limit: 50, windowMs: 1000, style, records: 600, concurrency, latencyMs: 50 });
        expect(run.created).toBe(600);
        expect(run.rejected).toBeLessThanOrEqual(run.windowsTouched);
        expect(run.worstWindow).toBeLessThanOrEqual(3);
        if (concurrency > 1) expect(run.share).toBeGreaterThanOrEqual(0.93);
      });
    }
  }

  // A server that counts a request after its work, a whole round trip after it left (as the sandbox
  // does with --latency): a request sent in the last 50 ms of a window counts in the next. Paced to
  // the reset alone, every window lost those 50 ms (96%); the window's end learnt from the answers
  // gives each window its whole quota. (IETF: when the first answer comes in the last few dozen ms
  // of a window, "resets in 1 s" cannot tell that window from the next, and one window of the run
  // goes unused; a scan of every phase in 7 ms steps found 94.9% there, 99.5% elsewhere.)
  for (const [style, share] of [
    ['x-ratelimit', 0.985],
    ['ietf', 0.945],
  ] as const) {
    it(`${style}: a server that counts each request a round trip after it left gets its whole quota every window, whatever the phase`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 999 }), fc.constantFrom(4, 16, 64), (offset, concurrency) => {
          const run = fiftyASecond({ style, concurrency, countedAfterMs: 50, phaseMs: offset });
          expect(run.created).toBe(1000);
          expect(run.rejected).toBe(0);
          expect(run.share).toBeGreaterThanOrEqual(share);
        }),
        { numRuns: 12 },
      );
    });
  }

  it('answers that come back in another order than the server counted them (work of 0 to 300 ms): no 429, and with exact resets the whole quota', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom(16, 64),
        fc.constantFrom('x-ratelimit', 'ietf'),
        (offset, concurrency, style) => {
          const run = simulate({
            limit: 50,
            windowMs: 1000,
            style,
            records: 600,
            concurrency,
            latencyMs: 20,
            countedAfterMs: 10,
            workMs: 300,
            phaseMs: offset,
          });
          expect(run.created).toBe(600);
          expect(run.rejected).toBeLessThanOrEqual(1);
          if (style === 'x-ratelimit') expect(run.share).toBeGreaterThanOrEqual(0.95);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('timers that fire a little late (as every timer does) do not slow the pace down', () => {
    for (const style of ['x-ratelimit', 'ietf', 'none'] as const) {
      const exact = fiftyASecond({ style, concurrency: 16 });
      const late = fiftyASecond({ style, concurrency: 16, lateMs: 2 });
      expect(late.share).toBeGreaterThanOrEqual(exact.share - 0.005);
    }
  });

  it('without headers, the start goes in rounds, each once the one before is answered: a few 429s, not every worker twice', () => {
    // 64 workers at once against 50 a second met 64 429s or more before the first of them came back.
    for (const offset of [0, 250, 500, 793]) {
      const run = simulate({
        limit: 50,
        windowMs: 1000,
        style: 'none',
        records: 200,
        concurrency: 64,
        latencyMs: 50,
        phaseMs: offset,
      });
      expect(run.created).toBe(200);
      expect(run.rejected).toBeLessThanOrEqual(40);
    }
    // The rounds: 1, then 2 once it is answered, then 4.
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    expect(limiter.nextAt(0)).toBe(Number.POSITIVE_INFINITY);
    limiter.answered(50, 200, {}, 1);
    limiter.sent(50);
    limiter.sent(50);
    expect(limiter.nextAt(50)).toBe(Number.POSITIVE_INFINITY);
    limiter.answered(100, 200, {}, 2);
    expect(limiter.nextAt(100)).toBe(Number.POSITIVE_INFINITY);
    limiter.answered(101, 200, {}, 3);
    for (let i = 0; i < 4; i++) {
      expect(limiter.nextAt(101)).toBe(101);
      limiter.sent(101);
    }
    expect(limiter.nextAt(101)).toBe(Number.POSITIVE_INFINITY);
  });

  it("an answer from the window before, come after the next window was read (its work took longer), leaves the new window's quota alone", () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    limiter.answered(20, 200, { limit: 50, remaining: 49, resetAt: 1000, windowMs: 1000 }, 1);
    const slow = limiter.sent(900); // counted at 905 in the first window; its work takes 300 ms
    const quick = limiter.sent(1010); // counted in the second window, answered at 1060
    limiter.answered(1060, 200, { limit: 50, remaining: 49, resetAt: 2000, windowMs: 1000 }, quick);
    limiter.answered(1200, 200, { limit: 50, remaining: 0, resetAt: 1000, windowMs: 1000 }, slow);
    expect(limiter.state(1200).remaining).toBe(49);
    expect(limiter.nextAt(1200)).toBeLessThan(1300);
  });

  it('with headers, the first answer ends the rounds: the quota paces from then on', () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    limiter.answered(50, 200, { limit: 1000, remaining: 999, resetAt: 60_000 }, 1);
    for (let i = 0; i < 10; i++) limiter.sent(limiter.nextAt(50));
    expect(limiter.nextAt(50)).toBeLessThan(1000);
  });

  it('x-ratelimit, concurrency 64, whatever the phase of the windows: at least 95% of the limit, at most one 429 a window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999 }), (offset) => {
        const run = fiftyASecond({ style: 'x-ratelimit', concurrency: 64, phaseMs: offset });
        expect(run.created).toBe(1000);
        expect(run.rejected).toBeLessThanOrEqual(run.windowsTouched);
        expect(run.share).toBeGreaterThanOrEqual(0.95);
      }),
      { numRuns: 15 },
    );
  });

  // The phase matters without headers: a first burst that straddles two windows is let through
  // twice over and overestimates the limit (a scan of phases in 13 ms steps found 79% at worst at
  // concurrency 16, 85% at 64; before, 58% to 73%).
  it('no headers, whatever the phase of the windows: at least 75% of the limit, at most three 429s a window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom(16, 64),
        fc.constantFrom(1000, 5000),
        (offset, concurrency, windowMs) => {
          const run = fiftyASecond({ windowMs, style: 'none', concurrency, phaseMs: offset });
          expect(run.created).toBe(1000);
          expect(run.rejected).toBeLessThanOrEqual(3 * run.windowsTouched);
          expect(run.share).toBeGreaterThanOrEqual(0.75);
        },
      ),
      { numRuns: 15 },
    );
  });

  it("a 429 at a window's edge waits for the reset the answer gives, not the whole second Retry-After rounds up to", () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    // Sent just before the reset at 10 000, answered just after it: "retry after 1 s" was counted
    // from the server's side of the reset.
    const pause = limiter.answered(10_010, 429, {
      retryAfterMs: 1000,
      resetAt: 10_000,
      limit: 50,
      remaining: 0,
    });
    expect(pause).toBeLessThan(100);
    // Answered before the reset: until the reset, not a second from now.
    const early = new RateLimiter(0);
    early.sent(0);
    const wait = early.answered(9_700, 429, { retryAfterMs: 1000, resetAt: 10_000, limit: 50, remaining: 0 });
    expect(wait).toBeGreaterThanOrEqual(300);
    expect(wait).toBeLessThan(400);
  });

  for (const style of ['x-ratelimit', 'ietf'] as const) {
    it(`${style}, concurrency 64, timers up to 50 ms late (a loaded machine): at least 95% of the limit, at most one 429 a window`, () => {
      const run = fiftyASecond({ style, concurrency: 64, countedAfterMs: 49, lateMs: 50 });
      expect(run.created).toBe(1000);
      expect(run.rejected).toBeLessThanOrEqual(run.windowsTouched);
      expect(run.share).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('a 429 in whole seconds waits for the reset learnt from earlier answers when that is sooner', () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    // Early in a 1 s window: the reset is close to 1020.
    limiter.answered(20, 200, { limit: 50, remaining: 49, resetAt: 1020, windowMs: 1000 });
    limiter.sent(900);
    // "Retry after 1 s" at 950 (both fields in whole seconds): the window ends at about 1020.
    const wait = limiter.answered(950, 429, {
      retryAfterMs: 1000,
      limit: 50,
      remaining: 0,
      resetAt: 1950,
      windowMs: 1000,
    });
    expect(wait).toBeLessThan(200);
  });

  it('a Retry-After well past the reset (a limit of its own) is waited for in full', () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    expect(limiter.answered(9_000, 429, { retryAfterMs: 60_000, resetAt: 10_000 })).toBe(60_000);
  });

  it('without a policy, the window is the step from one reset to the next, and sends are spaced by it', () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    // First answer 300 ms into a 1 s window: the time to the reset alone says 700 ms.
    limiter.answered(300, 200, { limit: 10, remaining: 9, resetAt: 1000 });
    limiter.sent(1000);
    limiter.answered(1010, 200, { limit: 10, remaining: 9, resetAt: 2000 });
    // Past the reset, before the new window is read: the limit spread over the window learnt (1 s,
    // not the 700 ms the first answer alone said).
    limiter.sent(2050);
    const next = limiter.nextAt(2050);
    limiter.sent(next);
    expect(limiter.nextAt(next) - next).toBeGreaterThanOrEqual(100);
  });

  it('a reset in whole seconds from now is carried on by the policy window when that is earlier', () => {
    const limiter = new RateLimiter(0);
    limiter.sent(0);
    // Early in the first window the reading is nearly exact (1 s from 20 ms: 1020).
    limiter.answered(20, 200, { limit: 50, remaining: 49, resetAt: 1020, windowMs: 1000 });
    // In the next window an answer 300 ms in says "1 s" again: 2300, late by 280 ms.
    limiter.sent(1030);
    limiter.answered(1300, 200, { limit: 50, remaining: 49, resetAt: 2300, windowMs: 1000 });
    expect(limiter.state(1300).resetAt).toBe(2020);
  });

  for (const concurrency of [1, 16, 64]) {
    it(`no headers, concurrency ${concurrency}: learns the limit from 429s and keeps them rare`, () => {
      const run = fiftyASecond({ style: 'none', concurrency });
      expect(run.created).toBe(1000);
      if (concurrency > 1) {
        expect(run.rejected / run.windowsTouched).toBeLessThanOrEqual(3);
        expect(run.share).toBeGreaterThanOrEqual(0.85);
      }
    });
  }

  it('bursty windows (10/s as 50 per 5 s), with and without headers', () => {
    for (const style of ['x-ratelimit', 'none'] as const) {
      const run = simulate({
        limit: 50,
        windowMs: 5000,
        style,
        records: 500,
        concurrency: 16,
        latencyMs: 50,
      });
      expect(run.created).toBe(500);
      expect(run.share).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('a ceiling of the user’s own is never exceeded, in any window of its length', () => {
    const run = simulate({
      limit: 1000,
      windowMs: 1000,
      style: 'none',
      records: 200,
      concurrency: 16,
      latencyMs: 50,
      ceiling: { count: 20, perMs: 1000 },
    });
    const times = run.arrivals.map((a) => a.at);
    for (let i = 20; i < times.length; i++) {
      expect((times[i] as number) - (times[i - 20] as number)).toBeGreaterThanOrEqual(999);
    }
  });

  it('a 429 pauses every turn until the time the server gave, and counts the wait once', () => {
    const limiter = new RateLimiter(0);
    expect(limiter.nextAt(0)).toBe(0); // nothing holds the first request back
    limiter.sent(0);
    limiter.answered(5, 200, {});
    limiter.sent(5);
    limiter.sent(5);
    expect(limiter.answered(10, 429, { retryAfterMs: 2000 })).toBe(2000);
    expect(limiter.answered(20, 429, { retryAfterMs: 2000 })).toBe(2000);
    expect(limiter.nextAt(30)).toBeGreaterThanOrEqual(2020);
    const state = limiter.state(5000);
    expect(state.rateLimited).toBe(2);
    expect(state.waitedMs).toBe(2010);
    expect(state.pausedUntil).toBeUndefined();
  });

  it('a 429 without a time backs off, doubling per 429 in a row', () => {
    const limiter = new RateLimiter(0, { backoffMs: 100 });
    limiter.sent(0);
    expect(limiter.answered(0, 429, {})).toBe(100);
    limiter.sent(100);
    expect(limiter.answered(100, 429, {})).toBe(200);
  });

  it('property: whatever the limit, concurrency, latency and phase, every record is created and 429s stay under two a window (concurrency up to 8)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 60 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 999 }),
        (limit, concurrency, latencyMs, offset) => {
          const run = simulate({
            limit,
            windowMs: 1000,
            style: 'x-ratelimit',
            records: limit * 3,
            concurrency,
            latencyMs,
            phaseMs: offset,
          });
          expect(run.created).toBe(limit * 3);
          expect(run.rejected).toBeLessThanOrEqual(2 * run.windowsTouched);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('--rate and --max-rate-wait values', () => {
  it('reads counts per unit', () => {
    expect(parseRate('50/s')).toEqual({ count: 50, perMs: 1000 });
    expect(parseRate('100/min')).toEqual({ count: 100, perMs: 60_000 });
    expect(parseRate('1000/h')).toEqual({ count: 1000, perMs: 3_600_000 });
    expect(parseRate('20/30s')).toEqual({ count: 20, perMs: 30_000 });
    for (const bad of ['', '50', '0/s', '5/x', '-1/s', 's/5']) expect(parseRate(bad)).toBeUndefined();
  });
  it('reads durations', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('30')).toBe(30_000);
    expect(parseDuration('500ms')).toBe(500);
    for (const bad of ['', 'soon', '5 days', '-1s']) expect(parseDuration(bad)).toBeUndefined();
  });
  it('property: a rate read back is the count per window written', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100000 }), fc.constantFrom('s', 'min', 'h'), (n, unit) => {
        const rate = parseRate(`${n}/${unit}`);
        expect(rate?.count).toBe(n);
        expect(rate?.perMs).toBe(unit === 's' ? 1000 : unit === 'min' ? 60_000 : 3_600_000);
      }),
    );
  });
});

describe('Pacer (real timers)', () => {
  it('decides each turn when an answer comes: the turns waiting for the first answer go at once, in the order asked', async () => {
    const pacer = new Pacer(
      new RateLimiter(Date.now(), { concurrency: 4 }),
      Date.now,
      new AbortController().signal,
    );
    const first = pacer.turn();
    expect(first).toBe(1);
    const order: number[] = [];
    const waiting = [pacer.turn(), pacer.turn()].map(async (turn, i) => {
      expect(turn).toBeInstanceOf(Promise);
      await turn;
      order.push(i);
    });
    const started = Date.now();
    pacer.answered(Date.now(), 201, {}, 1);
    await Promise.all(waiting);
    expect(order).toEqual([0, 1]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a 429 holds every waiting turn until the time it gave; an abort ends them all with false', async () => {
    const limiter = new RateLimiter(Date.now());
    const controller = new AbortController();
    const pacer = new Pacer(limiter, Date.now, controller.signal);
    const sent = pacer.turn() as number;
    pacer.answered(Date.now(), 201, {}, sent);
    const second = pacer.turn() as number;
    expect(pacer.answered(Date.now(), 429, { retryAfterMs: 60_000 }, second)).toBeGreaterThan(59_000);
    const held = [pacer.turn(), pacer.turn()];
    expect(held.every((turn) => turn instanceof Promise)).toBe(true);
    controller.abort();
    expect(await Promise.all(held)).toEqual([false, false]);
    expect(pacer.turn()).toBe(false);
  });
});
