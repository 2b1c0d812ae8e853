// Input bytes: the UTF-8 check (against the platform's own decoder), and CheckedLines, which
// passes whole lines and turns a bad line (not UTF-8, or too long) into an empty one plus a problem.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RawItem, readCsv, readJsonl } from '../../src/batch/readers.js';
import {
  CheckedLines,
  decodeUtf8,
  type InputProblem,
  invalidUtf8At,
  MAX_INPUT_RECORD_BYTES,
} from '../../src/fs/input-bytes.js';

const fatal = new TextDecoder('utf-8', { fatal: true });
const isValid = (bytes: Uint8Array) => {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** Bytes that are mostly text: ASCII, line breaks, valid sequences and the odd stray byte. */
const textish = fc
  .array(
    fc.oneof(
      fc.constantFrom(...Buffer.from('ab,"\n\r\n\r')),
      fc.constantFrom(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xc0, 0xff),
      fc.string({ unit: 'grapheme', maxLength: 3 }).map((s) => Buffer.from(s)),
    ),
    { maxLength: 60 },
  )
  .map((parts) => Buffer.concat(parts.map((p) => (typeof p === 'number' ? Buffer.from([p]) : p))));

function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) out.push(bytes.subarray(start, point));
    start = Math.max(start, point);
  }
  return out;
}

async function check(
  parts: Buffer[],
  options?: { limit?: number; mask?: boolean },
): Promise<{ out: Buffer; problems: InputProblem[] }> {
  const guard = Readable.from(parts).pipe(new CheckedLines(options));
  const out: Buffer[] = [];
  for await (const chunk of guard) out.push(chunk as Buffer);
  return { out: Buffer.concat(out), problems: [...guard.problemsBefore()] };
}

async function collect(generator: AsyncGenerator<RawItem[]>): Promise<RawItem[]> {
  const items: RawItem[] = [];
  for await (const group of generator) items.push(...group);
  return items;
}

