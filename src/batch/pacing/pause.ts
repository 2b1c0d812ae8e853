// The pause regime: a 429 (or a 503 that says when) holds every send until a time, and the time
// waited is counted once however many answers extend the same pause. Pure: `now` is passed in.
import type { RateLimitInfo } from '../../api/rate-limit-headers.js';

/** How far behind `resetAt` sends wait for a reset, for clocks that differ a little. */
export const RESET_MARGIN_MS = 20;
/** How much later than the reset the same 429 may say to retry by rounding and transit alone. */
const RETRY_AFTER_SLACK_MS = 1500;
/**
 * The shortest pause a 429 costs when the server's time says less: a `Retry-After: 0` (or a date
 * gone by), or a reset already past or just ahead on a 429 that follows a pause without a success
 * in between. Retry-After counts in whole seconds, so 0 means "within a second": a second is the
 * longest it can mean, and the same as the first backoff of a 429 that gives no time. Without it,
 * a server that keeps saying 0 gets every worker's request again as fast as the network allows.
 */
export const PAUSE_FLOOR_MS = 1000;

/** Until when every send waits, and how long sends waited in all. */
export class Pause {
  /** Minus infinity when never paused. */
  until = Number.NEGATIVE_INFINITY;
  #start = Number.NEGATIVE_INFINITY;
  #waitedMs = 0;

  /** Every send waits until `until` (a pause that is still on is extended, counted once). */
  extend(now: number, until: number): void {
    if (until <= this.until) return;
    if (this.until <= now) {
      this.#waitedMs += this.#current(now);
      this.#start = now;
    }
    this.until = until;
  }

  /** How long sends were held back in all, at `now` (overlapping pauses counted once). */
  waitedMs(now: number): number {
    return this.#waitedMs + this.#current(now);
  }

  /** How much of the latest pause has gone by at `now`. */
  #current(now: number): number {
    if (!Number.isFinite(this.#start)) return 0;
    return Math.max(0, Math.min(now, this.until) - this.#start);
  }
}

export interface PauseFor429 {
  now: number;
  info: RateLimitInfo;
  /** The reset of the window the quota read last, when it is ahead of `now`. */
  knownReset: number | undefined;
  /** A 429 again once the pause of the one before ended, with no success between. */
  again: boolean;
  /** 429s in a row (this one included), for the backoff. */
  in429Row: number;
  backoffMs: number;
  backoffCapMs: number;
}

/** How long a 429 pauses every send: the time the server gave, else a backoff; never a tight loop. */
export function pauseFor429({
  now,
  info,
  knownReset,
  again,
  in429Row,
  backoffMs,
  backoffCapMs,
}: PauseFor429): number {
  // The reset as best known: the answer's, or the window's as learnt from every answer (a reset in
  // whole seconds from now is late by up to a second).
  const resetAt =
    knownReset !== undefined ? Math.min(knownReset, info.resetAt ?? Number.POSITIVE_INFINITY) : info.resetAt;
  const toReset = resetAt === undefined ? undefined : Math.max(0, resetAt - now) + RESET_MARGIN_MS;
  const retryAfter = info.retryAfterMs;
  // Retry-After in delta-seconds is rounded up to a whole second and was counted when the server
  // got the request, not when its answer arrived: a reset the same answer gives, up to that much
  // earlier, is the more precise of the two (a 429 at a window's edge then costs the rest of the
  // window, not a whole second more). A Retry-After longer than that is a limit of its own.
  const sharper =
    retryAfter !== undefined &&
    toReset !== undefined &&
    toReset < retryAfter &&
    toReset > retryAfter - RETRY_AFTER_SLACK_MS;
  // After a 429 again the reset the server gives did not hold: it is trusted no more than a floor.
  if (toReset !== undefined && (sharper || (retryAfter === undefined && (resetAt as number) > now))) {
    return again ? Math.max(PAUSE_FLOOR_MS, toReset) : toReset;
  }
  if (retryAfter !== undefined) return Math.max(PAUSE_FLOOR_MS, retryAfter);
  return Math.min(backoffCapMs, backoffMs * 2 ** Math.min(in429Row - 1, 20));
}
