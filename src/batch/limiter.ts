// One rate limiter for the whole batch: every worker asks it for its turn before a request leaves
// and tells it every answer. It is pure (no timers, no clock of its own): `nextAt()` says when the
// next request may leave, `answered()` learns from what the API said. `Pacer` (below) is the thin
// asynchronous part: one queue of waiting workers and one timer, so that each send is decided when
// it is due, from everything learnt until then (turns booked ahead would be spaced by what was
// known when they were booked, and a new window's quota would be read too late to use).
//
// - With rate-limit headers (see src/api/rate-limit-headers.ts), sends are spread so that the quota
//   left lasts until the window ends, instead of being spent in a burst that ends in 429s. Where a
//   window ends for our sends is learnt from which window each answer counted in (#windowEndsAt).
// - Without them, it adapts: the start goes in rounds (#round); after the first 429 it paces at the
//   rate the API let through, and probes up by 1% a second; after a later 429, a few percent below
//   the pace that met it (or the throughput, when that says the pace was far too high), climbing
//   back fast to below that pace by the decrease, at 1% a second to just below it, and at 0.1% a
//   second past it: each 429 can cost a window when Retry-After rounds up to a whole second.
// - A 429 (or a 503 that says when) pauses every turn until the time the server gave (else a
//   backoff that doubles per 429 in a row).
// - `ceiling` is the user's own --rate.
import type { RateLimitInfo } from '../api/rate-limit-headers.js';
import type { Rate } from '../text/units.js';

export interface LimiterOptions {
  /** The user's own ceiling (--rate). */
  ceiling?: Rate;
  /** The most requests ever in flight (--concurrency): the start's rounds end there. */
  concurrency?: number;
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
/** The probe per second past just below the pace of the last 429 (the limit found stays put). */
const PAST_KNEE_PER_SECOND = 0.001;
/** 429s closer together than this, without headers, double the decrease of the pace. */
const QUICK_429_MS = 4000;
const MAX_DECREASE = 0.2;
/** How fast the pace climbs back to just below the pace of the last 429, when it is below that. */
const FAST_PROBE_PER_SECOND = 0.2;
const RATE_WINDOW_MS = 3000;
/** The last round of the start (--concurrency's most): after it, the requests in flight are not held back. */
const MAX_ROUND = 64;
/** How many send times are kept (far more than can be in flight). */
const SEND_TIMES = 8192;
/**
 * The shortest pause a 429 costs when the server's time says less: a `Retry-After: 0` (or a date
 * gone by), or a reset already past or just ahead on a 429 that follows a pause without a success
 * in between. Retry-After counts in whole seconds, so 0 means "within a second": a second is the
 * longest it can mean, and the same as the first backoff of a 429 that gives no time. Without it,
 * a server that keeps saying 0 gets every worker's request again as fast as the network allows.
 */
export const PAUSE_FLOOR_MS = 1000;
/** How late a send may be and the next still be spaced from when it was due. */
const LATE_TOLERANCE_MS = 10;

export class RateLimiter {
  readonly #ceilingInterval: number;
  readonly #backoffMs: number;
  readonly #backoffCapMs: number;
  readonly #lastRound: number;
  /** When the latest request left, and when it was due (see `sent`). */
  #lastSentAt: number | undefined;
  #lastDueAt: number | undefined;
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
  /**
   * When the window read last ends in terms of our sends, once learnt: a request sent after it
   * counts in the next window. The API counts a request when it gets it, a little (or, if it counts
   * after its work, a whole round trip) after it left, and a reset in whole seconds from now is
   * late by up to a second: the reset alone would end each window early by that much, or late.
   * Learnt from which requests each window's answers counted, and kept while they agree with it.
   */
  #windowEndsAt: number | undefined;
  /** The latest send counted in the window read last (for #windowEndsAt). */
  #latestSendInWindow = Number.NEGATIVE_INFINITY;
  /** When each of the latest requests left, by the number `sent()` gave it. */
  readonly #sendTimes = new Float64Array(SEND_TIMES);
  /** The number of the request whose answer told of the window read last. */
  #openedBy = 0;
  /** Requests sent since `#remaining` was read (they may not be counted in it yet). */
  #sentSinceQuota = 0;
  #inFlight = 0;
  #sentTotal = 0;
  /**
   * Until the API tells its quota or answers a 429, requests go in rounds, each once the one before
   * is all answered (as TCP's slow start): the first alone (so that the API can say its limit
   * before a burst), then twice as many each round up to 16, then half as many again up to the
   * concurrency (at most 64). An API that never tells its limit then meets part of a round too
   * many in its first window, not every worker at once and again as each comes back (growing by
   * half from 16 on keeps that part small when the rounds before fill most of a window).
   */
  #round: { size: number; sent: number; answered: number } | undefined = { size: 1, sent: 0, answered: 0 };

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
    this.#lastRound = Math.min(MAX_ROUND, options.concurrency ?? MAX_ROUND);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Until when every send waits for the API (minus infinity when it never paused). */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** How long from `now` every send still waits for the API (0 when not paused). */
  #pauseLeft(now: number): number {
    return Math.max(0, this.#pausedUntil - now);
  }

