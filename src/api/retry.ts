// When to try again after 429 or 503: the server's Retry-After when it gives one, otherwise
// exponential backoff with full jitter (a random wait between 0 and base * 2^attempt, capped).

import { parseRetryAfterHeader } from './rate-limit-headers.js';

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, capMs: 30_000 };

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  return parseRetryAfterHeader(Array.isArray(value) ? value[0] : value, now.getTime());
}

/** Full-jitter backoff for the given attempt (0 for the first retry). */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random = Math.random,
): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/** The wait before retry number `attempt`: Retry-After wins, else backoff. */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random = Math.random,
): number {
  return retryAfterMs ?? backoffDelay(attempt, options, random);
}

/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
