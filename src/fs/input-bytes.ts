// The bytes of input files: UTF-8 text only (a Latin-1 CSV from a spreadsheet would otherwise be
// sent with U+FFFD in a name), and no record or --data file larger than MAX_INPUT_RECORD_BYTES (a
// file of hundreds of MiB without a line break would otherwise end in a RangeError from V8).
import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { sizeText } from '../text/units.js';

/**
 * The most one batch record (a line, or a CSV record over several lines) or one --data file may
 * hold: far beyond any real merge data or signatory, well below V8's longest string (~512 MiB).
 */
export const MAX_INPUT_RECORD_BYTES = 64 * 1024 * 1024;

export const MAX_INPUT_RECORD_TEXT = sizeText(MAX_INPUT_RECORD_BYTES);

const LF = 10;
const CR = 13;

/** The offset of the first byte that is not part of valid UTF-8 in `bytes`, or -1. */
export function invalidUtf8At(bytes: Uint8Array): number {
  const end = bytes.length;
  let i = 0;
  while (i < end) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    const sequence = sequenceAfter(b);
    if (!sequence || !continues(bytes, i, sequence)) return i;
    i += sequence[0] + 1;
  }
  return -1;
}

/** How many continuation bytes follow the lead byte `b`, and the range of the first; undefined when `b` cannot lead. */
function sequenceAfter(b: number): readonly [need: number, low: number, high: number] | undefined {
  if (b >= 0xc2 && b <= 0xdf) return [1, 0x80, 0xbf];
  // 0xE0 with a low second byte is overlong; 0xED with a high one a surrogate.
  if (b >= 0xe0 && b <= 0xef) return [2, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf];
  // 0xF0 with a low second byte is overlong; 0xF4 with a high one above U+10FFFF.
  if (b >= 0xf0 && b <= 0xf4) return [3, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf];
  return undefined;
}

/** Whether the continuation bytes after the lead byte at `i` are all there and in range. */
function continues(
  bytes: Uint8Array,
  i: number,
  [need, low, high]: readonly [number, number, number],
): boolean {
  for (let k = 1; k <= need; k++) {
    const c = bytes[i + k];
    if (c === undefined) return false; // cut short at the end
    if (k === 1 ? c < low || c > high : c < 0x80 || c > 0xbf) return false;
  }
  return true;
}

/** Line breaks (LF, or CR in a file without LF) in `bytes` before `end`. */
function countBreaks(bytes: Uint8Array, end: number, byte: number): number {
  let count = 0;
  for (let at = bytes.indexOf(byte); at !== -1 && at < end; at = bytes.indexOf(byte, at + 1)) count++;
  return count;
}

const hex = (byte: number | undefined) => `0x${(byte ?? 0).toString(16).toUpperCase().padStart(2, '0')}`;

/** "invalid UTF-8 (byte 0xE9 at byte offset 1234)": what is wrong at `offset` of `bytes`, `base` bytes in. */
function describeInvalidUtf8(bytes: Uint8Array, offset: number, base = 0): string {
  return `not UTF-8 text: byte ${hex(bytes[offset])} at byte offset ${base + offset} is not valid UTF-8 (save the file as UTF-8, e.g. "CSV UTF-8" in a spreadsheet)`;
}

/**
 * Decodes a whole file that must be UTF-8 text: the text, or a problem naming the line and byte
 * offset of the first invalid byte. A byte-order mark is kept (the JSON parser skips it).
 */
export function decodeUtf8(bytes: Buffer): { ok: true; text: string } | { ok: false; problem: string } {
  if (isUtf8(bytes)) return { ok: true, text: bytes.toString('utf8') };
  const at = invalidUtf8At(bytes);
  const lfs = countBreaks(bytes, at, LF);
  const line = (lfs > 0 || bytes.indexOf(LF) !== -1 ? lfs : countBreaks(bytes, at, CR)) + 1;
  return { ok: false, problem: `line ${line}: ${describeInvalidUtf8(bytes, at)}` };
}

export interface InputProblem {
  line: number;
  problem: string;
}

/**
 * Passes input through in whole lines (up to and including a line break: LF, CRLF, or CR in a
 * file without LF), each checked to be UTF-8 and no longer than MAX_INPUT_RECORD_BYTES. A line that
 * is not UTF-8 is passed as an empty line (its line break alone), or with `mask`, with every byte
 * above 0x7F made '?' (so a CSV's quotes still pair up); a line too long is passed as an empty
 * line. Readers keep exact line numbers, and take each line's problem with `problemsBefore`.
 */
export class CheckedLines extends Transform {
  readonly #problems: InputProblem[] = [];
  /** The start of the current line: chunks without a line break yet. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The offset in the input of the first pending byte (or of the next chunk). */
  #offset = 0;
  /** Inside a line that is too long: dropping bytes up to its line break. */
  #skipping = false;
  #lfs = 0;
  #crs = 0;

  readonly limit: number;
  readonly #mask: boolean;

  constructor(options: { limit?: number; mask?: boolean } = {}) {
    super();
    this.limit = options.limit ?? MAX_INPUT_RECORD_BYTES;
    this.#mask = options.mask ?? false;
  }

