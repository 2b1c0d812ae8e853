// What an earlier run left in --output (and in its pending journal), for --resume.
import { createReadStream } from 'node:fs';
import { appendFile, open, stat, truncate } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { readLines } from '../fs/lines.js';
import { readJson } from '../text/json.js';
import { OUTCOME_UNKNOWN, parseResult } from './formats.js';

export type PreviousState = 'created' | 'unknown' | 'failed';

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
  const size = (await stat(path)).size;
  const handle = await open(path, 'r');
  try {
    let tail = Buffer.alloc(0);
    let start = size;
    for (;;) {
      const found = lastLine(tail);
      if (found || start === 0) {
        if (!found) return { end: size, size, unterminated: false }; // blank (or empty) file
        const [lineStart, lineEnd] = found;
        // A line found with nothing before it in the buffer may go on before it: read more then.
        if (lineStart > 0 || start === 0) {
          const whole = readJson(tail.subarray(lineStart, lineEnd).toString('utf8')).ok;
          if (!whole) return { end: start + lineStart, size, unterminated: false };
          return { end: size, size, unterminated: !isBreak(tail[tail.length - 1] as number) };
        }
      }
      const from = Math.max(0, start - 64 * 1024);
      const chunk = Buffer.alloc(start - from);
      await handle.read(chunk, 0, chunk.length, from);
      tail = Buffer.concat([chunk, tail]);
      start = from;
    }
  } finally {
    await handle.close();
  }
}

/** Where the last line with anything but blanks starts and ends in `bytes` (its start 0 when no break precedes it). */
function lastLine(bytes: Buffer): [number, number] | undefined {
  let end = bytes.length;
  while (end > 0 && isBlank(bytes[end - 1] as number)) end--;
  if (end === 0) return undefined;
  let start = end;
  while (start > 0 && !isBreak(bytes[start - 1] as number)) start--;
  return [start, end];
}

/**
 * Makes a results file ready for appending: a torn last line cut off, a newline after a whole last
 * line that lacks one.
 */
export async function repairTail(path: string, tail: ResultsTail): Promise<void> {
  if (tail.end < tail.size) await truncate(path, tail.end);
  else if (tail.unterminated) await appendFile(path, '\n');
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
  const lines = readLines(createReadStream(path, { end: end - 1 }));
  let lineNumber = 0;
  let offset = 0;
  for await (const text of lines) {
    lineNumber++;
    const start = offset;
    offset += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    const parsed = parseResult(text);
    if (!parsed.ok) {
      throw new UsageError(
        `--output ${path}: line ${lineNumber} is not a result line of esign (${parsed.problem}).`,
        {
          hint: 'Resume needs the results file of an earlier run, unchanged.',
        },
      );
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
