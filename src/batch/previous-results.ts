// What an earlier run left in --output (and in its pending journal), for --resume.
import { createReadStream } from 'node:fs';
import { open, stat, truncate } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { readLines } from '../fs/lines.js';
import { OUTCOME_UNKNOWN, parseResult } from './formats.js';

export type PreviousState = 'created' | 'unknown' | 'failed';

export interface PreviousRecord {
  state: PreviousState;
  fingerprint: string | undefined;
  /** Byte offset in --output where the latest result line for this record starts. */
  offset: number;
}

/** Outcome per input line; `created` wins over anything else, otherwise the latest outcome counts. */
export type PreviousResults = Map<number, PreviousRecord>;

function record(results: PreviousResults, line: number, next: PreviousRecord): void {
  const current = results.get(line);
  if (current?.state === 'created') return;
  results.set(line, next);
}

/**
 * A process killed mid-write can leave a last line without its newline. It was never counted as
 * done, so it is cut off before new lines are appended after it.
 */
export async function dropTornTail(path: string): Promise<void> {
  const size = (await stat(path)).size;
  if (size === 0) return;
  const handle = await open(path, 'r');
  try {
    const chunkSize = Math.min(size, 64 * 1024);
    let end = size;
    for (;;) {
      const start = Math.max(0, end - chunkSize);
      const buffer = Buffer.alloc(end - start);
      await handle.read(buffer, 0, buffer.length, start);
      const newline = buffer.lastIndexOf(10);
      if (end === size && newline === buffer.length - 1) return; // ends cleanly
      if (newline !== -1) {
        await truncate(path, start + newline + 1);
        return;
      }
      if (start === 0) {
        await truncate(path, 0);
        return;
      }
      end = start;
    }
  } finally {
    await handle.close();
  }
}

/**
 * The outcome of each record in a results file. `baseUrls`, when given, receives every base URL
 * the file's lines were sent to (lines of earlier versions name none).
 */
export async function readPreviousResults(path: string, baseUrls?: Set<string>): Promise<PreviousResults> {
  const results: PreviousResults = new Map();
  const lines = readLines(createReadStream(path));
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
