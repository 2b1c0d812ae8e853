// The progress of a batch: on a terminal, a live line (done/total, failures, the send rate, the
// API's quota when it says, a pause for the API, time left) fitted to the terminal's width; off one
// (a CI log, a file), a plain line at least every 10 s for a run that lasts longer. Whether the live
// line is drawn, and in colour, is the run's terminal decision (ctx.terminal), taken through the
// one spinner of io/spinner.ts.
import type { LimiterState, RateLimiter } from '../batch/pacing/rate-limiter.js';
import type { BatchCounts } from '../batch/report.js';
import type { Context } from '../context.js';
import { waitText } from '../text/units.js';
import { startSpinner } from './spinner.js';

export interface Progress {
  update: (counts: BatchCounts) => void;
  stop: () => void;
}

const NONE: Progress = { update: () => {}, stop: () => {} };

const SEPARATOR = ' · ';

/**
 * The progress text (pure, for tests). `left`: seconds left, when known. `width`: the columns it
 * may take; the parts that matter least go first when it would not fit (then the rest is cut).
 */
export function progressText(
  counts: BatchCounts,
  limits: LimiterState,
  total: number,
  at: { now: number; left?: number | undefined; width?: number | undefined },
): string {
  const { now, left, width } = at;
  const done = counts.created + counts.failed + counts.unknown + counts.skipped;
  // [text, rank]: the lowest rank is left out first when the line is too wide.
  const parts: [string, number][] = [
    [`${done}/${total} done`, 9],
    [`${counts.failed + counts.unknown} failed or unknown`, 8],
    // A slow pace keeps its tenths: 0.4/s is not 0/s.
    [`${limits.rate.toFixed(limits.rate < 10 ? 1 : 0)}/s`, 4],
  ];
  if (limits.remaining !== undefined && limits.resetAt !== undefined) {
    const of = limits.limit === undefined ? '' : `/${limits.limit}`;
    parts.push([`quota ${limits.remaining}${of} left, resets in ${waitText(limits.resetAt - now)}`, 3]);
  }
  if (limits.pausedUntil !== undefined) {
    parts.push([`paused: the API asked to wait ${waitText(limits.pausedUntil - now)}`, 6]);
  }
  if (left !== undefined) parts.push([`${left.toFixed(0)} s left`, 5]);
  return fitParts(parts, width);
}

/** The parts joined, leaving out the least important ones until the line fits `width`. */
function fitParts(parts: [string, number][], width: number | undefined): string {
  const kept = [...parts];
  const text = () => kept.map(([part]) => part).join(SEPARATOR);
  if (width === undefined) return text();
  while (text().length > width && kept.length > 1) {
    const least = kept.reduce((low, part, index) => (part[1] < (kept[low]?.[1] ?? 0) ? index : low), 0);
    kept.splice(least, 1);
  }
  const line = text();
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * The columns the live line's text may take: the terminal's width less the spinner's frame and
 * space, and one column so that the cursor never wraps to the next line.
 */
function liveWidth(ctx: Context): number | undefined {
  const columns = ctx.terminal.width;
  return columns === undefined ? undefined : Math.max(10, columns - 3);
}

/** How often, at most, a plain progress line is written off a terminal. */
const PLAIN_PROGRESS_EVERY_MS = 10_000;
/**
 * In accessible mode at a terminal, a plain line at this fixed pace instead of the live line: slow
 * enough that a screen reader finishes one before the next.
 */
export const ACCESSIBLE_PROGRESS_EVERY_MS = 30_000;
/** How often the time is looked at between records (a pause for the API settles none). */
const PLAIN_TICK_MS = 1000;

/**
 * The progress of a run: a live line on a terminal; off one, a plain line on stderr at least every
 * PLAIN_PROGRESS_EVERY_MS of `ctx.now()` once the run has lasted that long (not under --json, whose
 * stderr is one JSON object). `clock`: the run's clock, which the rate limiter's times are on.
 */
export async function startProgress(
  ctx: Context,
  run: {
    total: number;
    /** Records settled before the run (skipped, unknown). */
    settled: number;
    limiter: RateLimiter;
    /** Under --json, stderr is one JSON object: no plain progress lines there. */
    json?: boolean | undefined;
    clock?: () => number;
  },
): Promise<Progress> {
  const { total, settled, limiter } = run;
  const clock = run.clock ?? Date.now;
  if (run.json) return NONE;
  if (ctx.terminal.plainProgress) {
    ctx.stderr.write(
      `Sending ${total} ${total === 1 ? 'record' : 'records'}; a progress line follows every ${ACCESSIBLE_PROGRESS_EVERY_MS / 1000} seconds.\n`,
    );
    return plainProgress(ctx, run, clock, { everyMs: ACCESSIBLE_PROGRESS_EVERY_MS, fixed: true });
  }
  if (!ctx.terminal.animations) return plainProgress(ctx, run, clock);
  const spinner = await startSpinner(ctx, `0/${total}`);
  const started = clock();
  let last = 0;
  let latest: BatchCounts = { created: 0, failed: 0, unknown: 0, skipped: settled };
  const render = () => {
    const now = clock();
    last = now;
    const done = latest.created + latest.failed + latest.unknown + latest.skipped;
    const rate = (done - settled) / ((now - started) / 1000);
    const left = rate > 0 ? (total - done) / rate : undefined;
    spinner.setText(progressText(latest, limiter.state(now), total, { now, left, width: liveWidth(ctx) }));
  };
  // Also while nothing settles (a pause for the API), so that the line says why.
  const ticker = setInterval(render, 500);
  ticker.unref();
  return {
    update: (counts) => {
      latest = counts;
      if (clock() - last >= 100) render();
    },
    stop: () => {
      clearInterval(ticker);
      spinner.stop();
    },
  };
}

/**
 * Off a terminal: `progress: <the same text>` on a line of its own, once PLAIN_PROGRESS_EVERY_MS of
 * the context's clock went by since the start or the last one, looked at when a record settles and
 * every second (a pause for the API settles none). Time left is from this run's own pace.
 * `pace.fixed` (accessible mode): a line every `pace.everyMs` exactly, whatever settles.
 */
function plainProgress(
  ctx: Context,
  { total, settled, limiter }: { total: number; settled: number; limiter: RateLimiter },
  clock: () => number,
  pace: { everyMs: number; fixed: boolean } = { everyMs: PLAIN_PROGRESS_EVERY_MS, fixed: false },
): Progress {
  const now = () => ctx.now().getTime();
  const started = now();
  // Checked every second: written a second early rather than a second late.
  const tick = pace.fixed ? pace.everyMs : PLAIN_TICK_MS;
  let due = started + pace.everyMs - tick;
  let latest: BatchCounts = { created: 0, failed: 0, unknown: 0, skipped: settled };
  const check = () => {
    const at = now();
    if (at < due) return;
    due = at + pace.everyMs - tick;
    const done = latest.created + latest.failed + latest.unknown + latest.skipped;
    const rate = (done - settled) / Math.max(0.001, (at - started) / 1000);
    const left = rate > 0 ? (total - done) / rate : undefined;
    const limits = { ...limiter.state(clock()), rate };
    ctx.stderr.write(`progress: ${progressText(latest, limits, total, { now: clock(), left })}\n`);
  };
  const ticker = setInterval(check, tick);
  ticker.unref();
  return {
    update: (counts) => {
      latest = counts;
      if (!pace.fixed) check();
    },
    stop: () => clearInterval(ticker),
  };
}
