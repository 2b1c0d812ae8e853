// The quota regime, for an API whose headers tell it (see src/api/rate-limit-headers.ts): sends
// are spread so that the quota left lasts until the window ends, instead of being spent in a burst
// that ends in 429s. Where a window ends for our sends is learnt from which window each answer
// counted in (#windowEndsAt). Pure: `now` is passed in.
import type { RateLimitInfo } from '../../api/rate-limit-headers.js';
import { RESET_MARGIN_MS } from './pause.js';

/** How many send times are kept (far more than can be in flight). */
const SEND_TIMES = 8192;
/** The longest time to a reset taken as a window's length, when no policy says it. */
const MAX_WINDOW_MS = 3_600_000;

/** Where the requests stand when an answer is learnt from. */
export interface InFlight {
  /** Requests whose answers are awaited (this one's no more). */
  inFlight: number;
  /** The number of the latest request sent. */
  sentTotal: number;
}

export class Quota {
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
  /** When each of the latest requests left, by its number. */
  readonly #sendTimes = new Float64Array(SEND_TIMES);
  /** The number of the request whose answer told of the window read last. */
  #openedBy = 0;
  /** Requests sent since `#remaining` was read (they may not be counted in it yet). */
  #sentSinceQuota = 0;
  #sentTotal = 0;

  /** True once the headers told what is left of a window: the quota paces, not the adaptive pace. */
  get known(): boolean {
    return this.#remaining !== undefined;
  }

  /** The reset of the window read last, when it is ahead of `now`. */
  resetAhead(now: number): number | undefined {
    return this.#resetAt !== undefined && this.#resetAt > now && this.#remaining !== undefined
      ? this.#resetAt
      : undefined;
  }

  /** What the progress line shows: the quota and when it resets, while that is ahead. */
  state(now: number): { remaining?: number; limit?: number; resetAt?: number } {
    const resetAt = this.#resetAt !== undefined && this.#resetAt > now ? this.#resetAt : undefined;
    return { remaining: resetAt === undefined ? undefined : this.#remaining, limit: this.#limit, resetAt };
  }

  /** Request number `number` leaves at `now`. */
  sent(now: number, number: number): void {
    this.#sentSinceQuota++;
    this.#sentTotal = number;
    this.#sendTimes[number % SEND_TIMES] = now;
  }

  /**
   * When the next request is due as far as the quota says, from `due` (the other limits'), `last`
   * (when the latest send was due) and `paced` (the adaptive spacing after it); infinity while a
   * window not read yet may all be spent by the requests in flight.
   */
  due(
    now: number,
    others: { due: number; last: number | undefined; paced: number; inFlight: number },
  ): number {
    const { last, paced, inFlight } = others;
    let { due } = others;
    const end = this.#windowEnd();
    if (this.#remaining !== undefined && end !== undefined && Math.max(now, due) < end.at) {
      // Within the window the headers told of: what is left of its quota, spread so that the last
      // request leaves before the window ends, not at it.
      const left = this.#remaining - this.#sentSinceQuota;
      if (left <= 0) due = end.at + end.margin;
      else if (last !== undefined) due = Math.max(due, last + paced, last + (end.at - last) / (left + 1));
    } else if (last !== undefined) {
      due = Math.max(due, last + Math.max(paced, this.#unreadSpacing()));
    }
    if (
      this.#remaining !== undefined &&
      end !== undefined &&
      this.#limit !== undefined &&
      Math.max(now, due) >= end.at &&
      this.#limit - inFlight <= 0
    ) {
      // A window not read yet: its quota is the limit, less the requests whose answers are awaited
      // (they may count in it). When they are as many, the next answer tells more.
      return Number.POSITIVE_INFINITY;
    }
    return due;
  }

  /** In a window whose quota is not known yet: the limit spread over the window. */
  #unreadSpacing(): number {
    const limit = this.#limit;
    const window = this.#windowMs;
    return limit !== undefined && limit > 0 && window !== undefined && window > 0 ? window / limit : 0;
  }

  /** Learns from the answer to request number `sent`. */
  learn(now: number, info: RateLimitInfo, sent: number, requests: InFlight): void {
    if (info.limit !== undefined) this.#limit = info.limit;
    if (info.windowMs !== undefined) {
      this.#windowMs = info.windowMs;
      this.#policyWindow = true;
    }
    if (info.remaining === undefined || info.resetAt === undefined) return;
    // The answer to a request sent before the one whose answer told of the window read last is the
    // window before's, come late (its work took longer): it says nothing of this one.
    if (sent < this.#openedBy) return;
    if (!this.#policyWindow && info.resetAt > now) this.#learnWindowLength(now, info.resetAt);
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
      this.#learnWindowEnd(info.remaining, sent, requests.inFlight);
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
    this.#sentSinceQuota = Math.max(0, requests.sentTotal - sent);
  }

  /**
   * The window's length, when no policy says it: the shortest step from one reset to the next, and
   * until two resets were seen, the longest time to a reset (short of the window by however far
   * into its window the first answer came).
   */
  #learnWindowLength(now: number, resetAt: number): void {
    this.#longestToReset = Math.max(this.#longestToReset, Math.min(resetAt - now, MAX_WINDOW_MS));
    const step = this.#resetAt === undefined ? 0 : resetAt - this.#resetAt;
    if (step >= this.#longestToReset && step < (this.#resetStep ?? Number.POSITIVE_INFINITY)) {
      this.#resetStep = step;
    }
    this.#windowMs = this.#resetStep ?? this.#longestToReset;
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
  #learnWindowEnd(remaining: number, sent: number, inFlight: number): void {
    const s = this.#sendTime(sent);
    const window = this.#knownWindow();
    const previous = this.#remaining;
    const latest = this.#latestSendInWindow;
    const next = previous !== undefined && remaining > previous + inFlight + 1;
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
}
