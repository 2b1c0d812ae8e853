// Bad days on purpose: --latency, --fail-rate, --rate-limit and --drop-rate. The dice come from one
// seeded generator, rolled twice for every create request in the order they arrive, so the same
// --seed-random gives the n-th request the same fate on every run.
import { mulberry32, type Random } from './random.js';

export interface FaultOptions {
  /** Added before every API answer and signing page, in milliseconds. */
  latencyMs: number;
  /** Share of create requests answered 503 with Retry-After (nothing is created). */
  failRate: number;
  /** Create requests allowed per second and organisation; more get 429 with Retry-After. Null: no limit. */
  rateLimit: number | null;
  /** Share of creates whose connection is closed after the envelope was made, with no answer. */
  dropRate: number;
  /** Seed of the dice. */
  randomSeed: number;
}

export const NO_FAULTS: Omit<FaultOptions, 'randomSeed'> = {
  latencyMs: 0,
  failRate: 0,
  rateLimit: null,
  dropRate: 0,
};

export interface Fate {
  fail: boolean;
  drop: boolean;
}

const CALM: Fate = { fail: false, drop: false };

interface Bucket {
  tokens: number;
  at: number;
}

export class Faults {
  #options: FaultOptions;
  #random: Random;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: FaultOptions) {
    this.#options = { ...options };
    this.#random = mulberry32(options.randomSeed);
  }

  get options(): Readonly<FaultOptions> {
    return this.#options;
  }

  /** Changes options while running; a new randomSeed restarts the dice. */
  configure(changes: Partial<FaultOptions>): void {
    this.#options = { ...this.#options, ...changes };
    if (changes.randomSeed !== undefined) this.#random = mulberry32(changes.randomSeed);
    if (changes.rateLimit !== undefined) this.#buckets.clear();
  }

  /** The fate of the next create request: both dice are always rolled, to keep the sequence aligned. */
  rollFate(): Fate {
    const { failRate, dropRate } = this.#options;
    if (failRate <= 0 && dropRate <= 0) return CALM;
    const failRoll = this.#random();
    const dropRoll = this.#random();
    return { fail: failRoll < failRate, drop: dropRoll < dropRate };
  }

  /**
   * Takes one request from the organisation's token bucket (capacity: one second's worth, refilled
   * continuously). Returns undefined when allowed, else the seconds to wait for the next one.
   */
  takeRateLimit(key: string, nowMs: number): number | undefined {
    const limit = this.#options.rateLimit;
    if (limit === null) return undefined;
    const capacity = Math.max(1, limit);
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { tokens: capacity, at: nowMs };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.at) * limit) / 1000);
    bucket.at = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit));
  }
}
