// The rate limiter's pure parts: --rate-limit's forms, fixed windows aligned to the Unix epoch, and
// the headers of each style.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatRateLimit,
  parseRateLimit,
  RateLimiter,
  rateLimitHeaders,
} from '../../src/sandbox/faults/rate-limit.js';

describe('parseRateLimit', () => {
  it.each([
    ['50', 50, 1],
    ['50/s', 50, 1],
    ['100/min', 100, 60],
    ['1000/h', 1000, 3600],
    ['50/5s', 50, 5],
    ['200/30s', 200, 30],
    ['100/2min', 100, 120],
    [' 7/1s ', 7, 1],
    // Not whole requests in whole seconds: the same rate in the smallest window that is.
    ['0.5/s', 1, 2],
    ['2.5/s', 5, 2],
    ['5.5', 11, 2],
    ['0.1/s', 1, 10],
    ['1.5/min', 3, 120],
    ['50/500ms', 100, 1],
    ['1/300ms', 10, 3],
  ])('%j is %d per %d s', (text, limit, windowSeconds) => {
    expect(parseRateLimit(text)).toEqual({ limit, windowSeconds });
  });

  it.each([
    ['0', /from 1 to/],
    ['1000001', /from 1 to/],
    ['50/', /must be n per window/],
    ['50/0s', /window from 1 s to 24 h/],
    ['50/25h', /window from 1 s to 24 h/],
    ['50/d', /must be n per window/],
    ['abc', /must be n per window/],
    ['-5', /must be n per window/],
    ['0.00001/s', /window from 1 s to 24 h/],
  ])('%j is refused', (text, message) => {
    expect(parseRateLimit(text)).toMatch(message);
  });

  it('formatRateLimit gives back a text that parses to the same policy', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 86_400 }), (limit, w) => {
        expect(parseRateLimit(formatRateLimit({ limit, windowSeconds: w }))).toEqual({
          limit,
          windowSeconds: w,
        });
      }),
    );
    expect(formatRateLimit({ limit: 50, windowSeconds: 5 })).toBe('50/5s');
    expect(formatRateLimit({ limit: 100, windowSeconds: 60 })).toBe('100/min');
  });
});

describe('RateLimiter', () => {
  it('counts per key in windows aligned to multiples of their length since the epoch', () => {
    const limiter = new RateLimiter({ limit: 2, windowSeconds: 5 }, 'x-ratelimit');
    const a = {};
    const b = {};
    expect(limiter.take(a, 5_500)).toEqual({
      limit: 2,
      windowSeconds: 5,
      remaining: 1,
      resetAtMs: 10_000,
      limited: false,
    });
    expect(limiter.take(a, 9_999)).toMatchObject({ remaining: 0, limited: false });
    expect(limiter.take(a, 9_999)).toMatchObject({ remaining: 0, limited: true, resetAtMs: 10_000 });
    expect(limiter.take(b, 9_999)).toMatchObject({ remaining: 1, limited: false });
    expect(limiter.peek(a, 9_999)).toMatchObject({ remaining: 0, limited: false });
    expect(limiter.take(a, 10_000)).toMatchObject({ remaining: 1, limited: false, resetAtMs: 15_000 });
    expect(limiter.peek(undefined, 10_000)).toMatchObject({ remaining: 2, resetAtMs: 15_000 });
  });

  it('never lets more than the limit through in one window (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 200 }),
        (limit, windowSeconds, offsets) => {
          const limiter = new RateLimiter({ limit, windowSeconds }, 'none');
          const allowed = new Map<number, number>();
          for (const at of offsets.sort((x, y) => x - y)) {
            const state = limiter.take('k', 1_700_000_000_000 + at);
            expect(state.resetAtMs % (windowSeconds * 1000)).toBe(0);
            expect(state.resetAtMs).toBeGreaterThan(1_700_000_000_000 + at);
            if (!state.limited) allowed.set(state.resetAtMs, (allowed.get(state.resetAtMs) ?? 0) + 1);
          }
          for (const count of allowed.values()) expect(count).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});

describe('rateLimitHeaders', () => {
  const state = { limit: 50, windowSeconds: 5, remaining: 0, resetAtMs: 1_700_000_005_000, limited: true };
  const now = 1_700_000_001_200; // 3.8 s before the reset

  it('x-ratelimit: GitHub form, the reset in Unix seconds', () => {
    expect(rateLimitHeaders('x-ratelimit', state, now)).toEqual({
      'retry-after': '4',
      'x-ratelimit-limit': '50',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1700000005',
    });
  });

  it('ietf: delta seconds and a policy', () => {
    expect(rateLimitHeaders('ietf', { ...state, remaining: 7, limited: false }, now)).toEqual({
      'ratelimit-limit': '50',
      'ratelimit-remaining': '7',
      'ratelimit-reset': '4',
      'ratelimit-policy': '50;w=5',
    });
  });

  it('structured: the current draft', () => {
    expect(rateLimitHeaders('structured', state, now)).toEqual({
      'retry-after': '4',
      ratelimit: '"default";r=0;t=4',
      'ratelimit-policy': '"default";q=50;w=5',
    });
  });

  it('none: only Retry-After on a 429', () => {
    expect(rateLimitHeaders('none', state, now)).toEqual({ 'retry-after': '4' });
    expect(rateLimitHeaders('none', { ...state, limited: false }, now)).toEqual({});
  });
});
