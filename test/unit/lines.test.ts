// readLines splits where node:readline (crlfDelay: Infinity) splits on Node 20, and never at U+2028
// or U+2029, where readline on Node 24 splits a valid JSON line in two.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/fs/lines.js';

async function collect(chunks: (string | Buffer)[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of readLines(Readable.from(chunks))) lines.push(line);
  return lines;
}

/** The expected lines: split at \r\n, \r or \n; no line after a final break. */
function expected(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

describe('readLines', () => {
  it('keeps a JSON line whole when a string in it holds U+2028 or U+2029', async () => {
    expect(await collect(['{"a":"x\u2028y"}\n{"b":"\u2029"}\n'])).toEqual([
      '{"a":"x\u2028y"}',
      '{"b":"\u2029"}',
    ]);
  });

  it('splits at \\n, \\r\\n and a lone \\r, across any chunking, bytes split mid-character included', async () => {
    const alphabet = fc.constantFrom('a', 'é', '€', '😀', '\n', '\r', '\u2028', ' ', '"');
    await fc.assert(
      fc.asyncProperty(
        fc.array(alphabet, { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 7 })),
        async (chars, cuts) => {
          const text = chars.join('');
          const bytes = Buffer.from(text);
          const chunks: Buffer[] = [];
          let at = 0;
          for (const cut of cuts) {
            if (at >= bytes.length) break;
            chunks.push(bytes.subarray(at, at + cut));
            at += cut;
          }
          if (at < bytes.length) chunks.push(bytes.subarray(at));
          expect(await collect(chunks)).toEqual(expected(text));
        },
      ),
    );
  });
});
