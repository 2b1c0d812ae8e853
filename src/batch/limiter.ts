// One rate limiter for the whole batch: every worker asks it for its turn before a request leaves
// and tells it every answer. It is pure (no timers, no clock of its own): `reserve()` says when the
// next request may leave, `answered()` learns from what the API said. `Pacer` (below) is the thin
// asynchronous part that waits for the turns.
//
// - With rate-limit headers (see src/api/rate-limit-headers.ts), sends are spread so that the quota
//   left lasts until the reset, instead of being spent in a burst that ends in 429s.
// - Without them, it adapts: after the first 429 it paces at the rate the API let through (the
//   limit, whatever the window); after a later 429 a few percent below the pace that met it (or the
//   throughput, when that says the pace was far too high). It probes up by 1% a second, and climbs
//   back fast to just below the pace of the last 429 when it is below that.
// - A 429 (or a 503 that says when) pauses every turn until the time the server gave (else a
//   backoff that doubles per 429 in a row).
// - `ceiling` is the user's own --rate.
import type { RateLimitInfo } from '../api/rate-limit-headers.js';

export interface Rate {
  count: number;
  perMs: number;
}

/** `50/s`, `100/min`, `1000/h`, `20/30s`: a count per window. Undefined when not of that form. */
export function parseRate(text: string): Rate | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|sec|m|min|h)\s*$/i.exec(text);
  if (!match) return undefined;
  const count = Number(match[1]);
  const times = match[2] === undefined ? 1 : Number(match[2]);
  const unit = (match[3] as string).toLowerCase();
  const unitMs =
    unit === 'ms' ? 1 : unit === 's' || unit === 'sec' ? 1000 : unit === 'h' ? 3_600_000 : 60_000;
  const perMs = times * unitMs;
  if (!(count > 0) || !(perMs > 0) || !Number.isFinite(count / perMs)) return undefined;
  return { count, perMs };
}

/** `90s`, `10m`, `1h`, `500ms`, or a bare number of seconds. Undefined when not of that form. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$/i.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  const ms = value * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'h' ? 3_600_000 : 60_000);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

export interface LimiterOptions {
  /** The user's own ceiling (--rate). */
  ceiling?: Rate;
  /** The first pause after a 429 that gives no time; it doubles per 429 in a row (capped). */
  backoffMs?: number;
  backoffCapMs?: number;
}

/** What the progress line and the summary show. */
export interface LimiterState {
  /** Requests sent per second over the last few seconds. */
  rate: number;
  /** The quota left in the current window and when it resets, when the API says. */
  remaining?: number;
  limit?: number;
  resetAt?: number;
  /** Until when every send waits for the API (a 429), if now. */
  pausedUntil?: number;
  rateLimited: number;
  /** How long sends were held back by the API's pauses, in total (overlapping pauses counted once). */
  waitedMs: number;
}

/** How far behind `resetAt` sends wait for a reset, for clocks that differ a little. */
const RESET_MARGIN_MS = 20;
/** How much later than the reset the same 429 may say to retry by rounding and transit alone. */
const RETRY_AFTER_SLACK_MS = 1500;
/** Share of the estimated rate paced at without headers, and the probe per second above it. */
const ESTIMATE_SHARE = 0.97;
const PROBE_PER_SECOND = 0.01;
/** 429s closer together than this, without headers, double the decrease of the pace. */
const QUICK_429_MS = 4000;
const MAX_DECREASE = 0.2;
/** How fast the pace climbs back to just below the pace of the last 429, when it is below that. */
const FAST_PROBE_PER_SECOND = 0.2;
const RATE_WINDOW_MS = 3000;

export class RateLimiter {
  readonly #ceilingInterval: number;
  readonly #backoffMs: number;
  readonly #backoffCapMs: number;
  /** The earliest time the next reservation may have. */
  #nextAt = Number.NEGATIVE_INFINITY;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #pauseStart = Number.NEGATIVE_INFINITY;
  #waitedMs = 0;
  #rateLimited = 0;
  #in429Row = 0;

