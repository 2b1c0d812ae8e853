// Streaming readers for batch input. Each yields items in groups (a group per chunk of input read, so
// that a reader of 100k records does not pay an asynchronous step for each); an item per record,
// with the line number where the record starts, holding either the raw record or what is wrong
// with it. Nothing is kept in memory.
import { type Readable, Transform } from 'node:stream';
import { parse } from 'csv-parse';
import { CheckedLines, MAX_INPUT_RECORD_BYTES, MAX_INPUT_RECORD_TEXT } from '../fs/input-bytes.js';
import { readLineGroups } from '../fs/lines.js';
import { setMergeField } from '../request/request.js';
import { parseJsonText } from '../text/json.js';

/** A record as read, with the line it starts on; or what is wrong with the input there. */
export type RawItem = { line: number; record: unknown } | { line: number; problem: string };

/**
 * JSON Lines: one JSON object a line; blank lines are skipped; a UTF-8 BOM and CRLF are fine. A
 * line that is not UTF-8, or longer than MAX_INPUT_RECORD_BYTES, is a problem of its own.
 */
export async function* readJsonl(input: Readable): AsyncGenerator<RawItem[]> {
  const checked = input.pipe(new CheckedLines());
  input.once('error', (error) => checked.destroy(error)); // a read error ends the loop below with it
  let line = 0;
  for await (const texts of readLineGroups(checked)) {
    const items: RawItem[] = [];
    for (const raw of texts) {
      line++;
      if (checked.nextProblemLine <= line) items.push(...checked.problemsBefore(line + 1));
      const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      if (text.trim() === '') continue;
      const parsed = parseJsonText(text);
      if (parsed.ok) items.push({ line, record: parsed.value });
      else items.push({ line, problem: `invalid JSON at ${parsed.problem.replace(/^line 1, /, '')}` });
    }
    yield items;
  }
  yield [...checked.problemsBefore()];
}

/** The columns of a CSV that are not merge fields. */
const RESERVED_COLUMNS = [
  'template_id',
  'signatory_name',
  'signatory_email',
  'signatory_phone',
  'expires_in_days',
] as const;

/** The header's columns that hold merge data, as rowToRecord reads them: every column not reserved. */
export function mergeColumns(header: readonly string[]): string[] {
  return header.filter((name) => !(RESERVED_COLUMNS as readonly string[]).includes(name));
}

/**
 * CSV with a header row, through csv-parse: quoted fields with commas, quotes and newlines, a BOM,
 * CRLF. Each row becomes the JSON Lines shape; empty cells count as absent, so defaults apply.
 * `onHeader` is given the header's columns when the header row is a good one: an empty cell drops
 * its column from that row's record, so only the header says which columns there are.
 */
export async function* readCsv(
  input: Readable,
  onHeader?: (columns: readonly string[]) => void,
): AsyncGenerator<RawItem[]> {
  const checked = new CheckedLines({ mask: true });
  const normalised = crlfToLf();
  const parser = input
    .pipe(checked)
    .pipe(normalised)
    .pipe(
      parse({
        bom: true,
        info: true,
        skip_empty_lines: true,
        relax_column_count: true,
        max_record_size: MAX_INPUT_RECORD_BYTES,
      }),
    );
  let readError: unknown;
  input.once('error', (error) => {
    readError = error;
    parser.destroy(error);
  });
  let header: string[] | undefined;
  /** Adds the items of one parsed record (problems of earlier lines first); false when reading ends there (a bad header row). */
  const itemsOf = (item: { record: string[]; info: { lines: number } }, items: RawItem[]): boolean => {
    // info.lines is the line the record ends on; newlines inside quoted fields took it there.
    const breaks = normalised.lineBreak;
    const newlines = item.record.reduce((sum, field) => sum + countLineBreaks(field, breaks), 0);
    const line = item.info.lines - newlines;
    if (checked.nextProblemLine <= item.info.lines) {
      // A line of this record (or an earlier, blank one) was bad: the problem stands for it.
      let ownLine = false;
      for (const problem of checked.problemsBefore(item.info.lines + 1)) {
        ownLine ||= problem.line >= line;
        items.push(problem);
      }
      if (ownLine) return header !== undefined; // the header row itself ends the file
    }
    if (!header) {
      header = item.record.map((name) => name.trim());
      const problem = checkHeader(header);
      if (problem) items.push({ line, problem });
      else onHeader?.(header);
      return !problem;
    }
    if (item.record.length !== header.length) {
      items.push({
        line,
        problem: `expected ${header.length} columns as in the header, found ${item.record.length}`,
      });
    } else items.push({ line, record: rowToRecord(header, item.record) });
    return true;
  };
  try {
    for await (const records of inGroups<{ record: string[]; info: { lines: number } }>(parser)) {
      const items: RawItem[] = [];
      for (const record of records) {
        if (itemsOf(record, items)) continue;
        yield items;
        return;
      }
      yield items;
    }
  } catch (error) {
    if (error === readError) throw error; // the file, not its records
    const { lines, message, code } = error as { lines?: number; message: string; code?: string };
    yield [
      ...checked.problemsBefore(),
      {
        line: lines ?? 0,
        problem:
          code === 'CSV_MAX_RECORD_SIZE'
            ? `the record is larger than ${MAX_INPUT_RECORD_TEXT}, the most one record may hold (an unclosed quote?)`
            : `CSV cannot be read: ${message}`,
      },
    ];
  }
  yield [...checked.problemsBefore()];
}

