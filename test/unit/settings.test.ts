import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskToken, normalizeBaseUrl, parseTimeout, resolveSettings } from '../../src/config/settings.js';
import { redact } from '../../src/context.js';
import { colorLevel } from '../../src/io/theme.js';
import { mergeValueToString, type Problems, parseSetFlags } from '../../src/request/request.js';
import { formatRelative, formatUtc } from '../../src/text/time.js';

describe('normalizeBaseUrl', () => {
  it.each([
    'https://esign.example.com/api/v1',
    'http://localhost:4010/api/v1',
    'http://127.0.0.1:4010/api/v1',
    'http://127.5.6.7/api/v1',
    'http://[::1]:4010/api/v1',
  ])('accepts %s', (url) => {
    expect(normalizeBaseUrl(`${url}/`, 'x')).toBe(url);
  });

  it.each([
    ['http://esign.example.com/api/v1', 'only for loopback'],
    ['http://128.0.0.1/api/v1', 'only for loopback'],
    ['http://localhost.example.com/api/v1', 'only for loopback'],
    // An absolute name goes to the resolver, which may send it to DNS: a token there would be in clear text.
    ['http://localhost./api/v1', 'only for loopback'],
    ['ftp://esign.example.com', 'must start with https://'],
    ['esign.example.com/api/v1', 'is not a URL'],
    ['https://user:pw@esign.example.com/api/v1', 'user name or password'],
    ['https://esign.example.com/api/v1?x=1', 'query string'],
  ])('refuses %s', (url, message) => {
    expect(() => normalizeBaseUrl(url, 'x')).toThrow(message);
  });
});

describe('settings precedence', () => {
  const ctx = (env: Record<string, string>) => ({ env, platform: 'linux' as const, homedir: '/home/u' });
  const config = () => ({
    profiles: { default: { base_url: 'https://profile.example/api/v1', token: 'tok_profile_1234' } },
  });

  it('flag > env > profile > default', () => {
    const all = resolveSettings(
      { baseUrl: 'https://flag.example/api/v1' },
      ctx({ ESIGN_BASE_URL: 'https://env.example/api/v1' }),
      config,
    );
    expect(all.baseUrl).toEqual({ value: 'https://flag.example/api/v1', source: 'flag' });
    const env = resolveSettings({}, ctx({ ESIGN_BASE_URL: 'https://env.example/api/v1' }), config);
    expect(env.baseUrl.source).toBe('env ESIGN_BASE_URL');
    const stored = resolveSettings({}, ctx({}), config);
    expect(stored.baseUrl).toEqual({ value: 'https://profile.example/api/v1', source: 'profile default' });
    expect(stored.token).toEqual({ value: 'tok_profile_1234', source: 'profile default' });
    expect(stored.tokenOverridesProfile).toBe(false);
    const overridden = resolveSettings({}, ctx({ ESIGN_TOKEN: 'tok_env_5678_abcdef' }), config);
    expect(overridden.token.value).toBe('tok_env_5678_abcdef');
    expect(overridden.tokenOverridesProfile).toBe(true);
  });

  it('uses the platform config folder without a -nodejs suffix', () => {
    expect(resolveSettings({}, ctx({}), () => ({})).configPath).toBe('/home/u/.config/esign/config.json');
    expect(resolveSettings({}, ctx({ XDG_CONFIG_HOME: '/x' }), () => ({})).configPath).toBe(
      '/x/esign/config.json',
    );
  });

  it('parses timeouts in seconds, refusing nonsense', () => {
    expect(parseTimeout({ timeout: '1.5' }, {})).toEqual({ value: 1500, source: 'flag' });
    expect(parseTimeout({}, { ESIGN_TIMEOUT: '12' })).toEqual({ value: 12_000, source: 'env ESIGN_TIMEOUT' });
    expect(parseTimeout({}, {})).toEqual({ value: 30_000, source: 'default' });
    for (const bad of ['0', '-1', 'abc', '1e3', ''])
      expect(() => parseTimeout({ timeout: bad }, {})).toThrow('--timeout');
  });
});

