// The two files a batch writes, as zod schemas: the results (--output, or stdout) and the intent
// journal (`<output>.pending`). Both are written through the typed serialisers below, whose input
// is the schema's type (no parsing on the write path: a batch writes 10k+ lines a second), and read
// back through the schemas, so that what is written and what a resume accepts cannot drift apart.
//
// Results, one line a record (more keys allowed; the contract's `{"line": n, "ok": …}`):
//   {"line":12,"ok":true,"envelope_id":"…","signing_url":"…",…,"request_id":"…","fingerprint":"…"}
//   {"line":13,"ok":false,"error":{"code":"…","message":"…","status":429},"request_id":"…","fingerprint":"…"}
// Lines in --output end with `"base_url":"…"`, the API the record was sent to (sinks.ts adds it).
//
// Journal (see journal.ts for what each line means to a resume):
//   {"boot":"linux:…"}                                                  first line
//   {"line":12,"fingerprint":"…","offset":345,"reserved":true}          a reservation (synced)
//   {"sent":12,"offset":400}                                            a sent note
//   {"line":12,"fingerprint":"…","offset":345}                          an intent of the earlier format
import * as z from 'zod/mini';
import { hotParser } from '../api/schemas.js';
import { describeIssue, issuePath } from '../text/issues.js';
import { readJson } from '../text/json.js';

const lineNumber = () =>
  z.int({ error: 'must be a whole number' }).check(z.positive('must be a whole number of at least 1'));
const byteOffset = () =>
  z.int({ error: 'must be a whole number' }).check(z.nonnegative('must be a whole number of at least 0'));

/** The error of a failed (or unknown) record, as `--json` prints errors. */
const ResultError = z.looseObject({
  code: z.string(),
  message: z.string(),
  /** HTTP status of the answer, or null when there was none. */
  status: z.optional(z.nullable(z.int())),
  details: z.optional(z.array(z.string())),
  /** What to do about it, as `create` prints it under the error. */
  hint: z.optional(z.string()),
});

/** A created envelope: the envelope's fields as the API gave them, between line/ok and request_id. */
export const CreatedResult = z.looseObject({
  line: lineNumber(),
  ok: z.literal(true),
  envelope_id: z.string(),
  signing_url: z.string(),
  request_id: z.optional(z.string()),
  /** Identifies the request sent for the record (template, signatory, merge data). */
  fingerprint: z.optional(z.string()),
  /** The API the request went to (absent in files of earlier versions): a resume must go there too. */
  base_url: z.optional(z.string()),
});
export type CreatedResult = z.infer<typeof CreatedResult>;

/** A failed record, or one whose outcome is unknown (`error.code` "outcome_unknown"). */
export const FailedResult = z.looseObject({
  line: lineNumber(),
  ok: z.literal(false),
  error: ResultError,
  request_id: z.optional(z.string()),
  fingerprint: z.optional(z.string()),
  base_url: z.optional(z.string()),
});
export type FailedResult = z.infer<typeof FailedResult>;

export const ResultLine = z.discriminatedUnion('ok', [CreatedResult, FailedResult]);
export type ResultLine = z.infer<typeof ResultLine>;

/** The first line of a journal: which boot of the machine wrote it. */
export const JournalHeader = z.object({ boot: z.string() });
export type JournalHeader = z.infer<typeof JournalHeader>;

/** Synced before the record may be sent: it may leave from now on. */
export const JournalReservation = z.object({
  line: lineNumber(),
  fingerprint: z.optional(z.string()),
  /** The size of --output when this was written: a result for the line after it is newer. */
  offset: byteOffset(),
  reserved: z.literal(true),
});
export type JournalReservation = z.infer<typeof JournalReservation>;

/** Written (not synced) just before the request for `sent` leaves. */
export const JournalSentNote = z.object({ sent: lineNumber(), offset: byteOffset() });
export type JournalSentNote = z.infer<typeof JournalSentNote>;