describe('invalidUtf8At', () => {
  it('agrees with a fatal TextDecoder: -1 exactly for valid UTF-8, else a prefix that is valid', () => {
    fc.assert(
      fc.property(fc.oneof(textish, fc.uint8Array({ maxLength: 40 })), (raw) => {
        const bytes = Buffer.from(raw);
        const at = invalidUtf8At(bytes);
        expect(at === -1).toBe(isValid(bytes));
        if (at !== -1) {
          expect(isValid(bytes.subarray(0, at))).toBe(true);
          // No longer valid prefix ends inside the sequence that starts at `at`.
          for (let end = at + 1; end <= Math.min(at + 4, bytes.length); end++) {
            expect(isValid(bytes.subarray(0, end))).toBe(false);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('names overlong forms, surrogates and code points above U+10FFFF', () => {
    for (const bad of [
      [0xc0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5],
      [0xe2, 0x82],
    ]) {
      expect(invalidUtf8At(Buffer.from([0x61, ...bad, 0x62]))).toBe(1);
    }
  });
});

describe('decodeUtf8', () => {
  it('names the line and byte offset of the first bad byte', () => {
    expect(decodeUtf8(Buffer.from('{\n  "company": "Soci\xe9t\xe9"\n}', 'latin1'))).toEqual({
      ok: false,
      problem:
        'line 2: not UTF-8 text: byte 0xE9 at byte offset 20 is not valid UTF-8 (save the file as UTF-8, e.g. "CSV UTF-8" in a spreadsheet)',
    });
    expect(decodeUtf8(Buffer.from('\ufeff{"a":"é"}'))).toEqual({ ok: true, text: '\ufeff{"a":"é"}' });
  });
});

describe('CheckedLines', () => {
  it('whatever the chunking: valid lines pass as they are, each bad line becomes its line break alone, with its line and offset', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(textish, { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (lines, eol, cuts) => {
          const clean = lines.map((l) => Buffer.from(l.toString('latin1').replace(/[\r\n]/g, ''), 'latin1'));
          const input = Buffer.concat(clean.flatMap((l) => [l, Buffer.from(eol)]));
          const { out, problems } = await check(chunks(input, cuts));
          const expected =
            clean.map((l) => (isValid(l) ? l.toString('latin1') : '')).join(eol) + (clean.length ? eol : '');
          expect(out.toString('latin1')).toBe(expected);
          let offset = 0;
          const wanted: InputProblem[] = [];
          clean.forEach((l, i) => {
            const at = invalidUtf8At(l);
            if (at !== -1)
              wanted.push({
                line: i + 1,
                problem: expect.stringContaining(`at byte offset ${offset + at} `),
              });
            offset += l.length + eol.length;
          });
          expect(problems).toEqual(wanted);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a line over the limit is dropped with a problem naming it; the lines around it pass', async () => {
    const input = Buffer.from(`short\n${'x'.repeat(50)}\nafter\n${'y'.repeat(40)}`);
    for (const size of [1, 7, 16, 1000]) {
      const parts = chunks(
        input,
        Array.from({ length: 200 }, (_, i) => i * size),
      );
      const { out, problems } = await check(parts, { limit: 32 });
      expect(out.toString()).toBe('short\n\nafter\n');
      expect(problems).toEqual([
        {
          line: 2,
          problem: 'the line is longer than 32 bytes, the most one record may hold (is this the right file?)',
        },
        { line: 4, problem: expect.stringContaining('longer than') },
      ]);
    }
  });

  it('old Mac line ends (CR alone) count as lines too', async () => {
    const { out, problems } = await check([Buffer.from('a\rb\xff\rc\r', 'latin1')]);
    expect(out.toString('latin1')).toBe('a\r\rc\r');
    expect(problems).toEqual([{ line: 2, problem: expect.stringContaining('byte 0xFF at byte offset 3 ') }]);
  });
});

describe('batch readers and bad bytes', () => {
  const latin1 = (text: string) => Readable.from([Buffer.from(text, 'latin1')]);

  it('readCsv: a Latin-1 row is a problem naming its line and byte offset; the other rows are read', async () => {
    const items = await collect(
      readCsv(
        latin1(
          'signatory_name,signatory_email\nAda,ada@example.com\nRen\xe9e,renee@example.com\nBob,bob@example.com\n',
        ),
      ),
    );
    expect(items).toEqual([
      { line: 2, record: { signatory: { name: 'Ada', email: 'ada@example.com' }, merge_data: {} } },
      { line: 3, problem: expect.stringContaining('not UTF-8 text: byte 0xE9 at byte offset 54 ') },
      { line: 4, record: { signatory: { name: 'Bob', email: 'bob@example.com' }, merge_data: {} } },
    ]);
  });

  it('readCsv: a bad byte inside a quoted field over two lines (its problem stands for the record), and a bad last line without a line break', async () => {
    const items = await collect(
      readCsv(latin1('signatory_name,company\r\nAda,"one\r\ntw\xf6"\r\nBob,x\r\nEve,\xff')),
    );
    expect(items.map((item) => ('problem' in item ? [item.line, 'problem'] : [item.line, 'record']))).toEqual(
      [
        [3, 'problem'],
        [4, 'record'],
        [5, 'problem'],
      ],
    );
  });

  it('readJsonl: a Latin-1 line is a problem with its line; blank lines and the lines after keep their numbers', async () => {
    const items = await collect(
      readJsonl(
        latin1(
          '{"signatory":{"name":"Ada"}}\n\n{"signatory":{"name":"Ren\xe9e"}}\r\n{"signatory":{"name":"Bob"}}\n',
        ),
      ),
    );
    expect(items).toEqual([
      { line: 1, record: { signatory: { name: 'Ada' } } },
      { line: 3, problem: expect.stringContaining('byte 0xE9 at byte offset 55 ') },
      { line: 4, record: { signatory: { name: 'Bob' } } },
    ]);
  });

  it('readJsonl and readCsv: a line over 64 MiB is a problem naming it, not a RangeError', async () => {
    const long = 'a'.repeat(MAX_INPUT_RECORD_BYTES + 10);
    const jsonl = await collect(readJsonl(Readable.from([`{"x":1}\n{"x":"${long}"}\n{"x":3}\n`])));
    expect(jsonl).toEqual([
      { line: 1, record: { x: 1 } },
      { line: 2, problem: expect.stringContaining('the line is longer than 64 MiB') },
      { line: 3, record: { x: 3 } },
    ]);
    const csv = await collect(readCsv(Readable.from([`signatory_name,x\nAda,1\nBob,${long}\nEve,3\n`])));
    expect(csv.map((item) => [item.line, 'problem' in item ? item.problem.slice(0, 30) : 'record'])).toEqual([
      [2, 'record'],
      [3, 'the line is longer than 64 MiB'],
      [4, 'record'],
    ]);
  }, 60_000);

  it('readCsv: a quoted record over 64 MiB across many short lines is a problem, not a RangeError', async () => {
    const lines = `${'b'.repeat(1000)}\n`.repeat(70 * 1024);
    const items = await collect(readCsv(Readable.from([`signatory_name,x\nAda,"${lines}"\n`])));
    expect(items).toEqual([
      { line: expect.any(Number), problem: expect.stringContaining('the record is larger than 64 MiB') },
    ]);
  }, 60_000);

  it('a read error of the input ends either reader with that error (not a hang, not a crash)', async () => {
    for (const [reader, text] of [
      [readJsonl, '{"a":1}\n'],
      [readCsv, 'signatory_name\nAda\n'],
    ] as const) {
      const input = new Readable({ read() {} });
      input.push(Buffer.from(text));
      setImmediate(() => input.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })));
      await expect(collect(reader(input))).rejects.toThrow('EIO: i/o error, read');
    }
  });
});
