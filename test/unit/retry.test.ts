import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, retryDelay, sleep } from '../../src/api/retry.js';

const now = new Date('2026-11-22T10:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['7'], now)).toBe(7000);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});

describe('backoffDelay (full jitter)', () => {
  it('stays within [0, min(cap, base * 2^attempt))', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 120_000 }),
        (attempt, random, baseMs, capMs) => {
          const delay = backoffDelay(attempt, { baseMs, capMs }, () => random);
          const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(Math.max(1, ceiling));
          expect(Number.isInteger(delay)).toBe(true);
        },
      ),
    );
  });

  it('grows with the attempt until the cap', () => {
    const top = () => 0.999999;
    expect(backoffDelay(0, { baseMs: 100, capMs: 1000 }, top)).toBe(99);
    expect(backoffDelay(2, { baseMs: 100, capMs: 1000 }, top)).toBe(399);
    expect(backoffDelay(10, { baseMs: 100, capMs: 1000 }, top)).toBe(999);
  });

  it('lets Retry-After win over backoff', () => {
    expect(retryDelay(3, 1234, { baseMs: 100, capMs: 1000 }, () => 0.5)).toBe(1234);
    expect(retryDelay(1, undefined, { baseMs: 100, capMs: 1000 }, () => 0.5)).toBe(100);
  });
});

describe('sleep', () => {
  it('rejects when aborted', async () => {
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
