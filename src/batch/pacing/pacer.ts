// The asynchronous side of the rate limiter: one queue of the workers waiting for their turn, in
// the order they asked, and one timer for the next turn. Each turn is decided when it is due, from
// everything the limiter has learnt by then; every answer decides again (a quota read, a pause
// begun). All waits end at once when `signal` aborts, through one listener: 64 workers add no 64.
//
// The API (what a worker calls):
//
//   turn(): number | false | Promise<number | false>
//   turn(deadline: number | undefined): Turn | Promise<Turn>      Turn = number | false | 'expired'
//     The caller's turn to send. A number: go now, the send is counted, and the number is the one
//     `answered(now, status, info, sent)` takes. `false`: the run is stopping (the signal aborted).
//     `'expired'`: `deadline` (a time on the pacer's clock, by when the record must have left)
//     passed while it waited for its turn, or a pause the API asked for ends after it (a pause
//     never ends sooner, so the record fails now rather than at the deadline). Returned at once,
//     not as a promise, when no wait is needed. Without a deadline a turn never expires.
//   sleep(ms): Promise<boolean>
//   sleep(ms, deadline: number | undefined): Promise<boolean | 'expired'>
//     A backoff of the caller's own: `true` once `ms` went by, `false` when the run is stopping,
//     `'expired'` at once when `ms` would end after `deadline` (test `=== true`: 'expired' is truthy).
//   answered(now, status, info, sent): number | undefined     as RateLimiter.answered, then decides
//   lost(): void                                              as RateLimiter.lost, then decides
//
// Every waiter whose deadline passes is released as expired at that moment, each of them, not only
// the first in the queue. No timer is ever set past the earliest deadline or longer than Node's
// longest (2^31-1 ms: a longer one fires at once with a TimeoutOverflowWarning); a longer wait is
// a chain of timers. A limiter that says "never" (an infinite next turn) still lets waiters with a
// deadline go at it; without one they wait for an answer, and the limiter never says "never" while
// nothing is in flight (see RateLimiter.nextAt), so no promise is left that cannot settle.
import type { RateLimiter } from './rate-limiter.js';

/** What a turn comes to: the send's number (go), false (the run is stopping), or 'expired'. */
export type Turn = number | false | 'expired';

/** The longest delay setTimeout takes as it is (2^31-1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

interface Waiter {
  resolve: (turn: Turn) => void;
  deadline: number;
}

interface Sleeper {
  timer: NodeJS.Timeout | undefined;
  done: (result: boolean | 'expired') => void;
}

export class Pacer {
  #queue: Waiter[] = [];
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  /** The earliest deadline of a waiter in the queue (infinity when none has one). */
  #earliestDeadline = Number.POSITIVE_INFINITY;
  readonly #sleeps = new Set<Sleeper>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: () => number,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.#wakeAll(), { once: true });
  }

  turn(): number | false | Promise<number | false>;
  turn(deadline: number | undefined): Turn | Promise<Turn>;
  turn(deadline = Number.POSITIVE_INFINITY): Turn | Promise<Turn> {
    if (this.signal.aborted) return false;
    const now = this.clock();
    if (this.#queue.length === 0 && this.limiter.nextAt(now) <= now) return this.limiter.sent(now);
    if (this.#cannotGoBy(deadline, now)) return 'expired';
    return new Promise((resolve) => {
      this.#queue.push({ resolve, deadline });
      this.#earliestDeadline = Math.min(this.#earliestDeadline, deadline);
      this.#decide();
    });
  }

  /** `RateLimiter.answered`, deciding the next turn again. */
  answered(...args: Parameters<RateLimiter['answered']>): number | undefined {
    const pause = this.limiter.answered(...args);
    this.#decide();
    return pause;
  }

  /** `RateLimiter.lost`, deciding the next turn again. */
  lost(): void {
    this.limiter.lost();
    this.#decide();
  }

  sleep(ms: number): Promise<boolean>;
  sleep(ms: number, deadline: number | undefined): Promise<boolean | 'expired'>;
  sleep(ms: number, deadline = Number.POSITIVE_INFINITY): Promise<boolean | 'expired'> {
    if (this.signal.aborted) return Promise.resolve(false);
    // A time that is not a number is none (setTimeout would take NaN as 1 ms, again and again).
    const endsAt = this.clock() + (ms > 0 ? ms : 0);
    if (endsAt > deadline) return Promise.resolve('expired');
    return new Promise((resolve) => {
      const sleeper: Sleeper = { timer: undefined, done: resolve };
      this.#sleeps.add(sleeper);
      const arm = () => {
        const left = endsAt - this.clock();
        if (left <= 0) {
          this.#sleeps.delete(sleeper);
          resolve(true);
          return;
        }
        sleeper.timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
      };
      arm();
    });
  }

  /** True when a turn cannot come by `deadline`: it passed, or a pause (never shortened) ends after it. */
  #cannotGoBy(deadline: number, now: number): boolean {
    return deadline <= now || deadline < this.limiter.pausedUntil;
  }

  /** Releases as expired every waiter whose turn cannot come by its deadline. */
  #expire(now: number): void {
    if (!this.#cannotGoBy(this.#earliestDeadline, now)) return;
    const waiting: Waiter[] = [];
    let earliest = Number.POSITIVE_INFINITY;
    for (const waiter of this.#queue) {
      if (this.#cannotGoBy(waiter.deadline, now)) waiter.resolve('expired');
      else {
        waiting.push(waiter);
        earliest = Math.min(earliest, waiter.deadline);
      }
    }
    this.#queue = waiting;
    this.#earliestDeadline = earliest;
  }

  /** Lets the workers whose turn has come go, and sets the timer for the next turn or deadline. */
  #decide(): void {
    if (this.signal.aborted) return;
    const now = this.clock();
    let at = this.limiter.nextAt(now);
    while (at <= now && this.#queue.length > 0) {
      (this.#queue.shift() as Waiter).resolve(this.limiter.sent(now));
      at = this.limiter.nextAt(now);
    }
    // Those whose turn has come went first: a deadline that is now is met, not missed.
    this.#expire(now);
    if (this.#queue.length === 0) this.#earliestDeadline = Number.POSITIVE_INFINITY;
    else at = Math.min(at, this.#earliestDeadline);
    this.#arm(this.#queue.length === 0 ? Number.POSITIVE_INFINITY : at, now);
  }

  /** One timer, for `at` (infinity: none, an answer decides), never longer than Node allows. */
  #arm(at: number, now: number): void {
    // Infinity stays infinity: capping it first would arm a 24.8-day timer that keeps the process alive.
    const fireAt = at === Number.POSITIVE_INFINITY ? at : Math.min(at, now + MAX_TIMER_MS);
    if (fireAt === this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = fireAt;
    if (fireAt === Number.POSITIVE_INFINITY) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#decide();
      },
      Math.max(0, fireAt - now),
    );
  }

  #wakeAll(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#earliestDeadline = Number.POSITIVE_INFINITY;
    for (const waiter of this.#queue.splice(0)) waiter.resolve(false);
    for (const sleeper of this.#sleeps) {
      clearTimeout(sleeper.timer);
      sleeper.done(false);
    }
    this.#sleeps.clear();
  }
}
