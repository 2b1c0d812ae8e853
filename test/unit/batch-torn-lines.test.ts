// Only a last line can be torn (issue 21): the readers of the results file and of the journal skip a
// last line that is not JSON, keep a whole last line that lacks its newline, and report any other
// line that is not theirs with its number.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJournalHeader, formatResult, formatSentNote } from '../../src/batch/formats.js';
import { readJournal } from '../../src/batch/journal.js';
import {
  inspectTail,
  ResumeRefusedError,
  readPreviousResults,
  repairTail,
} from '../../src/batch/previous-results.js';

const folder = () => mkdtempSync(join(tmpdir(), 'esign-torn-'));

const result = (line: number) =>
  formatResult({
    line,
    ok: true,
    envelope_id: `E${line}`,
    signing_url: `https://sign.example.com/${'x'.repeat(line % 7)}`,
    fingerprint: `f${line}`,
  });

describe('the results file', () => {
  it('a whole last line is kept with or without its newline; a cut one is left out, then cut off', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.nat(), fc.boolean(), async (count, at, whole) => {
        const lines = Array.from({ length: count }, (_, i) => result(i + 1));
        const last = lines[count - 1] as string;
        const before = lines
          .slice(0, -1)
          .map((l) => `${l}\n`)
          .join('');
        // A cut anywhere inside the last line (never at its end: that is the whole line).
        const tail = whole ? last : last.slice(0, at % last.length);
        const path = join(folder(), 'results.jsonl');
        writeFileSync(path, `${before}${tail}`);
        const found = await inspectTail(path);
        const read = await readPreviousResults(path, undefined, found);
        const kept = whole ? count : count - 1;
        expect([...read.keys()]).toEqual(Array.from({ length: kept }, (_, i) => i + 1));
        await repairTail(path, found);
        expect(readFileSync(path, 'utf8')).toBe(whole ? `${before}${last}\n` : before);
        expect((await readPreviousResults(path)).size).toBe(kept);
      }),
      { numRuns: 60 },
    );
  });

  it('a last line that is not JSON is torn even after a newline (zeros a power cut left); a whole file is untouched', async () => {
    const path = join(folder(), 'results.jsonl');
    writeFileSync(path, `${result(1)}\n\0\0\0\0\n`);
    const torn = await inspectTail(path);
    expect(torn).toEqual({ end: result(1).length + 1, size: result(1).length + 6, unterminated: false });
    const clean = join(folder(), 'clean.jsonl');
    writeFileSync(clean, `${result(1)}\n\n`);
    expect(await inspectTail(clean)).toEqual({
      end: result(1).length + 2,
      size: result(1).length + 2,
      unterminated: false,
    });
  });

  it('finds the last line across reads of 64 KiB', async () => {
    const path = join(folder(), 'results.jsonl');
    const long = formatResult({ line: 2, ok: true, envelope_id: 'E2', signing_url: 'u'.repeat(200_000) });
    writeFileSync(path, `${result(1)}\n${long}`);
    expect(await inspectTail(path)).toMatchObject({ unterminated: true });
    writeFileSync(path, `${result(1)}\n${long.slice(0, 150_000)}`);
    expect(await inspectTail(path)).toMatchObject({ end: result(1).length + 1 });
  });

  it('a line that is not JSON before other lines is reported with its number', async () => {
    const path = join(folder(), 'results.jsonl');
    writeFileSync(path, `${result(1)}\n{"line":2,"ok":tr\n${result(3)}\n`);
    // The engine says which line and what is wrong; the command words it, naming --output
    // (test/commands/envelope-batch-formats.test.ts, test/commands/batch-resume-files.test.ts).
    const read = readPreviousResults(path);
    await expect(read).rejects.toBeInstanceOf(ResumeRefusedError);
    await expect(read).rejects.toMatchObject({
      refusal: { kind: 'not_a_result_line', path, line: 2, problem: 'invalid JSON' },
    });
  });
});

describe('the journal', () => {
  const header = formatJournalHeader({ boot: 'linux:a' });
  const notes = (count: number) =>
    Array.from({ length: count }, (_, i) => formatSentNote({ sent: i + 1, offset: 0 }));

  it('a line that is not JSON is skipped only when last; anywhere before it is reported with its number', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.nat(), async (count, pick) => {
        const lines = [header, ...notes(count)];
        const garbled = 1 + (pick % count); // a sent note, by its index in `lines`
        lines[garbled] = (lines[garbled] as string).slice(0, 7);
        const path = join(folder(), 'out.jsonl.pending');
        writeFileSync(path, `${lines.join('\n')}\n`);
        const read = readJournal(path);
        if (garbled === lines.length - 1) {
          expect((await read).sent.map((s) => s.line)).toEqual(
            Array.from({ length: count - 1 }, (_, i) => i + 1),
          );
        } else {
          await expect(read).rejects.toThrow(
            `${path}: line ${garbled + 1} is not an entry of esign's batch journal (invalid JSON).`,
          );
        }
      }),
      { numRuns: 40 },
    );
  });
});