/** The earlier format's intent, synced just before sending: read only, it may have left. */
export const JournalLegacyIntent = z.object({
  line: lineNumber(),
  fingerprint: z.optional(z.string()),
  offset: byteOffset(),
});

export type JournalEntry =
  | { kind: 'header'; entry: JournalHeader }
  | { kind: 'reservation'; entry: JournalReservation }
  | { kind: 'sent'; entry: JournalSentNote }
  | { kind: 'legacy'; entry: z.infer<typeof JournalLegacyIntent> };

// ---- Writing: typed, no parsing. Each returns one line's JSON without its newline. ----

/** A result line. JSON.stringify keeps the keys in the order they were given. */
export function formatResult(result: ResultLine): string {
  return JSON.stringify(result);
}

/**
 * A formatter of result lines that end with `base_url` (the API the records go to): the line of
 * `{ ...result, base_url }`, with the key's text made once, not a copy of each result to add it.
 */
export function resultFormatter(baseUrl: string | undefined): (result: ResultLine) => string {
  if (baseUrl === undefined) return formatResult;
  const tail = `,"base_url":${JSON.stringify(baseUrl)}}`;
  return (result) => {
    if (Object.hasOwn(result, 'base_url')) return formatResult({ ...result, base_url: baseUrl });
    return JSON.stringify(result).slice(0, -1) + tail;
  };
}

export function formatJournalHeader(header: JournalHeader): string {
  return JSON.stringify({ boot: header.boot });
}

export function formatReservation(reservation: JournalReservation): string {
  const fingerprint =
    reservation.fingerprint === undefined ? '' : `"fingerprint":${JSON.stringify(reservation.fingerprint)},`;
  return `{"line":${reservation.line},${fingerprint}"offset":${reservation.offset},"reserved":true}`;
}

export function formatSentNote(note: JournalSentNote): string {
  return `{"sent":${note.sent},"offset":${note.offset}}`;
}

// ---- Reading: through the schemas. A problem is a sentence to put after "line N is not …". ----

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string; invalidJson: boolean };

/** The first issue zod found, as `"key" what is wrong`. */
function describeFirstIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not match';
  const key = issuePath(issue);
  const what = describeIssue(issue);
  return key ? `"${key}" ${what}` : what;
}

// A resume reads every line of both files: their schemas are compiled once they are used often.
const readers = {
  result: hotParser(ResultLine),
  header: hotParser(JournalHeader),
  sent: hotParser(JournalSentNote),
  reservation: hotParser(JournalReservation),
  legacy: hotParser(JournalLegacyIntent),
};

function check<T>(parse: (value: unknown) => z.core.util.SafeParseResult<T>, value: unknown): Parsed<T> {
  const parsed = parse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, problem: describeFirstIssue(parsed.error), invalidJson: false };
}

/** One line of a results file. */
export function parseResult(text: string): Parsed<ResultLine> {
  const json = readJson(text);
  if (!json.ok) return { ok: false, problem: 'invalid JSON', invalidJson: true };
  if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value)) {
    return { ok: false, problem: 'not a JSON object', invalidJson: false };
  }
  return check(readers.result, json.value);
}

/** One line of a journal: its kind is told by its keys (`boot`, `sent`, `line` with or without `reserved`). */
export function parseJournalEntry(text: string): Parsed<JournalEntry> {
  const json = readJson(text);
  if (!json.ok) return { ok: false, problem: 'invalid JSON', invalidJson: true };
  const value = json.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'not a JSON object', invalidJson: false };
  }
  const tagged = <K extends JournalEntry['kind'], T>(kind: K, parsed: Parsed<T>): Parsed<JournalEntry> =>
    parsed.ok ? { ok: true, value: { kind, entry: parsed.value } as JournalEntry } : parsed;
  if ('boot' in value) return tagged('header', check(readers.header, value));
  if ('sent' in value) return tagged('sent', check(readers.sent, value));
  if ('reserved' in value) return tagged('reservation', check(readers.reservation, value));
  return tagged('legacy', check(readers.legacy, value));
}
