// Bad days on purpose: --latency, --fail-rate, --rate-limit and --drop-rate, and one-shot faults for
// tests (the X-Sandbox-Fault request header, and a queue filled through POST /_sandbox/faults).
//
// The random dice come from one seeded generator, rolled twice for every create request in the
// order they arrive, so the same --seed-random gives the n-th request the same fate on every run
// (one-shot faults do not change the dice's sequence).
import { mulberry32, type Random } from './random.js';
import { RateLimiter, type RateLimitHeaderStyle, type RateLimitPolicy } from './rate-limit.js';

export interface FaultOptions {
  /** Added before every API answer and signing page, in milliseconds. */
  latencyMs: number;
  /** Share of create requests answered 503 with Retry-After (nothing is created). */
  failRate: number;
  /** Create requests allowed per window and token; more get 429 with Retry-After. Null: no limit. */
  rateLimit: RateLimitPolicy | null;
  /** The rate-limit headers sent with API answers while a limit is set. */
  rateLimitHeaders: RateLimitHeaderStyle;
  /** Share of creates whose connection is closed after the envelope was made, with no answer. */
  dropRate: number;
  /** Seed of the dice. */
  randomSeed: number;
}

export const NO_FAULTS: Omit<FaultOptions, 'randomSeed'> = {
  latencyMs: 0,
  failRate: 0,
  rateLimit: null,
  rateLimitHeaders: 'x-ratelimit',
  dropRate: 0,
};

export interface Fate {
  fail: boolean;
  drop: boolean;
}

const CALM: Fate = { fail: false, drop: false };

/** One fault for one create request: by the X-Sandbox-Fault header, or the next in the queue. */
export type OneShotFault =
  | { readonly kind: '503' | '429' | '500' | 'drop' }
  | { readonly kind: 'latency'; readonly ms: number };

export const ONE_SHOT_FORMAT = '503, 429, 500, drop or latency=<ms> (0 to 60000)';

/** `503`, `429`, `500`, `drop`, `latency=2000`; undefined for anything else. */
export function parseOneShotFault(text: string): OneShotFault | undefined {
  const value = text.trim().toLowerCase();
  if (value === '503' || value === '429' || value === '500' || value === 'drop') return { kind: value };
  const latency = /^latency=(\d{1,5})$/.exec(value);
  if (latency && Number(latency[1]) <= 60_000) return { kind: 'latency', ms: Number(latency[1]) };
  return undefined;
}

export function formatOneShotFault(fault: OneShotFault): string {
  return fault.kind === 'latency' ? `latency=${fault.ms}` : fault.kind;
}

/** At most this many one-shot faults wait in the queue. */
export const MAX_QUEUED_FAULTS = 10_000;

export class Faults {
  #options: FaultOptions;
  #random: Random;
  #limiter: RateLimiter | null;
  #queue: OneShotFault[] = [];
  #queueHead = 0;

  constructor(options: FaultOptions) {
    this.#options = { ...options };
    this.#random = mulberry32(options.randomSeed);
    this.#limiter = limiterOf(this.#options);
  }

  get options(): Readonly<FaultOptions> {
    return this.#options;
  }

  /** The rate limiter, or null when there is no limit (then nothing about rate limits costs anything). */
  get limiter(): RateLimiter | null {
    return this.#limiter;
  }

  /**
   * Changes options while running; a new randomSeed restarts the dice. A new rate limit or header
   * style starts every token's count afresh.
   */
  configure(changes: Partial<FaultOptions>): void {
    this.#options = { ...this.#options, ...changes };
    if (changes.randomSeed !== undefined) this.#random = mulberry32(changes.randomSeed);
    if (changes.rateLimit !== undefined || changes.rateLimitHeaders !== undefined)
      this.#limiter = limiterOf(this.#options);
  }

  /** The fate of the next create request: both dice are always rolled, to keep the sequence aligned. */
  rollFate(): Fate {
    const { failRate, dropRate } = this.#options;
    if (failRate <= 0 && dropRate <= 0) return CALM;
    const failRoll = this.#random();
    const dropRoll = this.#random();
    return { fail: failRoll < failRate, drop: dropRoll < dropRate };
  }

  /** Replaces the queue of one-shot faults: the next create requests get these, in order. */
  queueNext(faults: readonly OneShotFault[]): void {
    this.#queue = [...faults];
    this.#queueHead = 0;
  }

  /** The one-shot faults still waiting, in order. */
  get queued(): readonly OneShotFault[] {
    return this.#queue.slice(this.#queueHead);
  }

  /** Takes the next one-shot fault from the queue, if any. */
  takeNext(): OneShotFault | undefined {
    if (this.#queueHead >= this.#queue.length) return undefined;
    const fault = this.#queue[this.#queueHead++];
    if (this.#queueHead === this.#queue.length) this.queueNext([]);
    return fault;
  }
}

function limiterOf(options: FaultOptions): RateLimiter | null {
  return options.rateLimit === null ? null : new RateLimiter(options.rateLimit, options.rateLimitHeaders);
}
