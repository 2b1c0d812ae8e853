// One grammar of rates and durations, for every place that reads them: `--rate` and the project
// file's `defaults.rate` (the batch's ceiling), `esign sandbox --rate-limit` (the sandbox's limit)
// and `--max-rate-wait` (a duration). The same text means the same thing everywhere.
//
//   rate      <count>/[<n>]<unit>     50/s, 100/min, 100/m, 1000/h, 20/30s, 0.5/s, 500/1500ms
//             <count>                 a count per second (where a bare count is allowed, see below)
//   duration  <n>[<unit>]             90s, 10m, 1h, 500ms, 1.5s; a bare number is seconds
//   unit      ms | s | sec | m | min | h   (any case; m is a minute: nothing here is a month)
//
// Written back (durationText, rateText) in the same grammar, so that what esign prints for a user to
// paste (the next command, the sandbox's banner) reads back as the same value.
//
// Spaces around the parts are allowed. A bare count is read as per second, like a bare duration is
// seconds; the batch's own ceiling (`--rate`, `defaults.rate`) still wants its unit written: a
// ceiling is a promise to an API, and "50" for 50 a minute would be 60 times too fast.

export interface Rate {
  count: number;
  perMs: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const UNIT = '(ms|sec|s|min|m|h)';
const RATE_TEXT = new RegExp(String.raw`^\s*${NUMBER}\s*(?:/\s*${NUMBER}?\s*${UNIT})?\s*$`, 'i');
const DURATION_TEXT = new RegExp(String.raw`^\s*${NUMBER}\s*${UNIT}?\s*$`, 'i');

/** What a bad rate must be, after "must be ": for places that want the unit written. */
export const RATE_EXPECTED = 'a count per time, like 100/min, 5/s or 20/30s';
/** The same, for places that take a bare count per second too (the sandbox's --rate-limit). */
export const RATE_OR_COUNT_EXPECTED = 'n per window, like 50, 50/s, 100/min, 1000/h, 50/5s or 0.5/s';
/** What a bad duration must be, after "must be ". */
export const DURATION_EXPECTED = 'a duration, like 90s, 10m or 1h';

export interface RateTextOptions {
  /** A bare count (`50`) is that many per second; otherwise it is not a rate. */
  countAlone?: boolean;
}

/**
 * A rate as written, whatever its count (0 too): the grammar alone, for places that check the
 * count themselves and say more (the sandbox's bounds). Undefined when it is not of that form.
 */
export function readRate(text: string, options: RateTextOptions = {}): Rate | undefined {
  const match = RATE_TEXT.exec(text);
  if (!match) return undefined;
  const unit = match[3]?.toLowerCase();
  if (unit === undefined && !options.countAlone) return undefined;
  const count = Number(match[1]);
  const times = match[2] === undefined ? 1 : Number(match[2]);
  const perMs = times * (UNIT_MS[unit ?? 's'] as number);
  if (!Number.isFinite(count) || !Number.isFinite(perMs)) return undefined;
  return { count, perMs };
}

/** A rate that paces something: a count above 0 per a time above 0. Undefined otherwise. */
export function parseRate(text: string, options: RateTextOptions = {}): Rate | undefined {
  const rate = readRate(text, options);
  if (!rate || !(rate.count > 0) || !(rate.perMs > 0) || !Number.isFinite(rate.count / rate.perMs)) {
    return undefined;
  }
  return rate;
}

/**
 * The same rate as a whole count in a window of whole seconds, for what counts whole requests in
 * whole-second windows (the sandbox's --rate-limit): `0.5/s` is 1 per 2 s, `2.5/s` 5 per 2 s,
 * `50/500ms` 100 per 1 s; a rate already whole (`100/min`) stays as written. Each side is scaled
 * by the least that makes both whole. Undefined when no window of up to `maxSeconds` does.
 */
export function wholeCountWindow(
  rate: Rate,
  maxSeconds: number,
): { count: number; seconds: number } | undefined {
  const seconds = rate.perMs / 1000;
  // Decimals written in the text (at most a few): scaled to integers, exactly.
  const scale = 10 ** Math.max(decimals(rate.count), decimals(seconds));
  const count = Math.round(rate.count * scale);
  const window = Math.round(seconds * scale);
  if (count <= 0 || window <= 0) return undefined;
  const factor = scale / gcd(scale, gcd(count, window));
  const whole = { count: (count * factor) / scale, seconds: (window * factor) / scale };
  if (
    !Number.isSafeInteger(whole.count) ||
    !Number.isSafeInteger(whole.seconds) ||
    whole.seconds > maxSeconds
  ) {
    return undefined;
  }
  return whole;
}

function decimals(value: number): number {
  const text = decimal(value);
  const at = text.indexOf('.');
  return at === -1 ? 0 : Math.min(6, text.length - at - 1);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A duration in whole milliseconds (a bare number is seconds). Undefined when not of that form. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_TEXT.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2]?.toLowerCase() ?? 's'] as number);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** A number in plain decimals (never `1e-7`, which this grammar does not read). */
function decimal(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

const WRITTEN_UNITS: [number, string][] = [
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** Milliseconds in the largest unit that holds them whole: `15m`, `90s`, `1500ms`. */
export function durationText(ms: number): string {
  for (const [size, unit] of WRITTEN_UNITS) {
    if (ms !== 0 && ms % size === 0) return `${decimal(ms / size)}${unit}`;
  }
  return ms === 0 ? '0s' : `${decimal(ms)}ms`;
}

/** A rate as --rate reads it: `100/min`, `5/s`, `20/30s` (a window of one unit without its 1). */
export function rateText(rate: Rate): string {
  const window = durationText(rate.perMs).replace(/m$/, 'min');
  return `${decimal(rate.count)}/${window.replace(/^1(?=[a-z])/, '')}`;
}

/** A size as people read it: "64 MiB", or "32 bytes" below a MiB. */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`;
}

/** A time taken or to wait, to a tenth of a second, as people read it: "1.5 s", "0.0 s". */
export function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * A wait ahead as people read it, in whole seconds rounded up and never "0 s" (a wait of 0.2 s is
 * still one): "Try again in 3 s", "resets in 1 s". The grammar above reads it back.
 */
export function waitText(ms: number): string {
  return `${Math.max(1, Math.ceil(ms / 1000))} s`;
}
