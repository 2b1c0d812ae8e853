import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateLimit, parseResetValue, waitFromRateLimit } from '../../src/api/rate-limit-headers.js';

const now = Date.parse('2026-11-22T10:00:00Z');

describe('parseRateLimit', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRateLimit({ 'retry-after': '12' }, now)).toEqual({ retryAfterMs: 12_000 });
    expect(parseRateLimit({ 'retry-after': 'Sun, 22 Nov 2026 10:00:30 GMT' }, now)).toEqual({
      retryAfterMs: 30_000,
    });
    expect(parseRateLimit({ 'retry-after': 'Sun, 22 Nov 2026 09:00:00 GMT' }, now).retryAfterMs).toBe(0);
    expect(parseRateLimit({ 'retry-after': 'soon' }, now)).toEqual({});
    expect(parseRateLimit({ 'retry-after': '-3' }, now)).toEqual({});
    expect(parseRateLimit({ 'retry-after': '12' }, new Date(now)).retryAfterMs).toBe(12_000);
  });

  it('reads X-RateLimit-* with the reset as Unix seconds, Unix milliseconds or seconds from now', () => {
    const epoch = now / 1000 + 60;
    expect(
      parseRateLimit(
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(epoch) },
        now,
      ),
    ).toEqual({ limit: 100, remaining: 0, resetAt: now + 60_000 });
    expect(parseRateLimit({ 'x-ratelimit-reset': '45' }, now).resetAt).toBe(now + 45_000);
    expect(parseRateLimit({ 'x-ratelimit-reset': String(now + 5000) }, now).resetAt).toBe(now + 5000);
    expect(parseRateLimit({ 'x-ratelimit-reset': '1.5' }, now).resetAt).toBe(now + 1500);
  });

  it('reads the IETF RateLimit-Limit/-Remaining/-Reset fields, with a window in the limit', () => {
    expect(
      parseRateLimit(
        { 'ratelimit-limit': '10, 10;w=1, 50;w=60', 'ratelimit-remaining': '3', 'ratelimit-reset': '7' },
        now,
      ),
    ).toEqual({ limit: 10, remaining: 3, resetAt: now + 7000, windowMs: 1000 });
    expect(parseRateLimit({ 'ratelimit-limit': '100;w=60' }, now)).toEqual({ limit: 100, windowMs: 60_000 });
  });

  it('reads the structured RateLimit and RateLimit-Policy fields', () => {
    expect(
      parseRateLimit({ ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60' }, now),
    ).toEqual({ limit: 100, remaining: 50, resetAt: now + 30_000, windowMs: 60_000, policy: 'default' });
  });

  it('of several structured limits, the one with the fewest requests left binds', () => {
    const info = parseRateLimit(
      {
        ratelimit: '"burst";r=40;t=1, "daily";r=0;t=3600',
        'ratelimit-policy': '"burst";q=50;w=1, "daily";q=1000;w=86400',
      },
      now,
    );
    expect(info).toEqual({
      limit: 1000,
      remaining: 0,
      resetAt: now + 3_600_000,
      windowMs: 86_400_000,
      policy: 'daily',
    });
    expect(waitFromRateLimit(info, now)).toBe(3_600_000);
  });

  it('reads the dictionary form RateLimit: limit=, remaining=, reset=', () => {
    expect(
      parseRateLimit({ ratelimit: 'limit=100, remaining=0, reset=12', 'ratelimit-policy': '100;w=60' }, now),
    ).toEqual({ limit: 100, remaining: 0, resetAt: now + 12_000, windowMs: 60_000 });
  });

  it('prefers the structured fields, then the IETF ones, then X-RateLimit-*', () => {
    const info = parseRateLimit(
      {
        ratelimit: '"p";r=5;t=10',
        'ratelimit-remaining': '6',
        'x-ratelimit-remaining': '7',
        'x-ratelimit-limit': '70',
      },
      now,
    );
    expect(info).toMatchObject({ remaining: 5, resetAt: now + 10_000, limit: 70 });
  });

  it('leaves out what it cannot read', () => {
    expect(
      parseRateLimit(
        {
          'x-ratelimit-limit': 'lots',
          'x-ratelimit-remaining': '-1',
          'x-ratelimit-reset': 'tomorrow',
          ratelimit: '"x";r=abc',
          'ratelimit-policy': 'garbage;;;',
        },
        now,
      ),
    ).toEqual({});
  });

  describe('structured fields read by an RFC 9651 parser', () => {
    it('a policy name quoted with commas and semicolons in it is one name, not three members', () => {
      expect(
        parseRateLimit({ ratelimit: '"a,b;c";r=5;t=10', 'ratelimit-policy': '"a,b;c";q=20;w=60' }, now),
      ).toEqual({ policy: 'a,b;c', remaining: 5, resetAt: now + 10_000, limit: 20, windowMs: 60_000 });
    });

    it('a parameter given twice counts as its last value', () => {
      expect(parseRateLimit({ ratelimit: '"p";r=50;r=0;t=30' }, now)).toMatchObject({ remaining: 0 });
      expect(
        parseRateLimit({ ratelimit: 'limit=100, remaining=50, remaining=2, reset=3' }, now),
      ).toMatchObject({
        remaining: 2,
      });
    });

    it('a member of the wrong type is left out: a quoted "5" is a String, not a count', () => {
      expect(parseRateLimit({ ratelimit: '"p";r="5";t=10' }, now)).toEqual({
        policy: 'p',
        resetAt: now + 10_000,
      });
      expect(parseRateLimit({ ratelimit: '"p";r=-3;t=10' }, now)).not.toHaveProperty('remaining');
    });

    it('a field that is not valid as a whole is ignored as a whole; the other families still count', () => {
      for (const invalid of ['"p";R=5;t=10', '"p";r=5;t=10, "unterminated', '"p";r=5;;t=10']) {
        expect(parseRateLimit({ ratelimit: invalid, 'x-ratelimit-remaining': '9' }, now), invalid).toEqual({
          remaining: 9,
        });
      }
    });

    it('the dictionary form is found whatever member comes first', () => {
      for (const field of [
        'note="a, b", limit=100, remaining=0, reset=12',
        'partial, limit=100, remaining=0, reset=12',
      ]) {
        expect(parseRateLimit({ ratelimit: field }, now), field).toEqual({
          limit: 100,
          remaining: 0,
          resetAt: now + 12_000,
        });
      }
    });

    it('a policy named by a token, and parameters spaced after the semicolon', () => {
      expect(
        parseRateLimit({ ratelimit: 'burst; r=4; t=1', 'ratelimit-policy': 'burst; q=5; w=1' }, now),
      ).toEqual({ policy: 'burst', remaining: 4, resetAt: now + 1000, limit: 5, windowMs: 1000 });
    });
  });

  it('absurd times come out as finite numbers, not NaN, Infinity or negative (the pacer clamps its timers)', () => {
    const retry = parseRateLimit({ 'retry-after': '999999999999' }, now).retryAfterMs as number;
    expect(retry).toBe(999_999_999_999_000);
    const endless = parseRateLimit({ 'retry-after': '9'.repeat(400) }, now).retryAfterMs as number;
    expect(Number.isFinite(endless)).toBe(true);
    expect(endless).toBeGreaterThan(retry);
    const year9999 = Date.UTC(9999, 11, 31, 23, 59, 59);
    expect(parseRateLimit({ 'x-ratelimit-reset': String(year9999 / 1000) }, now).resetAt).toBe(year9999);
    expect(parseRateLimit({ 'retry-after': new Date(year9999).toUTCString() }, now).retryAfterMs).toBe(
      year9999 - now,
    );
    const structured = parseRateLimit({ ratelimit: '"p";r=0;t=999999999999999' }, now).resetAt as number;
    expect(Number.isFinite(structured)).toBe(true);
    expect(structured).toBeGreaterThan(now);
  });

  it('waitFromRateLimit: Retry-After wins; else the reset when nothing is left', () => {
    expect(waitFromRateLimit({ retryAfterMs: 5000, remaining: 0, resetAt: now + 9000 }, now)).toBe(5000);
    expect(waitFromRateLimit({ remaining: 0, resetAt: now + 9000 }, now)).toBe(9000);
    expect(waitFromRateLimit({ remaining: 3, resetAt: now + 9000 }, now)).toBeUndefined();
    expect(waitFromRateLimit({ remaining: 0, resetAt: now - 9000 }, now)).toBe(0);
  });
});

