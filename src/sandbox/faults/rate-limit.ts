// --rate-limit <n>[/<window>] and --rate-limit-headers <style>: a fixed-window limit per token, and
// the headers a rate-limited API sends with its answers.
//
// Windows are aligned to multiples of their length since the Unix epoch (a 5 s window runs from
// …:00 to …:05, …:05 to …:10), so the reset time is a whole number of Unix seconds, and the same for
// every token. Each token counts its own create requests in the current window; past n they get 429.
import type { OutgoingHttpHeaders } from 'node:http';
import * as z from 'zod/mini';
import { RATE_OR_COUNT_EXPECTED, rateText, readRate, wholeCountWindow } from '../../text/units.js';

import { RATE_LIMIT_HEADER_STYLES } from '../defaults.js';

export { RATE_LIMIT_HEADER_STYLES };
export type RateLimitHeaderStyle = (typeof RATE_LIMIT_HEADER_STYLES)[number];

export interface RateLimitPolicy {
  /** Create requests allowed per window and token. */
  readonly limit: number;
  /** The window's length in whole seconds. */
  readonly windowSeconds: number;
}

const MAX_LIMIT = 1_000_000;
const MAX_WINDOW_SECONDS = 24 * 60 * 60;
export const RATE_LIMIT_FORMAT = RATE_OR_COUNT_EXPECTED;

/**
 * `50` (per second), `50/s`, `100/min`, `1000/h`, `50/5s`, `100/2min`, `0.5/s` (src/text/units.ts
 * reads them, as everywhere); a problem as text otherwise. The sandbox counts whole requests in
 * windows of whole seconds, from 1 s to 24 h: a rate that is not (`0.5/s`) is taken as the same
 * rate in the smallest such window (1 per 2 s).
 */
export function parseRateLimit(text: string): RateLimitPolicy | string {
  const rate = readRate(text, { countAlone: true });
  if (!rate) return `must be ${RATE_LIMIT_FORMAT}`;
  if (!(rate.count > 0)) return `must allow from 1 to ${MAX_LIMIT} requests per window`;
  // The same rate in whole requests and whole seconds: 0.5/s is 1 per 2 s (src/text/units.ts).
  const whole = wholeCountWindow(rate, MAX_WINDOW_SECONDS);
  if (!whole || whole.seconds < 1) return 'must have a window from 1 s to 24 h, like 50/5s or 0.5/s';
  if (whole.count > MAX_LIMIT) return `must allow from 1 to ${MAX_LIMIT} requests per window`;
  return { limit: whole.count, windowSeconds: whole.seconds };
}

/** `50/s`, `100/min`, `50/5s`: the policy as the flag takes it (written as every rate is). */
export function formatRateLimit(policy: RateLimitPolicy): string {
  return rateText({ count: policy.limit, perMs: policy.windowSeconds * 1000 });
}

/** Where a token stands in the current window. */
export interface RateLimitState {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Requests left in this window (after the one just counted, if any). */
  readonly remaining: number;
  /** When the window ends, in Unix milliseconds (a whole number of seconds). */
  readonly resetAtMs: number;
  /** True when the request just taken is over the limit. */
  readonly limited: boolean;
}

interface Window {
  start: number;
  used: number;
}

/** Counts create requests per key (the token) in fixed windows aligned to the Unix epoch. */
export class RateLimiter {
  readonly policy: RateLimitPolicy;
  readonly style: RateLimitHeaderStyle;
  readonly #windowMs: number;
  readonly #windows = new Map<unknown, Window>();

  constructor(policy: RateLimitPolicy, style: RateLimitHeaderStyle) {
    this.policy = policy;
    this.style = style;
    this.#windowMs = policy.windowSeconds * 1000;
  }

  #window(key: unknown, nowMs: number): Window {
    const start = nowMs - (nowMs % this.#windowMs);
    let window = this.#windows.get(key);
    if (!window) {
      window = { start, used: 0 };
      this.#windows.set(key, window);
    } else if (window.start !== start) {
      window.start = start;
      window.used = 0;
    }
    return window;
  }

  #state(window: Window, limited: boolean): RateLimitState {
    const { limit, windowSeconds } = this.policy;
    return {
      limit,
      windowSeconds,
      remaining: Math.max(0, limit - window.used),
      resetAtMs: window.start + this.#windowMs,
      limited,
    };
  }

  /** Counts one request of `key`; `limited` when it is past the limit (a 429, which is not counted). */
  take(key: unknown, nowMs: number): RateLimitState {
    const window = this.#window(key, nowMs);
    if (window.used >= this.policy.limit) return this.#state(window, true);
    window.used += 1;
    return this.#state(window, false);
  }

  /** Where `key` stands, counting nothing (answers other than creates). Undefined: a fresh window. */
  peek(key: unknown, nowMs: number): RateLimitState {
    if (key === undefined) {
      const start = nowMs - (nowMs % this.#windowMs);
      return this.#state({ start, used: 0 }, false);
    }
    return this.#state(this.#window(key, nowMs), false);
  }
}

/** Whole seconds from now to the reset, rounded up (at least 1 when the reset is ahead). */
function secondsUntil(resetAtMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000));
}

/** The headers of `style` for `state`; with `limited`, Retry-After too. */
export function rateLimitHeaders(
  style: RateLimitHeaderStyle,
  state: RateLimitState,
  nowMs: number,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const delta = secondsUntil(state.resetAtMs, nowMs);
  if (state.limited) headers['retry-after'] = String(Math.max(1, delta));
  switch (style) {
    case 'x-ratelimit':
      headers['x-ratelimit-limit'] = String(state.limit);
      headers['x-ratelimit-remaining'] = String(state.remaining);
      headers['x-ratelimit-reset'] = String(state.resetAtMs / 1000);
      break;
    case 'ietf':
      headers['ratelimit-limit'] = String(state.limit);
      headers['ratelimit-remaining'] = String(state.remaining);
      headers['ratelimit-reset'] = String(delta);
      headers['ratelimit-policy'] = `${state.limit};w=${state.windowSeconds}`;
      break;
    case 'structured':
      headers.ratelimit = `"default";r=${state.remaining};t=${delta}`;
      headers['ratelimit-policy'] = `"default";q=${state.limit};w=${state.windowSeconds}`;
      break;
    case 'none':
      break;
  }
  return headers;
}

/** A rate limit given as text or a number (`--rate-limit`, `POST /_sandbox/faults`): checked into a policy. */
export function rateLimitPolicySchema(typeError?: string) {
  return z.pipe(
    z.union([z.string(), z.number()], typeError === undefined ? undefined : { error: typeError }),
    z.transform((raw, ctx): RateLimitPolicy => {
      const parsed = parseRateLimit(String(raw));
      if (typeof parsed === 'string') {
        ctx.issues.push({ code: 'custom', message: parsed, input: raw });
        return z.NEVER;
      }
      return parsed;
    }),
  );
}
