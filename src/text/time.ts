// Times as people read them: "2026-12-22 10:15 UTC" and "in 30 days".

export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const DAY = 24 * 3600;
const UNITS: [string, number][] = [
  ['year', 365 * DAY],
  ['month', (365 * DAY) / 12],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/**
 * "in 30 days", "in 5 hours", "3 minutes ago". Days up to 90, so "in 30 days" is not "in 1 month";
 * months below a year; years from 365 days, so 365 days is "in 1 year", not "in 12 months".
 * English only, as every message is: written out rather than through Intl.RelativeTimeFormat, whose
 * first use loads ICU's locale data, the largest single cost of a create's start (about 10 ms).
 */
export function formatRelative(target: Date, now: Date): string {
  const seconds = Math.round((target.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  for (const [unit, size] of UNITS) {
    if (unit === 'month' && abs < 91 * DAY) continue;
    if (abs >= size || unit === 'second') return relative(Math.round(seconds / size), unit);
  }
  return relative(seconds, 'second');
}

/** `count` of `unit` from now, as `new Intl.RelativeTimeFormat('en').format(count, unit)` says it. */
function relative(count: number, unit: string): string {
  const past = count < 0 || Object.is(count, -0);
  const size = Math.abs(count);
  const amount = `${String(size).replace(/\B(?=(\d{3})+$)/g, ',')} ${unit}${size === 1 ? '' : 's'}`;
  return past ? `${amount} ago` : `in ${amount}`;
}
