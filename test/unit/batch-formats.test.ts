// The results and journal formats (src/batch/formats.ts): what the typed writers produce is what the
// schemas read back, for any value; lines that do not match are named with the file, line and key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CreatedResult,
  type FailedResult,
  formatJournalHeader,
  formatReservation,
  formatResult,
  formatSentNote,
  type JournalReservation,
  parseJournalEntry,
  parseResult,
  resultFormatter,
} from '../../src/batch/formats.js';
import { IntentJournal, readJournal } from '../../src/batch/journal.js';
import { ResumeRefusedError, readPreviousResults } from '../../src/batch/previous-results.js';
import { UsageError } from '../../src/errors.js';

const folder = () => mkdtempSync(join(tmpdir(), 'esign-formats-'));

const line = fc.integer({ min: 1, max: 2 ** 40 });
const offset = fc.integer({ min: 0, max: 2 ** 40 });
// Any text, quotes, backslashes, control characters and lone surrogates included.
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800'),
);

const created: fc.Arbitrary<CreatedResult> = fc.record(
  {
    line,
    ok: fc.constant(true as const),
    envelope_id: text,
    signing_url: text,
    status: text,
    created_at: text,
    request_id: text,
    fingerprint: text,
  },
  { requiredKeys: ['line', 'ok', 'envelope_id', 'signing_url'] },
);

const failed: fc.Arbitrary<FailedResult> = fc.record(
  {
    line,
    ok: fc.constant(false as const),
    error: fc.record(
      {
        code: text,
        message: text,
        status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
        details: fc.array(text, { maxLength: 3 }),
        hint: text,
      },
      { requiredKeys: ['code', 'message'] },
    ),
    request_id: text,
    fingerprint: text,
  },
  { requiredKeys: ['line', 'ok', 'error'] },
);

describe('result lines', () => {
  it('what formatResult writes, parseResult reads back the same, for any created or failed record', () => {
    fc.assert(
      fc.property(fc.oneof(created, failed), (result) => {
        const written = formatResult(result);
        expect(written).not.toContain('\n'); // one line, whatever the strings hold
        const read = parseResult(written);
        expect(read).toEqual({ ok: true, value: result });
      }),
    );
  });

  it('resultFormatter writes what formatResult writes of the result with base_url added last, for any base URL', () => {
    fc.assert(
      fc.property(
        fc.oneof(created, failed),
        fc.option(text, { nil: undefined }),
        fc.option(text, { nil: undefined }),
        (result, baseUrl, earlier) => {
          // a result that holds a base_url already (one read back from a results file) keeps its place
          const given = earlier === undefined ? result : { ...result, base_url: earlier };
          const expected = formatResult(baseUrl === undefined ? given : { ...given, base_url: baseUrl });
          expect(resultFormatter(baseUrl)(given)).toBe(expected);
          expect(parseResult(expected)).toMatchObject({ ok: true });
        },
      ),
    );
  });

  it('keeps the keys in the order of the contract: line and ok first', () => {
    const written = formatResult({
      line: 3,
      ok: true,
      envelope_id: 'E1',
      signing_url: 'https://sign.example.com/s/E1',
      request_id: 'req_1',
      fingerprint: 'f3',
    });
    expect(written).toBe(
      '{"line":3,"ok":true,"envelope_id":"E1","signing_url":"https://sign.example.com/s/E1","request_id":"req_1","fingerprint":"f3"}',
    );
  });

  it.each([
    ['{"line":1,"ok":true,"envelope_id":"E1"', 'invalid JSON'],
    ['[1,true]', 'not a JSON object'],
    [
      '{"line":0,"ok":true,"envelope_id":"E1","signing_url":"u"}',
      '"line" must be a whole number of at least 1',
    ],
    ['{"line":"2","ok":true,"envelope_id":"E1","signing_url":"u"}', '"line" must be a whole number'],
    ['{"line":2,"ok":"yes"}', '"ok" must be true or false'],
    ['{"line":2,"ok":true,"signing_url":"u"}', '"envelope_id" must be a string'],
    ['{"line":2,"ok":false,"error":{"message":"m"}}', '"error.code" must be a string'],
    // A batch's failed record carries create's hint: a string, like the message it goes with.
    ['{"line":2,"ok":false,"error":{"code":"x","message":"m","hint":5}}', '"error.hint" must be a string'],
  ])('names what is wrong with %s', (line, problem) => {
    expect(parseResult(line)).toMatchObject({ ok: false, problem });
  });

  it('a results file with a line that does not match is refused, naming the file, the line and the key', async () => {
    const path = join(folder(), 'results.jsonl');
    writeFileSync(
      path,
      `${formatResult({ line: 1, ok: true, envelope_id: 'E1', signing_url: 'u' })}\n{"line":2,"ok":false,"error":{"code":"x"}}\n`,
    );
    // The engine says which line and what is wrong; the command words it, naming --output
    // (test/commands/envelope-batch-formats.test.ts).
    const read = readPreviousResults(path);
    await expect(read).rejects.toBeInstanceOf(ResumeRefusedError);
    await expect(read).rejects.toMatchObject({
      refusal: { kind: 'not_a_result_line', path, line: 2, problem: '"error.message" must be a string' },
    });
  });
});

