import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, Pacer } from '../../src/batch/pacing/pacer.js';
import { RateLimiter } from '../../src/batch/pacing/rate-limiter.js';

/** Node's TimeoutOverflowWarnings raised while `action` runs and the ticks after it. */
async function overflowWarnings(action: () => void): Promise<string[]> {
  const seen: string[] = [];
  const listener = (warning: Error) => {
    if (warning.name === 'TimeoutOverflowWarning') seen.push(warning.message);
  };
  process.on('warning', listener);
  try {
    action();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

const controllers: AbortController[] = [];
/** A pacer on the real clock whose waits the test's end stops. */
function pacerOf(limiter = new RateLimiter(Date.now())) {
  const controller = new AbortController();
  controllers.push(controller);
  return { pacer: new Pacer(limiter, Date.now, controller.signal), limiter, controller };
}
afterEach(() => {
  for (const controller of controllers.splice(0)) controller.abort();
});

/** A pacer whose limiter pauses every send for `ms` (a 429 that said so). */
function paused(ms: number) {
  const made = pacerOf();
  const sent = made.pacer.turn() as number;
  made.pacer.answered(Date.now(), 429, { retryAfterMs: ms }, sent);
  return made;
}

/** How many timers the process holds. */
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('Pacer timers', () => {
  it('holds no timer once nobody waits (a timer armed for nothing would keep the process alive)', async () => {
    const { pacer } = pacerOf(new RateLimiter(Date.now(), { concurrency: 4 }));
    const before = timers();
    const sent = pacer.turn() as number; // the first round is one request: the next waits for its answer
    const waiting = pacer.turn(Date.now() + 60_000);
    expect(waiting).toBeInstanceOf(Promise);
    expect(timers()).toBe(before + 1); // the waiter's deadline
    pacer.answered(Date.now(), 200, {}, sent);
    expect(typeof (await waiting)).toBe('number');
    expect(timers()).toBe(before);
  });
});

describe('Pacer deadlines', () => {
  it('a turn that can go now goes at once (no promise), whatever its deadline', () => {
    const { pacer } = pacerOf();
    expect(pacer.turn(Date.now() + 10)).toBe(1);
  });

  it('every waiter whose deadline passes is released as expired at it, not only the first', async () => {
    const { pacer, limiter } = pacerOf(new RateLimiter(Date.now(), { concurrency: 4 }));
    expect(pacer.turn()).toBe(1); // the first round is one request: the rest wait for its answer
    const start = Date.now();
    const soon = [pacer.turn(start + 40), pacer.turn(start + 40), pacer.turn(start + 60)];
    const later = pacer.turn(start + 60_000);
    expect(soon.every((turn) => turn instanceof Promise)).toBe(true);
    const results = await Promise.all(
      soon.map(async (turn) => {
        const result = await turn;
        return { result, after: Date.now() - start };
      }),
    );
    expect(results.map((r) => r.result)).toEqual(['expired', 'expired', 'expired']);
    for (const { after } of results) expect(after).toBeGreaterThanOrEqual(39);
    expect(results[2]?.after).toBeGreaterThanOrEqual(59);
    // The one with time left still waits, and goes when the answer comes.
    pacer.answered(Date.now(), 201, {}, 1);
    expect(await later).toBe(2);
    expect(limiter.inFlight).toBe(1);
  });

  it('a pause that ends after a deadline expires the turn at once; one that ends before lets it go', async () => {
    const { pacer } = paused(60_000);
    const start = Date.now();
    expect(pacer.turn(start + 1000)).toBe('expired');
    const waiting = pacer.turn(start + 120_000);
    expect(waiting).toBeInstanceOf(Promise);
    // A later 429 extends the pause past the waiter's deadline: it is released then and there.
    pacer.answered(Date.now(), 429, { retryAfterMs: 600_000 }, 1);
    expect(await waiting).toBe('expired');
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('waiters in a pause get their turn at its end, in the order asked', async () => {
    // A reset 30 ms ahead (a pause below the floor only on a 429 that follows another's pause).
    const { pacer } = pacerOf();
    const sent = pacer.turn() as number;
    pacer.answered(Date.now(), 429, { resetAt: Date.now() + 30, limit: 5, remaining: 0 }, sent);
    const order: number[] = [];
    await Promise.all(
      [pacer.turn(Date.now() + 5000), pacer.turn()].map(async (turn, i) => {
        expect(typeof (await turn)).toBe('number');
        order.push(i);
      }),
    );
    expect(order).toEqual([0, 1]);
  });

  it('a stop ends deadline waiters with false, not expired', async () => {
    const { pacer, controller } = paused(60_000);
    const held = [pacer.turn(Date.now() + 120_000), pacer.sleep(60_000, Date.now() + 120_000)];
    controller.abort();
    expect(await Promise.all(held)).toEqual([false, false]);
  });

  it('no timer past 2^31-1 ms: a pause of 999999999999 s and a reset in year 9999 raise no TimeoutOverflowWarning', async () => {
    const { pacer } = paused(999_999_999_999_000);
    const warnings = await overflowWarnings(() => {
      void pacer.turn();
      void pacer.turn(Date.now() + 3 * MAX_TIMER_MS);
      void pacer.sleep(999_999_999_999_000);
    });
    expect(warnings).toEqual([]);
    const reset = pacerOf();
    const sent = reset.pacer.turn() as number;
    const warningsReset = await overflowWarnings(() => {
      reset.pacer.answered(Date.now(), 429, { resetAt: Date.UTC(9999, 0, 1), limit: 10, remaining: 0 }, sent);
      void reset.pacer.turn();
    });
    expect(warningsReset).toEqual([]);
  });

  it('sleep: true once the time went by; expired at once when it would end past the deadline', async () => {
    const { pacer } = pacerOf();
    const start = Date.now();
    expect(await pacer.sleep(20, start + 5000)).toBe(true);
    expect(Date.now() - start).toBeGreaterThanOrEqual(19);
    const before = Date.now();
    expect(await pacer.sleep(60_000, before + 1000)).toBe('expired');
    expect(Date.now() - before).toBeLessThan(500);
    expect(await pacer.sleep(10)).toBe(true);
    expect(await pacer.sleep(Number.NaN)).toBe(true); // no 1 ms timer again and again
  });

  it('a quota of zero with nothing in flight: waiters without a deadline still get a turn (after the reset and the floor), never a hang', async () => {
    const { pacer } = pacerOf();
    const sent = pacer.turn() as number;
    // An API whose quota is zero: the reset is near, and then nothing in flight would ever tell more.
    pacer.answered(Date.now(), 200, { limit: 0, remaining: 0, resetAt: Date.now() + 30 }, sent);
    const start = Date.now();
    const next = await pacer.turn();
    expect(typeof next).toBe('number');
    expect(Date.now() - start).toBeGreaterThanOrEqual(25);
  });
});
