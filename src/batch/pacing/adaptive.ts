// The adaptive regime, for an API that tells no quota: after the first 429 it paces at the rate
// the API let through, and probes up by 1% a second; after a later 429, a few percent below the
// pace that met it (or the throughput, when that says the pace was far too high), climbing back
// fast to below that pace by the decrease, at 1% a second to just below it, and at 0.1% a second
// past it: each 429 can cost a window when Retry-After rounds up to a whole second.
// Pure: `now` is passed in.

/** Share of the estimated rate paced at without headers, and the probe per second above it. */
const ESTIMATE_SHARE = 0.97;
const PROBE_PER_SECOND = 0.01;
/** The probe per second past just below the pace of the last 429 (the limit found stays put). */
const PAST_KNEE_PER_SECOND = 0.001;
/** 429s closer together than this double the decrease of the pace. */
const QUICK_429_MS = 4000;
const MAX_DECREASE = 0.2;
/** How fast the pace climbs back to just below the pace of the last 429, when it is below that. */
const FAST_PROBE_PER_SECOND = 0.2;
/** The slowest pace ever estimated, in requests a second. */
const MIN_ESTIMATE = 0.05;

export class AdaptivePace {
  /** The rate paced at (requests a second) since the first 429, and when it was estimated. */
  #estimate: number | undefined;
  #estimatedAt = 0;
  /** Where the limit lies at most: the pace that met the last 429. */
  #knee: number | undefined;
  #decrease = 1 - ESTIMATE_SHARE;
  /** How long the pause of the latest 429 was. */
  #lastPauseMs = 0;
  #acceptedSince429 = 0;
  #last429At: number | undefined;

  constructor(private readonly startedAt: number) {}

  /** The spacing after a send at `at` (0 before the first 429: nothing is known yet). */
  spacing(at: number): number {
    return this.#estimate === undefined ? 0 : 1000 / this.#probed(at);
  }

  /** A request accepted (2xx). */
  accepted(): void {
    this.#acceptedSince429++;
  }

  /** A pause begins with a 429 (none was on): its length, for the next estimate. */
  pauseBegins(waitMs: number): void {
    this.#lastPauseMs = waitMs;
  }

  /**
   * Learns from a 429 that pauses for `wait`; `paused` when a pause is still on at `now` (the
   * 429s of one burst say the same: learnt once per pause).
   */
  rateLimited(now: number, wait: number, paused: boolean): void {
    const span = now - (this.#last429At ?? this.startedAt);
    if (!paused && span > 0 && this.#acceptedSince429 > 0) {
      if (this.#estimate === undefined) this.#firstEstimate(span, wait);
      else this.#nextEstimate(now, span);
      this.#estimatedAt = now;
      this.#acceptedSince429 = 0;
      this.#last429At = now;
    } else if (!paused && this.#estimate !== undefined) {
      this.#estimate = Math.max(MIN_ESTIMATE, this.#estimate / 2);
      this.#estimatedAt = now;
      this.#last429At = now;
    } else if (this.#last429At === undefined) {
      this.#last429At = now;
    }
  }

  /**
   * The first 429, after an unpaced burst: what got through, spread over the burst and the pause
   * to come, is at most the limit; over the pause alone (the rest of the window, when the server
   * says when it ends), about the limit. Pace at the first, climb to the second.
   */
  #firstEstimate(span: number, wait: number): void {
    const count = this.#acceptedSince429 * 1000;
    this.#estimate = Math.max(MIN_ESTIMATE, (count / (span + wait)) * ESTIMATE_SHARE);
    this.#knee = count / Math.max(span, wait);
  }

  /**
   * Paced when the 429 came: the rate paced at was just over the limit, and the throughput since
   * the last 429 is short of it by the pause that 429 cost. A decrease by a few percent from the
   * pace, then, unless the throughput says the limit fell far below the pace.
   */
  #nextEstimate(now: number, span: number): void {
    const throughput = (this.#acceptedSince429 * 1000) / span;
    // While sending: without the pause the last 429 cost (a Retry-After rounded up to a second can
    // take most of the next window).
    const active = (this.#acceptedSince429 * 1000) / Math.max(span - this.#lastPauseMs, span / 10);
    const paced = this.#probed(now);
    const consistent = active >= paced / 2;
    // The decrease doubles while 429s keep coming within a few seconds of each other.
    this.#decrease = span < QUICK_429_MS ? Math.min(MAX_DECREASE, this.#decrease * 2) : 1 - ESTIMATE_SHARE;
    this.#estimate = Math.max(MIN_ESTIMATE, (consistent ? paced : throughput) * (1 - this.#decrease));
    // Where the limit lies at most: the pace that met the 429 (or halfway to it, when the
    // throughput says the pace was far too high). Probing climbs back fast to just below it.
    this.#knee = consistent ? paced : (paced + active) / 2;
  }

  /** The rate paced at: the estimate, probed up since it was made. */
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
}
