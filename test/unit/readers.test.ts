import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RawItem, readCsv, readJsonl } from '../../src/batch/readers.js';

async function collect(generator: AsyncGenerator<RawItem[]>): Promise<RawItem[]> {
  const items: RawItem[] = [];
  for await (const group of generator) items.push(...group);
  return items;
}

/** Splits text into chunks at the given cut points, to test chunk boundaries (a CR at the end of one). */
function chunked(text: string, cuts: number[] = []): Readable {
  const buffer = Buffer.from(text);
  const points = [...new Set(cuts.map((c) => c % (buffer.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of [...points, buffer.length]) {
    if (point > start) chunks.push(buffer.subarray(start, point));
    start = Math.max(start, point);
  }
  return Readable.from(chunks);
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) || value === '' ? `"${value.replace(/"/g, '""')}"` : value;
}

describe('readCsv', () => {
  it('handles quotes, commas, newlines, a BOM and CRLF, with start line numbers', async () => {
    const csv =
      '\ufeffsignatory_name,signatory_email,company,note\r\n' +
      '"Lovelace, Ada",ada@example.com,"Analytical ""Engines""","two\r\nlines"\r\n' +
      '\r\n' +
      'Bob,bob@example.com,Acme,\r\n';
    const items = await collect(readCsv(chunked(csv)));
    expect(items).toEqual([
      {
        line: 2,
        record: {
          signatory: { name: 'Lovelace, Ada', email: 'ada@example.com' },
          merge_data: { company: 'Analytical "Engines"', note: 'two\nlines' },
        },
      },
      {
        line: 5,
        record: { signatory: { name: 'Bob', email: 'bob@example.com' }, merge_data: { company: 'Acme' } },
      },
    ]);
  });

  it('reports a row with the wrong number of columns, and a broken quote, with their lines', async () => {
    const items = await collect(readCsv(chunked('a,b\n1,2\n3\n4,5\n')));
    expect(items[1]).toEqual({ line: 3, problem: 'expected 2 columns as in the header, found 1' });
    const broken = await collect(readCsv(chunked('a,b\n1,2\n4,"5\n')));
    expect(broken.at(-1)).toEqual({
      line: 3,
      problem: expect.stringContaining('CSV cannot be read: Quote Not Closed'),
    });
  });

  it('round-trips any table of strings written as CSV, whatever the chunking and line ends', async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', ' ', 'é', '1'), maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }).chain((columns) =>
          fc.record({
            rows: fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), { maxLength: 6 }),
            columns: fc.constant(columns),
          }),
        ),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(400), { maxLength: 4 }),
        async ({ rows: drawn, columns }, eol, cuts) => {
          // A file of old Mac line ends (CR alone) has CRs inside its quoted fields too.
          const rows = eol === '\r' ? drawn.map((row) => row.map((v) => v.replace(/\n/g, '\r'))) : drawn;
          const header = Array.from({ length: columns }, (_, i) => `field${i}`);
          // A row whose every cell is empty would be an empty line, which CSV skips: keep one quoted.
          const lines = [header.join(','), ...rows.map((row) => row.map(csvField).join(','))];
          const items = await collect(readCsv(chunked(lines.join(eol) + eol, cuts)));
          expect(items).toHaveLength(rows.length);
          let line = 2;
          items.forEach((item, index) => {
            const row = rows[index] as string[];
            expect(item.line).toBe(line);
            line += 1 + row.reduce((n, value) => n + (value.match(/\n|\r/g)?.length ?? 0), 0);
            const expected = Object.fromEntries(
              header.map((name, i) => [name, row[i]]).filter(([, v]) => v !== ''),
            );
            expect('record' in item && item.record).toEqual({ signatory: {}, merge_data: expected });
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('readJsonl', () => {
  it('gives each object its line, skips blank lines, and reports bad JSON', async () => {
    const items = await collect(readJsonl(chunked('\ufeff{"a":1}\r\n\r\n{"b":2}\n{bad\n')));
    expect(items).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 3, record: { b: 2 } },
      { line: 4, problem: expect.stringContaining('invalid JSON at column 2') },
    ]);
  });

  it('round-trips any sequence of JSON values, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.array(fc.nat(2000), { maxLength: 4 }),
        async (values, cuts) => {
          const text = values.map((v) => JSON.stringify(v)).join('\n');
          const items = await collect(readJsonl(chunked(text, cuts)));
          expect(items.map((item) => ('record' in item ? item.record : item.problem))).toEqual(
            values.map((v) => JSON.parse(JSON.stringify(v))),
          );
          expect(items.map((item) => item.line)).toEqual(values.map((_, i) => i + 1));
        },
      ),
      { numRuns: 200 },
    );
  });
});
