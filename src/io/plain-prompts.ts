// Questions for accessible mode: each a plain line, answered on a line of its own, never redrawn
// (a screen reader reads a redrawn prompt again on every repaint). Choices are numbered and chosen
// by number; yes/no questions say which answer Enter gives, or take an explicit y or n. The terminal stays in its ordinary line
// mode: it echoes what is typed and the person edits the line as in any shell prompt. Ctrl-C
// (the run's signal) and Ctrl-D (the end of input) stop the questions.
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** Why a question was not answered: the person stopped (Ctrl-C, Ctrl-D). */
export const STOPPED = Symbol('stopped');

export interface PlainChoice<T> {
  value: T;
  label: string;
  hint?: string | undefined;
}

/** Questions asked one after another on a terminal in its line mode. */
export class PlainPrompter {
  readonly #output: Writable;
  readonly #signal: AbortSignal;
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | typeof STOPPED) => void)[] = [];
  #ended = false;
  #reader: Interface | undefined;

  constructor(
    readonly input: Readable,
    output: Writable,
    signal: AbortSignal,
  ) {
    this.#output = output;
    this.#signal = signal;
  }

  /** The next line typed, or STOPPED. Lines typed ahead are kept for the questions that follow. */
  #nextLine(): Promise<string | typeof STOPPED> {
    if (this.#signal.aborted || (this.#ended && this.#lines.length === 0)) return Promise.resolve(STOPPED);
    const typed = this.#lines.shift();
    if (typed !== undefined) return Promise.resolve(typed);
    this.#reader ??= this.#open();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #open(): Interface {
    const reader = createInterface({
      input: this.input,
      terminal: false,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    reader.on('line', (line) => {
      const waiting = this.#waiting.shift();
      if (waiting) waiting(line);
      else this.#lines.push(line);
    });
    const stop = () => {
      this.#ended = true;
      for (const waiting of this.#waiting.splice(0)) waiting(STOPPED);
    };
    reader.on('close', stop);
    this.#signal.addEventListener('abort', stop, { once: true });
    return reader;
  }

  /** Stops reading the terminal (the questions are over). */
  close(): void {
    this.#reader?.close();
    this.#reader = undefined;
  }

  say(text: string): void {
    this.#output.write(`${text}\n`);
  }

  /**
   * A question answered with text; `check` says what is wrong with an answer (then the question is
   * asked again, after the problem), or undefined.
   */
  async text(
    question: string,
    check: (answer: string) => string | undefined,
  ): Promise<string | typeof STOPPED> {
    for (;;) {
      this.say(question);
      const answer = await this.#nextLine();
      if (answer === STOPPED) return STOPPED;
      const problem = check(answer);
      if (problem === undefined) return answer;
      this.say(`${problem} Try again.`);
    }
  }

  /** A question answered with the number of one of the choices. */
  async choose<T>(question: string, choices: readonly PlainChoice<T>[]): Promise<T | typeof STOPPED> {
    const listed = choices
      .map((choice, index) => `  ${index + 1}: ${choice.label}${choice.hint ? `, ${choice.hint}` : ''}`)
      .join('\n');
    const answer = await this.text(
      `${question} Type its number, 1 to ${choices.length}, then press Enter.\n${listed}`,
      (typed) => {
        const number = Number(typed.trim());
        return Number.isInteger(number) && number >= 1 && number <= choices.length
          ? undefined
          : `'${typed.trim()}' is not one of the numbers 1 to ${choices.length}.`;
      },
    );
    return answer === STOPPED ? STOPPED : (choices[Number(answer.trim()) - 1] as PlainChoice<T>).value;
  }

  /**
   * A yes/no question; Enter alone gives `initial`. With `initial` 'none' it takes an explicit y or
   * n (Enter alone asks again), and what was typed before the question was shown is dropped: a
   * second Enter typed after the last answer must not answer a question not yet read.
   */
  async confirm(question: string, initial: boolean | 'none'): Promise<boolean | typeof STOPPED> {
    const explicit = initial === 'none';
    if (explicit) this.#lines.length = 0;
    const enter = explicit ? '' : ` (Enter alone: ${initial ? 'yes' : 'no'})`;
    const answer = await this.text(
      `${question} Type y for yes or n for no, then press Enter${enter}.`,
      (typed) => {
        const word = typed.trim();
        if (/^(y|yes|n|no)$/i.test(word) || (word === '' && !explicit)) return undefined;
        return word === '' ? 'Type y or n.' : `'${word}' is neither yes nor no.`;
      },
    );
    if (answer === STOPPED) return STOPPED;
    const word = answer.trim().toLowerCase();
    return word === '' ? initial === true : word.startsWith('y');
  }
}
