// Lines of a stream, for the JSON Lines esign reads (batch input, results files, journals).
// node:readline is not used: from Node 24 on it also ends a line at U+2028 and U+2029, which JSON
// allows raw inside a string, so a valid JSON line holding one came apart (and with it a resume).

import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { readJson } from '../text/json.js';

/**
 * The lines of `input` as text, split where readline splits with `crlfDelay: Infinity` ("\n",
 * "\r\n" or a lone "\r") and nowhere else; a last line without a break is a line too.
 */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  for await (const group of readLineGroups(input)) yield* group;
}

/**
 * readLines a group at a time: the lines each chunk of input completes. A reader of many small
 * lines (a batch's input) pays one asynchronous step a chunk instead of one a line.
 */
export async function* readLineGroups(input: Readable): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  /** The lines of `text` whose break starts before `usable`; what is left goes to `rest`. */
  const split = (text: string, usable: number): string[] => {
    const BREAK = /\r\n|\r|\n/g;
    const group: string[] = [];
    let start = 0;
    for (let match = BREAK.exec(text); match !== null && match.index < usable; match = BREAK.exec(text)) {
      group.push(text.slice(start, match.index));
      start = match.index + match[0].length;
    }
    rest = text.slice(start);
    return group;
  };
  for await (const chunk of input) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
    // A "\r" at the very end may be the first half of "\r\n": decide when the next chunk comes.
    const group = split(text, text.endsWith('\r') ? text.length - 1 : text.length);
    if (group.length > 0) yield group;
  }
  const text = rest + decoder.end();
  const group = split(text, text.length);
  if (rest !== '') group.push(rest);
  if (group.length > 0) yield group;
}

/**
 * readLines, each line told whether it is the last. The files esign appends to (results, journals)
 * can end in a torn line, and only there: each write ends with a newline, and a write cut short (a
 * kill, a full disk, a power cut) loses its end, never its middle. So a reader may skip a line that
 * is not JSON only when it is the last; anywhere else it is damage to report.
 */
export async function* readLinesKnowingLast(
  input: Readable,
): AsyncGenerator<{ text: string; last: boolean }> {
  let previous: string | undefined;
  for await (const text of readLines(input)) {
    if (previous !== undefined) yield { text: previous, last: false };
    previous = text;
  }
  if (previous !== undefined) yield { text: previous, last: true };
}

/**
 * Whether a line of a file esign appends to (results, journal) was torn by a write cut short: only
 * the last line can be, and it is when it is not JSON (every line written is a JSON object).
 */
export function isTornLine(text: string, last: boolean): boolean {
  return last && !readJson(text).ok;
}