  // What the headers said most recently.
  #limit: number | undefined;
  #remaining: number | undefined;
  #resetAt: number | undefined;
  #windowMs: number | undefined;
  #policyWindow = false;
  #longestToReset = 0;
  #resetStep: number | undefined;
  /** Requests sent since `#remaining` was read (they may not be counted in it yet). */
  #sentSinceQuota = 0;
  #outstanding = 0;
  #inFlight = 0;
  #sentTotal = 0;
  #answeredAny = false;

  // Without headers: the rate paced at after a 429, and what it was estimated from.
  #estimate: number | undefined;
  #estimatedAt = 0;
  #knee: number | undefined;
  #decrease = 1 - ESTIMATE_SHARE;
  /** How long the pause of the latest 429 was. */
  #lastPauseMs = 0;
  #acceptedSince429 = 0;
  #last429At: number | undefined;
  readonly #startedAt: number;

  #recentSends: number[] = [];

  constructor(now: number, options: LimiterOptions = {}) {
    this.#startedAt = now;
    this.#ceilingInterval = options.ceiling ? options.ceiling.perMs / options.ceiling.count : 0;
    this.#backoffMs = options.backoffMs ?? 1000;
    this.#backoffCapMs = options.backoffCapMs ?? 60_000;
  }

  /** True when the limiter never holds anything back (no ceiling, nothing learnt yet). */
  get unlimited(): boolean {
    return (
      this.#ceilingInterval === 0 &&
      this.#remaining === undefined &&
      this.#estimate === undefined &&
      this.#pausedUntil === Number.NEGATIVE_INFINITY
    );
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** How long from `now` every send still waits for the API (0 when not paused). */
  pauseLeft(now: number): number {
    return Math.max(0, this.#pausedUntil - now);
  }

  /**
   * Reserves the next turn: the time at which one more request may leave. Each reservation is
   * either used (`sent`) or given back (`cancel`).
   */
  reserve(now: number): number {
    this.#outstanding++;
    // Slow start: the first request goes alone, so that the API can say its limit before a burst.
    if (!this.#answeredAny && this.#sentTotal + this.#outstanding > 1) return Number.POSITIVE_INFINITY;
    let at = Math.max(now, this.#nextAt, this.#pausedUntil);
    const quota = this.#quotaLeft(at);
    if (quota !== undefined && quota <= 0 && this.#resetAt !== undefined) {
      at = Math.max(at, this.#resetAt + RESET_MARGIN_MS);
    }
    this.#nextAt = at + this.#interval(at);
    return at;
  }

  /** A reservation that will not be used (a pause began while waiting for it). */
  cancel(): void {
    this.#outstanding = Math.max(0, this.#outstanding - 1);
  }

  /** A reservation is used: the request leaves now. Returns its number, for `answered`. */
  sent(now: number): number {
    this.#outstanding = Math.max(0, this.#outstanding - 1);
    this.#inFlight++;
    this.#sentSinceQuota++;
    this.#sentTotal++;
    this.#recentSends.push(now);
    if (this.#recentSends.length > 4096) this.#recentSends.splice(0, 2048);
    return this.#sentTotal;
  }

  /** A request that never got an answer (network error). */
  lost(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#answeredAny = true;
  }

  /**
   * Learns from an answer: its status and its rate-limit headers; `sent` is the number `sent()` gave
   * its request. Returns for how long (from `now`) every send is paused when the answer was a 429
   * (or a 503 that said when), else undefined.
   */
  answered(now: number, status: number, info: RateLimitInfo, sent = this.#sentTotal): number | undefined {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#answeredAny = true;
    this.#learnQuota(now, info, sent);
    if (status === 429) {
      this.#rateLimited++;
      this.#in429Row++;
      // The reset as best known: the answer's, or the window's as learnt from every answer (a
      // reset in whole seconds from now is late by up to a second; see #nextReset).
      const resetAt =
        this.#resetAt !== undefined && this.#resetAt > now && this.#remaining !== undefined
          ? Math.min(this.#resetAt, info.resetAt ?? Number.POSITIVE_INFINITY)
          : info.resetAt;
      const toReset = resetAt === undefined ? undefined : Math.max(0, resetAt - now) + RESET_MARGIN_MS;
      // Retry-After in delta-seconds is rounded up to a whole second and was counted when the server
      // got the request, not when its answer arrived: a reset the same answer gives, up to that much
      // earlier, is the more precise of the two (a 429 at a window's edge then costs the rest of the
      // window, not a whole second more). A Retry-After longer than that is a limit of its own.
      const given =
        info.retryAfterMs !== undefined &&
        toReset !== undefined &&
        toReset < info.retryAfterMs &&
        toReset > info.retryAfterMs - RETRY_AFTER_SLACK_MS
          ? toReset
          : (info.retryAfterMs ?? (resetAt !== undefined && resetAt > now ? toReset : undefined));
      const wait =
        given ?? Math.min(this.#backoffCapMs, this.#backoffMs * 2 ** Math.min(this.#in429Row - 1, 20));
      this.#learn429(now, wait);
      if (this.#pausedUntil <= now) this.#lastPauseMs = wait;
      this.#pause(now, now + wait);
      return this.pauseLeft(now);
    }
    if (status === 503 && info.retryAfterMs !== undefined) {
      this.#pause(now, now + info.retryAfterMs);
      return this.pauseLeft(now);
    }
    if (status >= 200 && status < 300) {
      this.#in429Row = 0;
      this.#acceptedSince429++;
    }
    return undefined;
  }

  state(now: number): LimiterState {
    while (this.#recentSends.length > 0 && (this.#recentSends[0] as number) < now - RATE_WINDOW_MS) {
      this.#recentSends.shift();
    }
    const span = Math.min(RATE_WINDOW_MS, now - this.#startedAt);
    const resetAt = this.#resetAt !== undefined && this.#resetAt > now ? this.#resetAt : undefined;
    return {
      rate: span > 0 ? (this.#recentSends.length * 1000) / span : 0,
      remaining: resetAt === undefined ? undefined : this.#remaining,
      limit: this.#limit,
      resetAt,
      pausedUntil: this.#pausedUntil > now ? this.#pausedUntil : undefined,
      rateLimited: this.#rateLimited,
      waitedMs: this.#waitedMs + this.#currentPause(now),
    };
  }

  /** The quota left at `at`, counting requests sent or about to be since the headers said it. */
  #quotaLeft(at: number): number | undefined {
    if (this.#remaining === undefined) return undefined;
    if (this.#resetAt !== undefined && at >= this.#resetAt) {
      return this.#limit === undefined ? undefined : this.#limit - this.#outstanding - this.#inFlight;
    }
    return this.#remaining - this.#sentSinceQuota - this.#outstanding;
  }

  /** The spacing after a send at `at`: the largest of the ceiling, the quota's and the estimate's. */
  #interval(at: number): number {
    let interval = this.#ceilingInterval;
    if (this.#limit !== undefined && this.#windowMs !== undefined && this.#windowMs > 0) {
      interval = Math.max(interval, this.#windowMs / this.#limit);
    }
    const quota = this.#quotaLeft(at);
    if (quota !== undefined && quota > 0 && this.#resetAt !== undefined && this.#resetAt > at) {
      // `quota` more after this one, spaced so that the last leaves before the reset, not at it.
      interval = Math.max(interval, (this.#resetAt - at) / (quota + 1));
    }
    if (this.#estimate !== undefined) interval = Math.max(interval, 1000 / this.#probed(at));
    return interval;
  }

  /** The rate paced at without headers: the estimate, probed up since it was made. */
  #probed(at: number): number {
    const estimate = this.#estimate ?? 0;
    const seconds = Math.max(0, at - this.#estimatedAt) / 1000;
    const slow = estimate * (1 + PROBE_PER_SECOND * seconds);
    if (this.#knee === undefined) return slow;
    const below = this.#knee * (1 - this.#decrease);
    return Math.max(slow, Math.min(estimate * (1 + FAST_PROBE_PER_SECOND * seconds), below));
  }

  #learnQuota(now: number, info: RateLimitInfo, sent: number): void {
    if (info.limit !== undefined) this.#limit = info.limit;
    if (info.windowMs !== undefined) {
      this.#windowMs = info.windowMs;
      this.#policyWindow = true;
    }
    if (info.remaining === undefined || info.resetAt === undefined) return;
    // The window's length, when no policy says it: the shortest step from one reset to the next,
    // and until two resets were seen, the longest time to a reset (short of the window by however
    // far into its window the first answer came).
    if (!this.#policyWindow && info.resetAt > now) {
      this.#longestToReset = Math.max(this.#longestToReset, Math.min(info.resetAt - now, 3_600_000));
      const step = this.#resetAt === undefined ? 0 : info.resetAt - this.#resetAt;
      if (step >= this.#longestToReset && step < (this.#resetStep ?? Number.POSITIVE_INFINITY)) {
        this.#resetStep = step;
      }
      this.#windowMs = this.#resetStep ?? this.#longestToReset;
    }
    // A new window: the first reading, the old reset gone by, or more left than before. Otherwise
    // the same window (answers come back out of order): the fewest left and the earliest reset
    // count (a reset in whole seconds from now is late by up to a second; the earliest is closest).
    const fresh =
      this.#resetAt === undefined ||
      this.#remaining === undefined ||
      now >= this.#resetAt ||
      info.remaining > this.#remaining;
    if (fresh) {
      this.#remaining = info.remaining;
      this.#resetAt = this.#nextReset(now, info.resetAt);
    } else {
      const fewer = info.remaining < (this.#remaining as number);
      this.#resetAt = Math.min(this.#resetAt as number, info.resetAt);
      if (!fewer) return;
      this.#remaining = info.remaining;
    }
    // Requests sent after this one may not be counted in it yet.
    this.#sentSinceQuota = Math.max(0, this.#sentTotal - sent);
  }

  /**
   * The reset of a new window: the one read, or when the window's length is known (a policy, or
   * the step between resets), the last reset moved on by whole windows if that is earlier. A reset
   * in whole seconds from now is late by up to a second; carried on, the earliest reading of every
   * window counts, not only this window's.
   */
  #nextReset(now: number, read: number): number {
    const last = this.#resetAt;
    const window = this.#policyWindow ? this.#windowMs : this.#resetStep;
    if (last === undefined || window === undefined || window <= 0) return read;
    const carried = last + Math.max(1, Math.ceil((now - last) / window)) * window;
    return carried > now && carried < read && read - carried < Math.min(window, 1000) ? carried : read;
  }

  #learn429(now: number, wait: number): void {
    if (this.#remaining !== undefined) return; // the headers pace it
    const since = this.#last429At ?? this.#startedAt;
    const span = now - since;
    // Learnt once per pause (the 429s of one burst say the same).
    if (this.#pausedUntil <= now && span > 0 && this.#acceptedSince429 > 0) {
      const throughput = (this.#acceptedSince429 * 1000) / span;
      // While sending: without the pause the last 429 cost (a Retry-After rounded up to a second
      // can take most of the next window).
      const active = (this.#acceptedSince429 * 1000) / Math.max(span - this.#lastPauseMs, span / 10);
      // Paced when the 429 came: the rate paced at was just over the limit, and the throughput
      // since the last 429 is short of it by the pause that 429 cost. A decrease by a few percent
      // from the pace, then, unless the throughput says the limit fell far below the pace.
      const paced = this.#estimate === undefined ? undefined : this.#probed(now);
      const consistent = paced !== undefined && active >= paced / 2;
      if (paced === undefined) {
        // The first 429, after an unpaced burst: what got through, spread over the burst and the
        // pause to come, is at most the limit; over the pause alone (the rest of the window, when
        // the server says when it ends), about the limit. Pace at the first, climb to the second.
        const count = this.#acceptedSince429 * 1000;
        this.#estimate = Math.max(0.05, (count / (span + wait)) * ESTIMATE_SHARE);
        this.#knee = count / Math.max(span, wait);
      } else {
        // The decrease doubles while 429s keep coming within a few seconds of each other.
        this.#decrease =
          span < QUICK_429_MS ? Math.min(MAX_DECREASE, this.#decrease * 2) : 1 - ESTIMATE_SHARE;
        const base = consistent ? paced : throughput;
        this.#estimate = Math.max(0.05, base * (1 - this.#decrease));
        // Where the limit lies at most: the pace that met the 429 (or halfway to it, when the
        // throughput says the pace was far too high). Probing climbs back fast to just below it.
        this.#knee = consistent ? paced : (paced + active) / 2;
      }
      this.#estimatedAt = now;
      this.#acceptedSince429 = 0;
      this.#last429At = now;
    } else if (this.#pausedUntil <= now && this.#estimate !== undefined) {
      this.#estimate = Math.max(0.05, this.#estimate / 2);
      this.#estimatedAt = now;
      this.#last429At = now;
    } else if (this.#last429At === undefined) {
      this.#last429At = now;
    }
  }

  /** How much of the latest pause has gone by at `now`. */
  #currentPause(now: number): number {
    if (!Number.isFinite(this.#pauseStart)) return 0;
    return Math.max(0, Math.min(now, this.#pausedUntil) - this.#pauseStart);
  }

  #pause(now: number, until: number): void {
    if (until <= this.#pausedUntil) return;
    // A pause that is still on is extended (counted once); one that ended is added to the total.
    if (this.#pausedUntil <= now) {
      this.#waitedMs += this.#currentPause(now);
      this.#pauseStart = now;
    }
    this.#pausedUntil = until;
    this.#nextAt = Math.max(this.#nextAt, until);
  }
}

/**
 * The asynchronous side of the limiter: waits for a worker's turn. All waits share one listener on
 * `signal` (an abort ends every wait at once), so 64 workers add no 64 listeners.
 */
export class Pacer {
  readonly #waits = new Set<{ timer: NodeJS.Timeout | undefined; done: () => void }>();
  /** Turns waiting for the next answer (slow start). */
  #parked: (() => void)[] = [];

  constructor(
    readonly limiter: RateLimiter,
    private readonly clock: () => number,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.#wakeAll(), { once: true });
  }

  /**
   * The caller's turn to send: the send's number at once (no promise) when it may go now, else a
   * promise of it when it may go, or `false` when the run was stopped first. The send is counted.
   */
  turn(): number | false | Promise<number | false> {
    if (this.signal.aborted) return false;
    const now = this.clock();
    const at = this.limiter.reserve(now);
    if (at <= now) return this.limiter.sent(now);
    return this.#waitFor(at);
  }

  /** `RateLimiter.answered`, waking the turns that wait for an answer. */
  answered(...args: Parameters<RateLimiter['answered']>): number | undefined {
    const pause = this.limiter.answered(...args);
    this.#wakeParked();
    return pause;
  }

  /** `RateLimiter.lost`, waking the turns that wait for an answer. */
  lost(): void {
    this.limiter.lost();
    this.#wakeParked();
  }

  #wakeParked(): void {
    if (this.#parked.length === 0) return;
    for (const wake of this.#parked.splice(0)) wake();
  }

  /** Waits `ms` (ended early by the signal); false when the run was stopped. */
  async sleep(ms: number): Promise<boolean> {
    if (this.signal.aborted) return false;
    await new Promise<void>((resolve) => {
      const wait = {
        timer: setTimeout(() => {
          this.#waits.delete(wait);
          resolve();
        }, ms),
        done: resolve,
      };
      this.#waits.add(wait);
    });
    return !this.signal.aborted;
  }

  async #waitFor(at: number): Promise<number | false> {
    for (;;) {
      if (at === Number.POSITIVE_INFINITY) {
        await new Promise<void>((resolve) => {
          const wait = { timer: undefined, done: resolve };
          this.#waits.add(wait);
          this.#parked.push(() => {
            this.#waits.delete(wait);
            resolve();
          });
        });
        this.limiter.cancel();
        if (this.signal.aborted) return false;
        at = this.limiter.reserve(this.clock());
        continue;
      }
      const going = await this.sleep(at - this.clock());
      if (!going) {
        this.limiter.cancel();
        return false;
      }
      const now = this.clock();
      // A pause that began while this turn was waiting moves it behind the pause.
      if (this.limiter.pauseLeft(now) > 0) {
        this.limiter.cancel();
        at = this.limiter.reserve(now);
        continue;
      }
      return this.limiter.sent(now);
    }
  }

  #wakeAll(): void {
    for (const wait of this.#waits) {
      clearTimeout(wait.timer);
      wait.done();
    }
    this.#waits.clear();
  }
}
