// A batch against a fixed-window rate-limited server, on a virtual clock (for the limiter's tests).
import { parseRateLimit } from '../../src/api/rate-limit-headers.js';
import { RateLimiter } from '../../src/batch/pacing/rate-limiter.js';

/**
 * Simulates a batch against a fixed-window server on a virtual clock: `concurrency` workers, each
 * asking the limiter for a turn, sending, and getting its answer `latencyMs` later. Returns what
 * the server saw.
 */
export function simulate(options: {
  limit: number;
  windowMs: number;
  style: 'x-ratelimit' | 'ietf' | 'none';
  records: number;
  concurrency: number;
  latencyMs: number;
  /** When after the send the server counts the request (default: half the latency). The sandbox
   * waits out its --latency first, then counts and answers at once: the whole latency. */
  countedAfterMs?: number;
  /** How far into a window the run starts (the windows fall on whole multiples of windowMs). */
  phaseMs?: number;
  /** Timers that fire late, as on a loaded machine: each wait ends up to this much late (seeded). */
  lateMs?: number;
  /** Work that takes longer for some requests: each answer comes up to this much later (seeded), so
   * answers come back in another order than the server counted them. */
  workMs?: number;
  ceiling?: { count: number; perMs: number };
}) {
  const start = 1_700_000_000_000 + (options.phaseMs ?? 0);
  const limiter = new RateLimiter(start, { ceiling: options.ceiling, concurrency: options.concurrency });
  type Event = {
    at: number;
    kind: 'turn' | 'answer';
    seq?: number;
    status?: number;
    headers?: Record<string, string>;
  };
  const events: Event[] = [];
  const push = (event: Event) => {
    events.push(event);
    events.sort((a, b) => a.at - b.at);
  };
  let used = 0;
  let window = Math.floor(start / options.windowMs);
  const arrivals: { at: number; status: number }[] = [];
  let left = options.records;
  let created = 0;
  const serve = (at: number) => {
    const w = Math.floor(at / options.windowMs);
    if (w !== window) {
      window = w;
      used = 0;
    }
    const allowed = used < options.limit;
    if (allowed) used++;
    const resetAt = (w + 1) * options.windowMs;
    const headers: Record<string, string> = {};
    if (options.style === 'x-ratelimit') {
      headers['x-ratelimit-limit'] = String(options.limit);
      headers['x-ratelimit-remaining'] = String(options.limit - used);
      headers['x-ratelimit-reset'] = String(resetAt / 1000);
    } else if (options.style === 'ietf') {
      headers['ratelimit-limit'] = String(options.limit);
      headers['ratelimit-remaining'] = String(options.limit - used);
      headers['ratelimit-reset'] = String(Math.ceil((resetAt - at) / 1000));
      headers['ratelimit-policy'] = `${options.limit};w=${options.windowMs / 1000}`;
    }
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((resetAt - at) / 1000)));
    arrivals.push({ at, status: allowed ? 200 : 429 });
    return { status: allowed ? 200 : 429, headers };
  };
  let seed = 12345;
  const late = () => {
    if (!options.lateMs) return 0;
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed / 2147483648) * options.lateMs;
  };
  let workSeed = 54321;
  const work = () => {
    if (!options.workMs) return 0;
    workSeed = (workSeed * 1103515245 + 12345) % 2147483648;
    return (workSeed / 2147483648) * options.workMs;
  };
  // Workers as `Pacer` runs them: one queue of those waiting for their turn and one timer for the
  // next turn, decided again by every answer.
  let queued = 0;
  let timer: Event | undefined;
  let now = start;
  let pending = 0;
  const send = () => {
    left--;
    const seq = limiter.sent(now);
    pending++;
    const answer = serve(now + (options.countedAfterMs ?? options.latencyMs / 2));
    push({ at: now + options.latencyMs + work(), kind: 'answer', seq, ...answer });
  };
  const decide = () => {
    let at = limiter.nextAt(now);
    while (at <= now && queued > 0) {
      queued--;
      send();
      at = limiter.nextAt(now);
    }
    if (timer) events.splice(events.indexOf(timer), 1);
    timer = undefined;
    if (queued > 0 && at !== Number.POSITIVE_INFINITY) {
      timer = { at: at + late(), kind: 'turn' };
      push(timer);
    }
  };
  /** A worker asks for its turn (it has a record to send). */
  const turn = () => {
    if (left - queued <= 0) return;
    if (queued === 0 && limiter.nextAt(now) <= now) send();
    else {
      queued++;
      decide();
    }
  };
  for (let i = 0; i < options.concurrency; i++) turn();
  while (events.length > 0) {
    const event = events.shift() as Event;
    now = event.at;
    if (event.kind === 'turn') {
      timer = undefined;
      decide();
    } else {
      pending--;
      limiter.answered(now, event.status as number, parseRateLimit(event.headers ?? {}, now), event.seq);
      if (event.status === 200) created++;
      else left++; // sent again, not counted as a retry
      decide();
      turn();
    }
  }
  const elapsed = now - start;
  const windows = new Map<number, number>();
  for (const a of arrivals.filter((a) => a.status === 429)) {
    const w = Math.floor(a.at / options.windowMs);
    windows.set(w, (windows.get(w) ?? 0) + 1);
  }
  return {
    created,
    pending,
    rejected: arrivals.filter((a) => a.status === 429).length,
    worstWindow: Math.max(0, ...windows.values()),
    windowsTouched: Math.ceil(elapsed / options.windowMs),
    share: created / (elapsed / 1000) / (options.limit / (options.windowMs / 1000)),
    arrivals,
  };
}