describe('journal entries', () => {
  const reservation: fc.Arbitrary<JournalReservation> = fc.record(
    { line, fingerprint: text, offset, reserved: fc.constant(true as const) },
    { requiredKeys: ['line', 'offset', 'reserved'] },
  );

  it('header, reservations and sent notes read back as written, for any value', () => {
    fc.assert(
      fc.property(text, reservation, line, offset, (boot, reserved, sent, at) => {
        expect(parseJournalEntry(formatJournalHeader({ boot }))).toEqual({
          ok: true,
          value: { kind: 'header', entry: { boot } },
        });
        const written = formatReservation(reserved);
        expect(written).not.toContain('\n');
        expect(parseJournalEntry(written)).toEqual({
          ok: true,
          value: { kind: 'reservation', entry: reserved },
        });
        expect(parseJournalEntry(formatSentNote({ sent, offset: at }))).toEqual({
          ok: true,
          value: { kind: 'sent', entry: { sent, offset: at } },
        });
      }),
    );
  });

  it('a reservation without a fingerprint is still JSON (the key is left out)', () => {
    const written = formatReservation({ line: 4, offset: 0, reserved: true });
    expect(JSON.parse(written)).toEqual({ line: 4, offset: 0, reserved: true });
  });

  it('an intent of the earlier format (no "reserved") reads as one that may have left', async () => {
    const path = join(folder(), 'out.jsonl.pending');
    writeFileSync(path, '{"boot":"linux:a"}\n{"line":7,"fingerprint":"f7","offset":12}\n');
    const contents = await readJournal(path);
    expect(contents.reserved).toEqual([{ line: 7, fingerprint: 'f7', offset: 12 }]);
    expect(contents.sent).toEqual([{ line: 7, fingerprint: 'f7', offset: 12 }]);
  });

  it('what IntentJournal writes, readJournal reads back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ line, fingerprint: text }), { selector: (r) => r.line, maxLength: 8 }),
        offset,
        async (records, at) => {
          const path = join(folder(), 'out.jsonl.pending');
          const journal = await IntentJournal.create(path, { boot: 'linux:boot-x' });
          await journal.reserve(records, at);
          await Promise.all(records.map((record) => journal.sent(record.line, at + 1)));
          await journal.close();
          const contents = await readJournal(path);
          expect(contents.boot).toBe('linux:boot-x');
          expect(contents.reserved).toEqual(records.map((r) => ({ ...r, offset: at })));
          expect(contents.sent).toEqual(records.map((r) => ({ ...r, offset: at + 1 })));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a JSON line that is not an entry is reported with the file and line; a torn line is skipped', async () => {
    const path = join(folder(), 'out.jsonl.pending');
    writeFileSync(
      path,
      '{"boot":"linux:a"}\n{"line":2,"fingerprint":"f2","offset":0,"reserved":true}\n{"sent":2,"off\n',
    );
    await expect(readJournal(path)).resolves.toMatchObject({ sent: [] });
    writeFileSync(path, '{"boot":"linux:a"}\n{"sent":"2","offset":0}\n{"sent":3,"offset":0}\n');
    const read = readJournal(path);
    await expect(read).rejects.toBeInstanceOf(UsageError);
    await expect(read).rejects.toThrow(
      `${path}: line 2 is not an entry of esign's batch journal ("sent" must be a whole number).`,
    );
  });
});