/**
 * The objects of an object-mode stream, every one it holds at a time: `for await` over the stream
 * itself takes one an asynchronous step.
 */
async function* inGroups<T>(stream: Readable): AsyncGenerator<T[]> {
  const iterator = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const first = await iterator.next();
      if (first.done) return;
      const group: T[] = [first.value as T];
      // What the stream already holds is read at once; the iterator reads the same way, so the two agree.
      while (stream.readableLength > 0) {
        const next: unknown = stream.read();
        if (next === null) break;
        group.push(next as T);
      }
      yield group;
    }
  } finally {
    await iterator.return?.(); // stopped early (a bad header): the stream is destroyed, as `for await` does
  }
}

function checkHeader(header: string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of header) {
    if (name === '') return 'the header row has an empty column name';
    if (seen.has(name)) return `the header row names column '${name}' twice`;
    seen.add(name);
  }
  return undefined;
}

function rowToRecord(header: string[], cells: string[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  const signatory: Record<string, string> = {};
  const mergeData: Record<string, string> = {};
  header.forEach((name, index) => {
    const value = cells[index] ?? '';
    if (value === '') return;
    if (name === 'template_id' || name === 'expires_in_days') record[name] = value;
    else if (name.startsWith('signatory_') && (RESERVED_COLUMNS as readonly string[]).includes(name)) {
      signatory[name.slice('signatory_'.length)] = value;
    } else setMergeField(mergeData, name, value);
  });
  record.signatory = signatory;
  record.merge_data = mergeData;
  return record;
}

function countLineBreaks(text: string, lineBreak: string): number {
  let count = 0;
  for (let at = text.indexOf(lineBreak); at !== -1; at = text.indexOf(lineBreak, at + 1)) count++;
  return count;
}

/**
 * CRLF → LF before parsing. csv-parse counts the CR and the LF of a CRLF inside a quoted field as
 * two lines, which would put every later line number off; with LF only its count is exact. It also
 * notes which line break the file uses (the first one seen): a file of old Mac line ends (CR alone)
 * has csv-parse count CRs, so those are what a quoted field's line breaks are counted by.
 */
function crlfToLf(): Transform & { readonly lineBreak: string } {
  let pendingCr = false;
  let lineBreak: string | undefined;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let text = (pendingCr ? '\r' : '') + chunk.toString('latin1');
      pendingCr = text.endsWith('\r');
      if (pendingCr) text = text.slice(0, -1);
      text = text.replace(/\r\n/g, '\n');
      if (lineBreak === undefined) {
        const first = text.search(/[\r\n]/);
        if (first !== -1) lineBreak = text[first];
      }
      done(null, Buffer.from(text, 'latin1'));
    },
    flush(done) {
      done(null, pendingCr ? Buffer.from('\r', 'latin1') : null);
    },
  });
  return Object.defineProperty(transform, 'lineBreak', { get: () => lineBreak ?? '\n' }) as Transform & {
    readonly lineBreak: string;
  };
}