describe('parseRateLimit properties', () => {
  const names = [
    'retry-after',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'ratelimit',
    'ratelimit-policy',
  ];
  const headerValue = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[ "a-z0-9;=,.-]{0,40}$/),
    fc.nat().map(String),
  );

  it('never throws, and every number it gives is finite and not negative', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), headerValue), fc.nat(4e12), (headers, at) => {
        const info = parseRateLimit(headers, at);
        for (const value of [info.limit, info.remaining, info.retryAfterMs, info.windowMs, info.resetAt]) {
          if (value !== undefined) {
            expect(Number.isFinite(value)).toBe(true);
            expect(value).toBeGreaterThanOrEqual(0);
          }
        }
      }),
    );
  });

  it('gives back the limit, remaining and reset of each header family', () => {
    fc.assert(
      fc.property(
        fc.nat(1e6),
        fc.nat(1e6),
        fc.integer({ min: 0, max: 86_400 }),
        fc.constantFrom('x', 'ietf', 'structured'),
        (limit, remaining, reset, family) => {
          const headers =
            family === 'x'
              ? {
                  'x-ratelimit-limit': String(limit),
                  'x-ratelimit-remaining': String(remaining),
                  'x-ratelimit-reset': String(reset),
                }
              : family === 'ietf'
                ? {
                    'ratelimit-limit': String(limit),
                    'ratelimit-remaining': String(remaining),
                    'ratelimit-reset': String(reset),
                  }
                : { ratelimit: `"p";r=${remaining};t=${reset}`, 'ratelimit-policy': `"p";q=${limit};w=60` };
          expect(parseRateLimit(headers, now)).toMatchObject({
            limit,
            remaining,
            resetAt: now + reset * 1000,
          });
        },
      ),
    );
  });

  it('an X-RateLimit-Reset is absolute above 1e9 and relative below, so the reset is never in the distant past', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e9 }), (value) => {
        const resetAt = parseResetValue(String(value), now) as number;
        expect(resetAt).toBe(value >= 1e9 ? value * 1000 : now + value * 1000);
      }),
    );
  });
});
