// What an earlier run left in the results file (and in its pending journal), for a resumed run.
import { constants } from 'node:fs';
import { OUTCOME_UNKNOWN } from '../errors.js';
import { isTornLine, readLines } from '../fs/lines.js';
import { openRegularFile } from '../fs/regular-file.js';
import { parseResult } from './formats.js';

type PreviousState = 'created' | 'unknown' | 'failed';

export interface PreviousRecord {
  state: PreviousState;
  fingerprint: string | undefined;
  /** Byte offset in --output where the latest result line for this record starts. */
  offset: number;
}

/**
 * Outcome per input line; `created` wins over anything else, otherwise the latest outcome counts.
 * `shownAs` names the results file as the user gave it, for messages.
 */
export type PreviousResults = Map<number, PreviousRecord> & { shownAs?: string };

/**
 * Why the earlier results cannot be resumed, with what was found, for the command to word:
 * - `not_a_result_line`: line `line` of the results file at `path` is not a result of esign;
 * - `other_api`: its envelopes were created at `recorded`, and this run would send to `baseUrl`.
 */
export type ResumeRefusal =
  | { kind: 'not_a_result_line'; path: string; line: number; problem: string }
  | { kind: 'other_api'; recorded: string[]; baseUrl: string };

/** Thrown when the earlier results cannot be resumed; `refusal` says why. Nothing was sent. */
export class ResumeRefusedError extends Error {
  constructor(readonly refusal: ResumeRefusal) {
    super(`The earlier results cannot be resumed: ${refusal.kind}.`);
    this.name = 'ResumeRefusedError';
  }
}

function record(results: PreviousResults, line: number, next: PreviousRecord): void {
  const current = results.get(line);
  if (current?.state === 'created') return;
  results.set(line, next);
}

/** The whole lines of a results file, and how its last line ends. */
export interface ResultsTail {
  /** Where the whole lines end: the file's size, or where a torn last line starts. */
  end: number;
  /** The file's size now. */
  size: number;
  /** The last whole line has no newline after it: one is due before anything is appended. */
  unterminated: boolean;
}

const isBlank = (byte: number) => byte === 10 || byte === 13 || byte === 32 || byte === 9;
const isBreak = (byte: number) => byte === 10 || byte === 13;

/**
 * How a results file ends. A write cut short (a kill, a full disk) leaves its last line without its
 * end: that line is not JSON, was never counted as done, and is left out (only the last line can
 * be torn, see readLinesKnowingLast). A last line that is whole JSON but lacks its newline (an
 * editor, a tool that strips it) is a result like any other: it is kept.
 */
export async function inspectTail(path: string): Promise<ResultsTail> {
  // A regular file, decided at the open (a named pipe put there is refused, never waited on).
  const { handle, stats } = await openRegularFile(path, constants.O_RDONLY);
  const { size } = stats;
  try {
    // Read backwards, a chunk at a time, until the last line with anything but blanks has begun.
    const chunks: Buffer[] = [];
    const scan: LineScan = { contentEnd: -1, lineStart: -1 };
    let start = size;
    while (start > 0 && scan.lineStart < 0) {
      const from = Math.max(0, start - 64 * 1024);
      const chunk = Buffer.alloc(start - from);
      await handle.read(chunk, 0, chunk.length, from);
      scanBackwards(chunk, from, scan);
      chunks.unshift(chunk);
      start = from;
    }
    if (scan.contentEnd < 0) return { end: size, size, unterminated: false }; // blank (or empty)
    const lineStart = Math.max(scan.lineStart, 0);
    const tail = Buffer.concat(chunks);
    const line = tail.subarray(lineStart - start, scan.contentEnd - start).toString('utf8');
    if (isTornLine(line, true)) return { end: lineStart, size, unterminated: false };
    return { end: size, size, unterminated: !isBreak(tail[tail.length - 1] as number) };
  } finally {
    await handle.close();
  }
}

/** Where (in the file) the last line with anything but blanks ends, and where it starts; -1 until found. */
interface LineScan {
  contentEnd: number;
  lineStart: number;
}

/** Goes on with `scan` through `chunk`, which starts at `offset` in the file and ends where the previous one began. */
function scanBackwards(chunk: Buffer, offset: number, scan: LineScan): void {
  for (let i = chunk.length - 1; i >= 0; i--) {
    const byte = chunk[i] as number;
    if (scan.contentEnd < 0) {
      if (!isBlank(byte)) scan.contentEnd = offset + i + 1;
    } else if (isBreak(byte)) {
      scan.lineStart = offset + i + 1;
      return;
    }
  }
}

/**
 * Makes a results file ready for appending: a torn last line cut off, a newline after a whole last
 * line that lacks one.
 */
export async function repairTail(path: string, tail: ResultsTail): Promise<void> {
  if (tail.end >= tail.size && !tail.unterminated) return;
  const { handle } = await openRegularFile(path, constants.O_WRONLY | constants.O_APPEND, { noFollow: true });
  try {
    if (tail.end < tail.size) await handle.truncate(tail.end);
    else await handle.appendFile('\n');
  } finally {
    await handle.close();
  }
}

/**
 * The outcome of each record in a results file, a torn last line left out (`tail` when it was
 * inspected already); any other line that is not a result is reported. `baseUrls`, when given, receives every base URL
 * the file's lines were sent to (lines of earlier versions name none).
 */
export async function readPreviousResults(
  path: string,
  baseUrls?: Set<string>,
  tail?: ResultsTail,
): Promise<PreviousResults> {
  const results: PreviousResults = new Map();
  const end = (tail ?? (await inspectTail(path))).end;
  if (end === 0) return results;
  const { handle } = await openRegularFile(path, constants.O_RDONLY);
  const lines = readLines(handle.createReadStream({ start: 0, end: end - 1 }));
  let lineNumber = 0;
  let offset = 0;
  for await (const text of lines) {
    lineNumber++;
    const start = offset;
    offset += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    const parsed = parseResult(text);
    if (!parsed.ok) {
      throw new ResumeRefusedError({
        kind: 'not_a_result_line',
        path,
        line: lineNumber,
        problem: parsed.problem,
      });
    }
    const entry = parsed.value;
    if (entry.base_url !== undefined) baseUrls?.add(entry.base_url);
    const fingerprint = entry.fingerprint;
    const state: PreviousState = entry.ok
      ? 'created'
      : entry.error.code === OUTCOME_UNKNOWN
        ? 'unknown'
        : 'failed';
    record(results, entry.line, { state, fingerprint, offset: start });
  }
  return results;
}
