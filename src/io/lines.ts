// Lines of a stream, for the JSON Lines esign reads (batch input, results files, journals).
// node:readline is not used: from Node 24 on it also ends a line at U+2028 and U+2029, which JSON
// allows raw inside a string, so a valid JSON line holding one came apart (and with it a resume).

import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * The lines of `input` as text, split where readline splits with `crlfDelay: Infinity` ("\n",
 * "\r\n" or a lone "\r") and nowhere else; a last line without a break is a line too.
 */
export async function* readLines(input: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of input) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
    // A "\r" at the very end may be the first half of "\r\n": decide when the next chunk comes.
    rest = yield* lines(text, text.endsWith('\r') ? text.length - 1 : text.length);
  }
  const text = rest + decoder.end();
  rest = yield* lines(text, text.length);
  if (rest !== '') yield rest;
}

/** Yields the lines of `text` whose break starts before `usable`; returns what is left. */
function* lines(text: string, usable: number): Generator<string, string> {
  const BREAK = /\r\n|\r|\n/g; // one a call: lines() pauses at each yield, and others may run meanwhile
  let start = 0;
  for (let match = BREAK.exec(text); match !== null && match.index < usable; match = BREAK.exec(text)) {
    yield text.slice(start, match.index);
    start = match.index + match[0].length;
  }
  return text.slice(start);
}
