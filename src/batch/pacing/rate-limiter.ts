// One rate limiter for the whole batch: every worker asks it for its turn before a request leaves
// and tells it every answer. It is pure (no timers, no clock of its own): `nextAt()` says when the
// next request may leave, `answered()` learns from what the API said. `Pacer` (pacer.ts) is the
// thin asynchronous part: one queue of waiting workers and one timer, so that each send is decided
// when it is due, from everything learnt until then (turns booked ahead would be spaced by what
// was known when they were booked, and a new window's quota would be read too late to use).
//
// It composes four regimes, each in its own file, and the user's own ceiling (--rate):
// - quota.ts: with rate-limit headers, the quota left is spread over what is left of the window;
// - adaptive.ts: without them, the pace the API let through, learnt from its 429s;
// - slow-start.ts: until either is known, requests go in rounds;
// - pause.ts: a 429 (or a 503 that says when) pauses every turn, at least a floor.
import type { RateLimitInfo } from '../../api/rate-limit-headers.js';
import type { Rate } from '../../text/units.js';
import { AdaptivePace } from './adaptive.js';
import { PAUSE_FLOOR_MS, Pause, pauseFor429 } from './pause.js';
import { Quota } from './quota.js';
import { SlowStart } from './slow-start.js';

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

const RATE_WINDOW_MS = 3000;
/** How late a send may be and the next still be spaced from when it was due. */
const LATE_TOLERANCE_MS = 10;

export class RateLimiter {
  readonly #ceilingInterval: number;
  readonly #backoffMs: number;
  readonly #backoffCapMs: number;
  readonly #startedAt: number;
  readonly #quota = new Quota();
  readonly #adaptive: AdaptivePace;
  readonly #slowStart: SlowStart;
  readonly #pause = new Pause();
  /** When the latest request left, and when it was due (see `sent`). */
  #lastSentAt: number | undefined;
  #lastDueAt: number | undefined;
  #inFlight = 0;
  #sentTotal = 0;
  #rateLimited = 0;
  #in429Row = 0;
  #recentSends: number[] = [];

  constructor(now: number, options: LimiterOptions = {}) {
    this.#startedAt = now;
    this.#ceilingInterval = options.ceiling ? options.ceiling.perMs / options.ceiling.count : 0;
    this.#backoffMs = options.backoffMs ?? 1000;
    this.#backoffCapMs = options.backoffCapMs ?? 60_000;
    this.#adaptive = new AdaptivePace(now);
    this.#slowStart = new SlowStart(options.concurrency);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Until when every send waits for the API (minus infinity when it never paused). */
  get pausedUntil(): number {
    return this.#pause.until;
  }

  /**
   * When the next request may leave, as far as is known at `now` (never before `now`); infinity
   * while it waits for an answer (the start's rounds; a new window's quota may all be in flight).
   * Never infinity while nothing is in flight: no answer would come to decide again, so one
   * request goes after the pause and a floor (a quota of zero reads its next window so).
   */
  nextAt(now: number): number {
    const due = this.#due(now);
    if (due === Number.POSITIVE_INFINITY && this.#inFlight === 0) {
      return Math.max(
        now,
        this.#pause.until,
        (this.#lastSentAt ?? Number.NEGATIVE_INFINITY) + PAUSE_FLOOR_MS,
      );
    }
    return Math.max(now, due);
  }

  /**
   * When the next request is due (it may have gone by): the spacing counts from when the latest
   * one was due, so that timers that fire late (by a millisecond, on any machine) do not slow every
   * send down by that much. The user's ceiling counts from when it actually left.
   */
  #due(now: number): number {
    if (this.#slowStart.holding) return Number.POSITIVE_INFINITY;
    let due = this.#pause.until;
    if (this.#lastSentAt !== undefined) due = Math.max(due, this.#lastSentAt + this.#ceilingInterval);
    const last = this.#lastDueAt;
    const paced = last === undefined ? 0 : this.#adaptive.spacing(last);
    return this.#quota.due(now, { due, last, paced, inFlight: this.#inFlight });
  }

  /** A request leaves now. Returns its number, for `answered`. */
  sent(now: number): number {
    // Late by up to LATE_TOLERANCE_MS: the next is spaced from when this one was due. Later than that
    // (the process was held up), from a little before now: no burst to catch up.
    this.#lastDueAt = Math.max(Math.min(now, this.#due(now)), now - LATE_TOLERANCE_MS);
    this.#lastSentAt = now;
    this.#inFlight++;
    this.#sentTotal++;
    this.#slowStart.sent();
    this.#quota.sent(now, this.#sentTotal);
    this.#recentSends.push(now);
    if (this.#recentSends.length > 4096) this.#recentSends.splice(0, 2048);
    return this.#sentTotal;
  }

  /** A request that never got an answer (network error). */
  lost(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#slowStart.answered(false);
  }

  /**
   * Learns from an answer: its status and its rate-limit headers; `sent` is the number `sent()` gave
   * its request. Returns for how long (from `now`) every send is paused when the answer was a 429
   * (or a 503 that said when), else undefined.
   */
  answered(now: number, status: number, info: RateLimitInfo, sent = this.#sentTotal): number | undefined {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#quota.learn(now, info, sent, { inFlight: this.#inFlight, sentTotal: this.#sentTotal });
    this.#slowStart.answered(status === 429 || this.#quota.known);
    if (status === 429) return this.#rateLimitedAt(now, info);
    if (status === 503 && info.retryAfterMs !== undefined) {
      this.#pause.extend(now, now + info.retryAfterMs);
      return Math.max(0, this.#pause.until - now);
    }
    if (status >= 200 && status < 300) {
      this.#in429Row = 0;
      this.#adaptive.accepted();
    }
    return undefined;
  }

  /** A 429: every send pauses; without a quota, the adaptive pace learns from it. */
  #rateLimitedAt(now: number, info: RateLimitInfo): number {
    this.#rateLimited++;
    this.#in429Row++;
    const paused = this.#pause.until > now;
    const wait = pauseFor429({
      now,
      info,
      knownReset: this.#quota.resetAhead(now),
      again: this.#in429Row > 1 && !paused,
      in429Row: this.#in429Row,
      backoffMs: this.#backoffMs,
      backoffCapMs: this.#backoffCapMs,
    });
    if (!this.#quota.known) this.#adaptive.rateLimited(now, wait, paused);
    if (!paused) this.#adaptive.pauseBegins(wait);
    this.#pause.extend(now, now + wait);
    return Math.max(0, this.#pause.until - now);
  }

  state(now: number): LimiterState {
    while (this.#recentSends.length > 0 && (this.#recentSends[0] as number) < now - RATE_WINDOW_MS) {
      this.#recentSends.shift();
    }
    const span = Math.min(RATE_WINDOW_MS, now - this.#startedAt);
    return {
      rate: span > 0 ? (this.#recentSends.length * 1000) / span : 0,
      ...this.#quota.state(now),
      pausedUntil: this.#pause.until > now ? this.#pause.until : undefined,
      rateLimited: this.#rateLimited,
      waitedMs: this.#pause.waitedMs(now),
    };
  }
}
