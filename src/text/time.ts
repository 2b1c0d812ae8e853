// Times as people read them: "2026-12-22 10:15 UTC" and "in 30 days".

export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const DAY = 24 * 3600;
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
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
 */
export function formatRelative(target: Date, now: Date): string {
  const seconds = Math.round((target.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
  for (const [unit, size] of UNITS) {
    if (unit === 'month' && abs < 91 * DAY) continue;
    if (abs >= size || unit === 'second') return format.format(Math.round(seconds / size), unit);
  }
  return format.format(seconds, 'second');
}