  /**
   * When the next request may leave, as far as is known at `now` (never before `now`); infinity
   * while it waits for an answer (see #round; and a new window's quota may all be in flight).
   */
  nextAt(now: number): number {
    const due = this.#due(now);
    // "Never" waits for an answer; with nothing in flight none will come: one request goes after
    // the pause and a floor (a quota of zero reads its next window so, instead of hanging).
    if (due === Number.POSITIVE_INFINITY && this.#inFlight === 0) return Math.max(now, this.#probeAt());
    return Math.max(now, due);
  }

  /** When a request may go to learn more, when nothing in flight will tell. */
  #probeAt(): number {
    const last = this.#lastSentAt ?? Number.NEGATIVE_INFINITY;
    return Math.max(this.#pausedUntil, last + PAUSE_FLOOR_MS);
  }

  /**
   * When the next request is due (it may have gone by): the spacing counts from when the latest
   * one was due, so that timers that fire late (by a millisecond, on any machine) do not slow every
   * send down by that much. The user's ceiling counts from when it actually left.
   */
  #due(now: number): number {
    if (this.#round && this.#round.sent >= this.#round.size) return Number.POSITIVE_INFINITY;
    let due = this.#pausedUntil;
    if (this.#lastSentAt !== undefined) due = Math.max(due, this.#lastSentAt + this.#ceilingInterval);
    const last = this.#lastDueAt;
    const end = this.#windowEnd();
    if (this.#remaining !== undefined && end !== undefined && Math.max(now, due) < end.at) {
      // Within the window the headers told of: what is left of its quota, spread so that the last
      // request leaves before the window ends, not at it.
      const left = this.#remaining - this.#sentSinceQuota;
      if (left <= 0) due = end.at + end.margin;
      else if (last !== undefined) {
        due = Math.max(due, last + this.#spacing(last, false), last + (end.at - last) / (left + 1));
      }
    } else if (last !== undefined) {
      due = Math.max(due, last + this.#spacing(last, true));
    }
    if (
      this.#remaining !== undefined &&
      end !== undefined &&
      this.#limit !== undefined &&
      Math.max(now, due) >= end.at &&
      this.#limit - this.#inFlight <= 0
    ) {
      // A window not read yet: its quota is the limit, less the requests whose answers are awaited
      // (they may count in it). When they are as many, the next answer tells more.
      return Number.POSITIVE_INFINITY;
    }
    return due;
  }

  /** A request leaves now. Returns its number, for `answered`. */
  sent(now: number): number {
    // Late by up to LATE_TOLERANCE_MS: the next is spaced from when this one was due. Later than that
    // (the process was held up), from a little before now: no burst to catch up.
    this.#lastDueAt = Math.max(Math.min(now, this.#due(now)), now - LATE_TOLERANCE_MS);
    this.#lastSentAt = now;
    this.#inFlight++;
    this.#sentSinceQuota++;
    this.#sentTotal++;
    if (this.#round) this.#round.sent++;
    this.#sendTimes[this.#sentTotal % SEND_TIMES] = now;
    this.#recentSends.push(now);
    if (this.#recentSends.length > 4096) this.#recentSends.splice(0, 2048);
    return this.#sentTotal;
  }

  /** A request that never got an answer (network error). */
  lost(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#roundAnswered(false);
  }

  /**
   * Learns from an answer: its status and its rate-limit headers; `sent` is the number `sent()` gave
   * its request. Returns for how long (from `now`) every send is paused when the answer was a 429
   * (or a 503 that said when), else undefined.
   */
  answered(now: number, status: number, info: RateLimitInfo, sent = this.#sentTotal): number | undefined {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#learnQuota(now, info, sent);
    this.#roundAnswered(status === 429 || this.#remaining !== undefined);
    if (status === 429) {
      this.#rateLimited++;
      this.#in429Row++;
      const wait = this.#pauseFor429(now, info);
      this.#learn429(now, wait);
      if (this.#pausedUntil <= now) this.#lastPauseMs = wait;
      this.#pause(now, now + wait);
      return this.#pauseLeft(now);
    }
    if (status === 503 && info.retryAfterMs !== undefined) {
      this.#pause(now, now + info.retryAfterMs);
      return this.#pauseLeft(now);
    }
    if (status >= 200 && status < 300) {
      this.#in429Row = 0;
      this.#acceptedSince429++;
    }
    return undefined;
  }

  /** How long a 429 pauses every send: the time the server gave, else a backoff; never a tight loop. */
  #pauseFor429(now: number, info: RateLimitInfo): number {
    // The reset as best known: the answer's, or the window's as learnt from every answer (a
    // reset in whole seconds from now is late by up to a second; see #nextReset).
    const resetAt =
      this.#resetAt !== undefined && this.#resetAt > now && this.#remaining !== undefined
        ? Math.min(this.#resetAt, info.resetAt ?? Number.POSITIVE_INFINITY)
        : info.resetAt;
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
    // A 429 again once the pause of the one before ended, with no success between: the reset the
    // server gives did not hold, and is trusted no more than a floor.
    const again = this.#in429Row > 1 && this.#pausedUntil <= now;
    if (sharper) return again ? Math.max(PAUSE_FLOOR_MS, toReset) : toReset;
    if (retryAfter !== undefined) return Math.max(PAUSE_FLOOR_MS, retryAfter);
    if (resetAt !== undefined && resetAt > now) {
      return again ? Math.max(PAUSE_FLOOR_MS, toReset as number) : (toReset as number);
    }
    return Math.min(this.#backoffCapMs, this.#backoffMs * 2 ** Math.min(this.#in429Row - 1, 20));
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

  /**
   * The spacing after a send due at `at`: the estimate's (without headers) and, `unread` (a window
   * whose quota is not known yet), the limit spread over the window.
   */
  #spacing(at: number, unread: boolean): number {
    let spacing = 0;
    if (
      unread &&
      this.#limit !== undefined &&
      this.#limit > 0 &&
      this.#windowMs !== undefined &&
      this.#windowMs > 0
    ) {
      spacing = Math.max(spacing, this.#windowMs / this.#limit);
    }
    if (this.#estimate !== undefined) spacing = Math.max(spacing, 1000 / this.#probed(at));
    return spacing;
  }

  /** The rate paced at without headers: the estimate, probed up since it was made. */
  #probed(at: number): number {
    const estimate = this.#estimate ?? 0;
    const seconds = Math.max(0, at - this.#estimatedAt) / 1000;
    if (this.#knee === undefined) return estimate * (1 + PROBE_PER_SECOND * seconds);
    // Fast back up to below the pace of the last 429 by the decrease, on at the probe to just below
    // it, then slowly past it.
    const phases: [rate: number, perSecond: number][] = [
      [this.#knee * (1 - this.#decrease), FAST_PROBE_PER_SECOND],
      [this.#knee * ESTIMATE_SHARE, PROBE_PER_SECOND],
    ];
    let rate = estimate;
    let left = seconds;
    for (const [until, perSecond] of phases) {
      if (rate >= until) continue;
      const takes = (until / rate - 1) / perSecond;
      if (left < takes) return rate * (1 + perSecond * left);
      rate = until;
      left -= takes;
    }
    return rate * (1 + PAST_KNEE_PER_SECOND * left);
  }

  #learnQuota(now: number, info: RateLimitInfo, sent: number): void {
    if (info.limit !== undefined) this.#limit = info.limit;
    if (info.windowMs !== undefined) {
      this.#windowMs = info.windowMs;
      this.#policyWindow = true;
    }
    if (info.remaining === undefined || info.resetAt === undefined) return;
    // The answer to a request sent before the one whose answer told of the window read last is the
    // window before's, come late (its work took longer): it says nothing of this one.
    if (sent < this.#openedBy) return;
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
      this.#openedBy = sent;
      this.#learnWindowEnd(info.remaining, sent);
      this.#remaining = info.remaining;
      this.#resetAt = this.#nextReset(now, info.resetAt);
    } else {
      this.#latestSendInWindow = Math.max(
        this.#latestSendInWindow,
        this.#sendTime(sent) ?? Number.NEGATIVE_INFINITY,
      );
      const fewer = info.remaining < (this.#remaining as number);
      this.#resetAt = Math.min(this.#resetAt as number, info.resetAt);
      if (!fewer) return;
      this.#remaining = info.remaining;
    }
    // Requests sent after this one may not be counted in it yet.
    this.#sentSinceQuota = Math.max(0, this.#sentTotal - sent);
  }

  /** An answer in the rounds of the start: `over` when they end (a quota told, or a 429). */
  #roundAnswered(over: boolean): void {
    const round = this.#round;
    if (!round) return;
    round.answered++;
    if (over) this.#round = undefined;
    else if (round.answered >= round.sent && round.sent >= round.size) {
      const size = Math.min(this.#lastRound, round.size < 16 ? round.size * 2 : Math.round(round.size * 1.5));
      this.#round = round.size >= this.#lastRound ? undefined : { size, sent: 0, answered: 0 };
    }
  }

  /** When request number `sent` left, if it is among the latest. */
  #sendTime(sent: number): number | undefined {
    return sent > 0 && sent > this.#sentTotal - SEND_TIMES ? this.#sendTimes[sent % SEND_TIMES] : undefined;
  }

  /**
   * A fresh reading (the answer to request number `sent`): when it is the next window's (more left
   * than the requests in flight can explain), the requests counted in the window before were sent
   * up to `#latestSendInWindow`, and this one, counted in the next, was sent at `s`: the window
   * ended in between. The end learnt is kept while it lies there; else it moves to the later of the
   * two (a request sent after it was counted before it, or one sent before it after it). The next
   * window ends a window's length later (once the length is known: a policy, or the step between
   * resets).
   */
  #learnWindowEnd(remaining: number, sent: number): void {
    const s = this.#sendTime(sent);
    const window = this.#knownWindow();
    const previous = this.#remaining;
    const latest = this.#latestSendInWindow;
    const next = previous !== undefined && remaining > previous + this.#inFlight + 1;
    if (!next) {
      // The first reading, or one that may be either window's: it counts as this window's.
      this.#latestSendInWindow = Math.max(latest, s ?? Number.NEGATIVE_INFINITY);
      return;
    }
    this.#latestSendInWindow = s ?? Number.NEGATIVE_INFINITY;
    if (s === undefined || window === undefined || !Number.isFinite(latest)) return;
    let predicted = this.#windowEndsAt;
    // Windows that went by unread (a pause): the end learnt, moved on to the last before `s`.
    if (predicted !== undefined && s >= predicted + window) {
      predicted += Math.floor((s - predicted) / window) * window;
    }
    const ended =
      predicted !== undefined && latest < predicted && predicted <= s ? predicted : Math.max(latest, s);
    this.#windowEndsAt = ended + window;
  }

  /** The window's length when an API policy says it or two resets showed it, else undefined. */
  #knownWindow(): number | undefined {
    const window = this.#policyWindow ? this.#windowMs : this.#resetStep;
    return window !== undefined && window > 0 ? window : undefined;
  }

  /**
   * When the window read last ends, for sends: the end learnt when it agrees with the reset read
   * (at or before it, by less than a window), else the reset read, with a margin for clocks.
   */
  #windowEnd(): { at: number; margin: number } | undefined {
    const resetAt = this.#resetAt;
    if (resetAt === undefined) return undefined;
    const learnt = this.#windowEndsAt;
    const window = this.#knownWindow();
    if (
      learnt !== undefined &&
      window !== undefined &&
      learnt <= resetAt + RESET_MARGIN_MS &&
      learnt > resetAt - window
    ) {
      return { at: learnt, margin: 0 };
    }
    return { at: resetAt, margin: RESET_MARGIN_MS };
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
  }
}

export { Pacer, type Turn } from './pacing/pacer.js';
