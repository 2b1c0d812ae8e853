// One grammar of rates and durations (src/text/units.ts), and every place that reads it agreeing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { batch } from '../../src/commands/envelope/envelope.decl.js';
import { GLOBAL_FLAGS } from '../../src/commands/global-flags.js';
import { schemaFor } from '../../src/options.js';

import { ProjectFile } from '../../src/project/project-file.js';
import { formatRateLimit, parseRateLimit } from '../../src/sandbox/faults/rate-limit.js';
import {
  durationText,
  parseDuration,
  parseRate,
  type Rate,
  rateText,
  readRate,
  secondsText,
  waitText,
} from '../../src/text/units.js';

/** The readers the batch's options schema uses, as made from its declaration. */
const batchShape = schemaFor(batch, GLOBAL_FLAGS).shape;
const batchOptions = {
  rate: batchShape.rate as z.ZodMiniType<Rate | undefined>,
  maxRateWait: batchShape.maxRateWait as z.ZodMiniType<number>,
};

const UNIT_MS = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 } as const;
const units = fc.constantFrom(...(Object.keys(UNIT_MS) as (keyof typeof UNIT_MS)[]));
/** A unit as a user may write it: any case. */
const written = (unit: string, upper: boolean) => (upper ? unit.toUpperCase() : unit);

describe('rates', () => {
  it('property: <count>/[<n>]<unit> is count per n units, whatever the case and spaces', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.option(fc.integer({ min: 1, max: 1000 })),
        units,
        fc.boolean(),
        fc.constantFrom('', ' '),
        (count, times, unit, upper, space) => {
          const text = `${space}${count}${space}/${space}${times ?? ''}${written(unit, upper)}${space}`;
          expect(parseRate(text)).toEqual({ count, perMs: (times ?? 1) * UNIT_MS[unit] });
        },
      ),
    );
  });

  it('reads decimal counts and windows: 0.5/s is one every 2 s, 20/1.5s', () => {
    expect(parseRate('0.5/s')).toEqual({ count: 0.5, perMs: 1000 });
    expect(parseRate('20/1.5s')).toEqual({ count: 20, perMs: 1500 });
    expect(parseRate('100/m')).toEqual({ count: 100, perMs: 60_000 });
  });

  it('a bare count is per second where it is allowed, and not a rate where the unit must be written', () => {
    expect(parseRate('50', { countAlone: true })).toEqual({ count: 50, perMs: 1000 });
    expect(parseRate('50')).toBeUndefined();
  });

  it('refuses what is not a rate, and a count or window of zero where it must pace', () => {
    for (const bad of [
      '',
      '/s',
      '50/',
      '50/d',
      '5/x',
      '-1/s',
      's/5',
      '1e3/s',
      '50 per s',
      '50//s',
      '5/s/s',
    ]) {
      expect(readRate(bad, { countAlone: true }), bad).toBeUndefined();
    }
    expect(readRate('0/s')).toEqual({ count: 0, perMs: 1000 });
    expect(parseRate('0/s')).toBeUndefined();
    expect(parseRate('5/0s')).toBeUndefined();
  });

  it('huge values are finite numbers or refused, never NaN or Infinity', () => {
    const big = '9'.repeat(400);
    expect(parseRate(`${big}/s`)).toBeUndefined();
    expect(parseDuration(`${big}h`)).toBeUndefined();
    expect(parseDuration('999999999999s')).toBe(999_999_999_999_000);
  });
});

describe('durations', () => {
  it('property: <n><unit> is n units in whole milliseconds; a bare number is seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), units, fc.boolean(), (n, unit, upper) => {
        expect(parseDuration(`${n}${written(unit, upper)}`)).toBe(n * UNIT_MS[unit]);
        expect(parseDuration(` ${n} `)).toBe(n * 1000);
      }),
    );
  });

  it('rounds to whole milliseconds and refuses what is not a duration', () => {
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('0.0004s')).toBe(0);
    for (const bad of ['', 'soon', '5 days', '-1s', '1s2', 's']) expect(parseDuration(bad)).toBeUndefined();
  });
});

