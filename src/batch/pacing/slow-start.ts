// The slow-start regime: until the API tells its quota or answers a 429, requests go in rounds,
// each once the one before is all answered (as TCP's slow start): the first alone (so that the API
// can say its limit before a burst), then twice as many each round up to 16, then half as many
// again up to the concurrency (at most 64). An API that never tells its limit then meets part of a
// round too many in its first window, not every worker at once and again as each comes back
// (growing by half from 16 on keeps that part small when the rounds before fill most of a window).

/** The last round of the start (--concurrency's most): after it, the requests in flight are not held back. */
const MAX_ROUND = 64;

export class SlowStart {
  #round: { size: number; sent: number; answered: number } | undefined = { size: 1, sent: 0, answered: 0 };
  readonly #lastRound: number;

  constructor(concurrency = MAX_ROUND) {
    this.#lastRound = Math.min(MAX_ROUND, concurrency);
  }

  /** True while the round is all sent and waits for its answers (the next send waits too). */
  get holding(): boolean {
    return this.#round !== undefined && this.#round.sent >= this.#round.size;
  }

  sent(): void {
    if (this.#round) this.#round.sent++;
  }

  /** An answer (or a request lost): `over` when the start ends (a quota told, or a 429). */
  answered(over: boolean): void {
    const round = this.#round;
    if (!round) return;
    round.answered++;
    if (over) this.#round = undefined;
    else if (round.answered >= round.sent && round.sent >= round.size) {
      const size = Math.min(this.#lastRound, round.size < 16 ? round.size * 2 : Math.round(round.size * 1.5));
      this.#round = round.size >= this.#lastRound ? undefined : { size, sent: 0, answered: 0 };
    }
  }
}