describe('small pure helpers', () => {
  it('maskToken keeps only the last 4 characters', () => {
    expect(maskToken('tok_live_abcdef123456')).toBe('****3456');
    expect(maskToken('short')).toBe('****');
  });

  it('redact removes every registered secret', () => {
    expect(redact('Bearer abcd1234 and abcd1234', new Set(['abcd1234']))).toBe(
      'Bearer [redacted] and [redacted]',
    );
  });

  it('mergeValueToString follows the contract', () => {
    expect(mergeValueToString(42)).toBe('42');
    expect(mergeValueToString(true)).toBe('true');
    expect(mergeValueToString('x')).toBe('x');
    expect(mergeValueToString(null)).toBeUndefined();
    expect(mergeValueToString([1])).toBeUndefined();
    expect(mergeValueToString({})).toBeUndefined();
  });

  it('parseSetFlags splits at the first =', () => {
    const problems: Problems = [];
    expect(parseSetFlags(['a=b=c', 'empty='], problems)).toEqual({ a: 'b=c', empty: '' });
    expect(problems).toEqual([]);
  });

  it('formats expiry for people', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    expect(formatUtc(new Date('2026-12-22T10:00:00Z'))).toBe('2026-12-22 10:00:00 UTC');
    expect(formatRelative(new Date('2026-12-22T10:00:00Z'), now)).toBe('in 30 days');
    expect(formatRelative(new Date('2026-11-22T15:00:00Z'), now)).toBe('in 5 hours');
    expect(formatRelative(new Date('2026-11-20T10:00:00Z'), now)).toBe('2 days ago');
    // Issue 8: 365 days is a year, not "12 months".
    expect(formatRelative(new Date('2027-11-22T10:00:00Z'), now)).toBe('in 1 year');
    expect(formatRelative(new Date('2028-11-21T10:00:00Z'), now)).toBe('in 2 years');
    expect(formatRelative(new Date('2027-02-20T10:00:00Z'), now)).toBe('in 90 days');
    expect(formatRelative(new Date('2027-06-10T10:00:00Z'), now)).toBe('in 7 months');
    expect(formatRelative(new Date('2026-11-22T10:00:00.400Z'), now)).toBe('in 0 seconds');
    expect(formatRelative(new Date('2026-11-22T09:59:59.600Z'), now)).toBe('0 seconds ago');
    expect(formatRelative(new Date('3026-11-22T10:00:00Z'), now)).toBe('in 1,001 years');
  });

  it('says a relative time exactly as Intl.RelativeTimeFormat("en") would, for any distance', () => {
    const intl = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
    const now = new Date('2026-11-22T10:00:00Z');
    const units = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 45), max: 2 ** 45 }), (offsetMs) => {
        const text = formatRelative(new Date(now.getTime() + offsetMs), now);
        const [, count, unit] = /^(?:in )?([\d,]+) (\w+?)s?(?: ago)?$/.exec(text) ?? [];
        expect(units).toContain(unit);
        const n = Number(count?.replaceAll(',', ''));
        const signed = text.endsWith(' ago') ? -n || -0 : n;
        expect(text).toBe(intl.format(signed, unit as (typeof units)[number]));
      }),
      { numRuns: 2000 },
    );
  });

  it('colour: NO_COLOR wins, FORCE_COLOR forces, otherwise only on a TTY', () => {
    const tty = { isTTY: true, write: () => true };
    const pipe = { isTTY: false, write: () => true };
    expect(colorLevel(tty, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(0);
    expect(colorLevel(pipe, { FORCE_COLOR: '1' })).toBe(1);
    expect(colorLevel(pipe, {})).toBe(0);
    expect(colorLevel(tty, { TERM: 'xterm-256color' })).toBe(2);
    expect(colorLevel(tty, { TERM: 'dumb' })).toBe(0);
  });
});