describe('written back in the same grammar', () => {
  it('property: a duration written then read is the same number of milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (ms) => {
        expect(parseDuration(durationText(ms))).toBe(ms);
      }),
    );
  });

  it('property: a rate written then read is the same rate, whole or decimal', () => {
    const count = fc.oneof(
      fc.integer({ min: 1, max: 10 ** 9 }),
      fc.integer({ min: 1, max: 10 ** 6 }).map((n) => n / 1000),
      fc.integer({ min: 1, max: 100 }).map((n) => n / 10 ** 8),
    );
    fc.assert(
      fc.property(count, fc.integer({ min: 1, max: 10 ** 9 }), (count, perMs) => {
        const text = rateText({ count, perMs });
        expect(parseRate(text), text).toEqual({ count, perMs });
      }),
    );
  });

  it('property: a wait ahead is whole seconds rounded up, at least 1, and reads back as no less', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 10 ** 9 }), (ms) => {
        const text = waitText(ms);
        expect(text).toMatch(/^[1-9]\d* s$/);
        const read = parseDuration(text) as number;
        expect(read).toBeGreaterThanOrEqual(ms);
        expect(read - Math.max(ms, 0)).toBeLessThanOrEqual(1000);
      }),
    );
    expect(waitText(200)).toBe('1 s');
    expect(waitText(3001)).toBe('4 s');
  });

  it('a time taken is written to a tenth of a second, and reads back within a twentieth', () => {
    expect(secondsText(1234)).toBe('1.2 s');
    expect(secondsText(0)).toBe('0.0 s');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), (ms) => {
        expect(Math.abs((parseDuration(secondsText(ms)) as number) - ms)).toBeLessThanOrEqual(50);
      }),
    );
  });

  it('the sandbox banner and the next command write a rate alike', () => {
    for (const [limit, w] of [
      [50, 1],
      [100, 60],
      [1000, 3600],
      [50, 5],
      [100, 120],
      [10, 7200],
      [7, 90],
    ] as const) {
      expect(formatRateLimit({ limit, windowSeconds: w })).toBe(rateText({ count: limit, perMs: w * 1000 }));
    }
  });
});

describe('one grammar everywhere', () => {
  /** What each place makes of a text: a count per millisecond, or undefined when it refuses it. */
  const perMs = {
    '--rate': (text: string) => {
      const parsed = batchOptions.rate.safeParse(text);
      return parsed.success && parsed.data ? parsed.data.count / parsed.data.perMs : undefined;
    },
    'defaults.rate': (text: string) => {
      const parsed = ProjectFile.safeParse({ defaults: { rate: text } });
      const rate = parsed.success ? parseRate(text) : undefined;
      return rate ? rate.count / rate.perMs : undefined;
    },
    'sandbox --rate-limit': (text: string) => {
      const policy = parseRateLimit(text);
      return typeof policy === 'string' ? undefined : policy.limit / (policy.windowSeconds * 1000);
    },
  };

  it('property: a text every place accepts means the same rate in each', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.option(fc.integer({ min: 1, max: 60 })),
        fc.constantFrom('s', 'sec', 'm', 'min', 'h'),
        (count, times, unit) => {
          const text = `${count}/${times ?? ''}${unit}`;
          const expected = count / ((times ?? 1) * UNIT_MS[unit]);
          for (const [place, read] of Object.entries(perMs)) {
            const got = read(text);
            // The sandbox counts in windows from 1 s to 24 h: longer ones it refuses, with a reason.
            if (place === 'sandbox --rate-limit' && (times ?? 1) * UNIT_MS[unit] > 86_400_000) continue;
            expect(got, `${place} ${text}`).toBeCloseTo(expected, 12);
          }
        },
      ),
    );
  });

  it('the texts the issue found read differently now read alike: 20/30s, 100/m, 0.5/s', () => {
    expect(perMs['--rate']('20/30s')).toBeCloseTo(20 / 30_000);
    expect(perMs['defaults.rate']('20/30s')).toBeCloseTo(20 / 30_000);
    expect(perMs['sandbox --rate-limit']('20/30s')).toBeCloseTo(20 / 30_000);
    expect(perMs['sandbox --rate-limit']('100/m')).toBeCloseTo(100 / 60_000);
    expect(perMs['defaults.rate']('100/m')).toBeCloseTo(100 / 60_000);
    expect(perMs['defaults.rate']('0.5/s')).toBeCloseTo(0.5 / 1000);
    // The sandbox counts whole requests in whole seconds: 0.5/s is the same rate as 1 per 2 s.
    expect(perMs['sandbox --rate-limit']('0.5/s')).toBeCloseTo(0.5 / 1000);
    expect(parseRateLimit('0.5/s')).toEqual({ limit: 1, windowSeconds: 2 });
  });

  it('--max-rate-wait reads the same durations', () => {
    expect(batchOptions.maxRateWait.parse('1.5m')).toBe(90_000);
    expect(batchOptions.maxRateWait.parse('250ms')).toBe(250);
    expect(batchOptions.maxRateWait.safeParse('5 days').success).toBe(false);
  });
});