  /** The line of the first queued problem (Infinity when none): a cheap test for the hot path. */
  get nextProblemLine(): number {
    return this.#problems[0]?.line ?? Number.POSITIVE_INFINITY;
  }

  /** Takes the queued problems of lines before `line` (all of them without it). */
  *problemsBefore(line = Number.POSITIVE_INFINITY): Generator<InputProblem> {
    while ((this.#problems[0]?.line ?? Number.POSITIVE_INFINITY) < line)
      yield this.#problems.shift() as InputProblem;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#take(chunk);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#pendingBytes > 0) this.#pass(Buffer.concat(this.#pending));
    done();
  }

  /** CR counts as a line break only in a file without LF. */
  get #crBreaks(): boolean {
    return this.#lfs === 0;
  }

  get #line(): number {
    return (this.#lfs > 0 ? this.#lfs : this.#crs) + 1;
  }

  #firstBreak(bytes: Buffer, from = 0): number {
    const lf = bytes.indexOf(LF, from);
    const cr = this.#crBreaks ? bytes.indexOf(CR, from) : -1;
    return lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
  }

  /** The offset just after the last line break before `before`, or 0. */
  #lineStart(bytes: Buffer, before = bytes.length): number {
    const lf = bytes.lastIndexOf(LF, before - 1);
    const cr = this.#crBreaks ? bytes.lastIndexOf(CR, before - 1) : -1;
    return before === 0 ? 0 : Math.max(lf, cr) + 1;
  }

  #take(input: Buffer): void {
    let chunk = input;
    if (this.#skipping) {
      const at = this.#firstBreak(chunk);
      this.#offset += at === -1 ? chunk.length : at;
      if (at === -1) return;
      this.#skipping = false;
      chunk = chunk.subarray(at); // the long line's break: passed as an empty line
    }
    const cut = this.#lineStart(chunk);
    if (cut === 0) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#pendingBytes > this.limit) this.#tooLong();
      return;
    }
    if (this.#pendingBytes > 0) {
      const first = this.#firstBreak(chunk);
      if (this.#pendingBytes + first > this.limit) {
        this.#offset += this.#pendingBytes + first;
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#queueTooLong();
        this.#take(chunk.subarray(first));
        return;
      }
    }
    const whole =
      this.#pending.length === 0
        ? chunk.subarray(0, cut)
        : Buffer.concat([...this.#pending, chunk.subarray(0, cut)]);
    const rest = chunk.subarray(cut);
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingBytes = rest.length;
    if (whole.length > this.limit) this.#passLongChunk(whole);
    else this.#pass(whole);
    if (this.#pendingBytes > this.limit) this.#tooLong();
  }

  /** Whole lines in a chunk larger than the limit (a stream of big chunks): each line checked. */
  #passLongChunk(whole: Buffer): void {
    let start = 0;
    while (start < whole.length) {
      let end = this.#firstBreak(whole, start);
      if (end === -1) end = whole.length;
      const breakAt = whole[end - 1] === CR && end > start ? end - 1 : end;
      if (breakAt - start > this.limit) {
        this.#offset += breakAt - start;
        this.#queueTooLong();
        start = breakAt;
      }
      const next = whole[end] === CR && whole[end + 1] === LF ? end + 2 : end + 1;
      this.#pass(whole.subarray(start, Math.min(next, whole.length)));
      start = next;
    }
  }

  /** Passes whole lines (or the last line), each bad one as its line break alone. */
  #pass(bytes: Buffer): void {
    let rest = bytes;
    while (rest.length > 0 && !isUtf8(rest)) {
      const at = invalidUtf8At(rest);
      const start = this.#lineStart(rest, at);
      this.#emit(rest.subarray(0, start));
      this.#problems.push({ line: this.#line, problem: describeInvalidUtf8(rest, at, this.#offset - start) });
      let end = this.#firstBreak(rest, at);
      if (end === -1) end = rest.length;
      if (rest[end - 1] === CR) end--; // the CR of a CRLF is part of the line break
      if (this.#mask) {
        const line = Buffer.from(rest.subarray(start, end));
        for (let i = 0; i < line.length; i++) if ((line[i] as number) > 0x7f) line[i] = 0x3f;
        this.#emit(line);
      } else this.#offset += end - start;
      rest = rest.subarray(end);
    }
    this.#emit(rest);
  }

  #emit(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#offset += bytes.length;
    this.#lfs += countBreaks(bytes, bytes.length, LF);
    if (this.#lfs === 0) this.#crs += countBreaks(bytes, bytes.length, CR);
    this.push(bytes);
  }

  /** The pending line is over the limit: drop it and what follows up to its line break. */
  #tooLong(): void {
    this.#offset += this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipping = true;
    this.#queueTooLong();
  }

  #queueTooLong(): void {
    this.#problems.push({
      line: this.#line,
      problem: `the line is longer than ${sizeText(this.limit)}, the most one record may hold (is this the right file?)`,
    });
  }
}
