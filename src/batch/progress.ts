// The live progress line of a batch on a terminal: done/total, failures, the send rate, the API's
// quota when it says, a pause for the API, and time left. Whether to show it and in colour is the
// run's terminal decision (ctx.terminal), taken through the one spinner of io/spinner.ts.
import type { Context } from '../context.js';
import { startSpinner } from '../io/spinner.js';
import { waitText } from '../text/units.js';
import type { LimiterState, RateLimiter } from './pacing/rate-limiter.js';
import type { BatchCounts } from './run-batch.js';

export interface Progress {
  update: (counts: BatchCounts) => void;
  stop: () => void;
}

const NONE: Progress = { update: () => {}, stop: () => {} };

/** The progress text (pure, for tests). `settled`: records done before sending started. */
export function progressText(
  counts: BatchCounts,
  limits: LimiterState,
  total: number,
  now: number,
  left: number | undefined,
): string {
  const done = counts.created + counts.failed + counts.unknown + counts.skipped;
  const parts = [
    `${done}/${total} done`,
    `${counts.failed + counts.unknown} failed or unknown`,
    `${limits.rate.toFixed(0)}/s`,
  ];
  if (limits.remaining !== undefined && limits.resetAt !== undefined) {
    const of = limits.limit === undefined ? '' : `/${limits.limit}`;
    parts.push(`quota ${limits.remaining}${of} left, resets in ${waitText(limits.resetAt - now)}`);
  }
  if (limits.pausedUntil !== undefined) {
    parts.push(`paused: the API asked to wait ${waitText(limits.pausedUntil - now)}`);
  }
  if (left !== undefined) parts.push(`${left.toFixed(0)} s left`);
  return parts.join(' · ');
}

/** A live line on stderr when it is a terminal; nothing otherwise. */
export async function startProgress(
  ctx: Context,
  total: number,
  settled: number,
  limiter: RateLimiter,
): Promise<Progress> {
  if (!ctx.terminal.animations) return NONE;
  const spinner = await startSpinner(ctx, `0/${total}`);
  const started = Date.now();
  let last = 0;
  let latest: BatchCounts = { created: 0, failed: 0, unknown: 0, skipped: settled };
  const render = () => {
    const now = Date.now();
    last = now;
    const done = latest.created + latest.failed + latest.unknown + latest.skipped;
    const rate = (done - settled) / ((now - started) / 1000);
    const left = rate > 0 ? (total - done) / rate : undefined;
    spinner.setText(progressText(latest, limiter.state(now), total, now, left));
  };
  // Also while nothing settles (a pause for the API), so that the line says why.
  const ticker = setInterval(render, 500);
  ticker.unref();
  return {
    update: (counts) => {
      latest = counts;
      if (Date.now() - last >= 100) render();
    },
    stop: () => {
      clearInterval(ticker);
      spinner.stop();
    },
  };
}
