// The first phase of a batch: every record checked against the defaults, and each record still to
// be sent kept in the spool as the exact body that passed. Nothing is kept in memory but counts,
// the first problems and a short key per record (to find duplicates).
import type { Readable } from 'node:stream';
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import { InterruptedError } from '../errors.js';
import { type Problem, usageProblem } from '../problems.js';
import { FieldProblems } from '../project/fields.js';
import type { Problems } from '../request/request.js';
import { type BatchDefaults, buildBatchRequest, fingerprintOf, type InputFormat } from './build-request.js';
import type { PreviousRecord, PreviousResults } from './previous-results.js';
import { mergeColumns, type RawItem, readCsv, readJsonl } from './readers.js';
import { createSpool, type Spool, type SpooledRecord } from './spool.js';

/** What the records are and what earlier runs made of them. */
export interface RecordsInput {
  format: InputFormat;
  /** The records, as read from their file or standard input. */
  stream: Readable;
  /** What earlier runs into the same results did (--resume); empty for a new run. */
  previous: PreviousResults;
  /** Send the records whose outcome was unknown again (--retry-unknown). */
  retryUnknown: boolean;
  /** Keep the records to send, to send them; a dry run only counts them. */
  keep: boolean;
  signal: AbortSignal;
}

/** A record the same as another: an earlier line's, or one the earlier run created. */
export interface Duplicate {
  line: number;
  sameAs: number;
  /** `sameAs` is a line the earlier run created, not a line of this input. */
  createdBefore: boolean;
}

/** Every record checked, none invalid: what will be sent, skipped and held back. */
export interface Plan {
  total: number;
  /** Created by an earlier run. */
  skipped: number;
  /** Unknown in an earlier run and not to be sent again. */
  unknown: number;
  /** The first of those (MAX_LISTED_UNKNOWN), by input line: which records to check. */
  unknownRecords: HeldUnknown[];
  toSend: number;
  /** The first duplicates found, and how many there were. */
  duplicates: Duplicate[];
  duplicateCount: number;
  /** The line of every record found to be a duplicate (a record the person may leave out). */
  duplicateLines: ReadonlySet<number>;
  /** How many of the records to send are duplicates: `toSend` less these are the others. */
  duplicatesToSend: number;
  /** The records to send, in input order, some at a time (an empty array at the end). */
  records: () => Promise<SpooledRecord[]>;
  /** Lets go of the kept records. */
  dispose(): void;
}

/** A record an earlier run left with an unknown outcome, held back: its input line and signatory. */
export interface HeldUnknown {
  line: number;
  email: string;
}

/** Records that are not valid: nothing is sent. */
export interface InvalidRecords {
  total: number;
  /** Records with at least one problem. */
  invalid: number;
  /** The first problems, and how many there were. */
  problems: Problem[];
  problemCount: number;
}

export type Prepared =
  | { kind: 'plan'; plan: Plan }
  | { kind: 'invalid'; records: InvalidRecords }
  /** The earlier results hold not one record of this input: they are another input's. */
  | { kind: 'another_input'; resultsHeld: number };

const MAX_LISTED_PROBLEMS = 20;
const MAX_LISTED_DUPLICATES = 20;
/** The most held-back unknown records a plan lists; Plan.unknown counts them all. */
const MAX_LISTED_UNKNOWN = 20;

/**
 * What makes two records the same envelope for the same person: template, signatory email (any
 * case) and merge data (in any order). A 53-bit hash of it, so 100k records cost a few MB, and
 * cheap: a cryptographic hash here was the validation pass's largest cost, and the JSON text of
 * sorted entries that followed it the next largest. Each part goes into the hash after its length,
 * so no part can run into the next, and no text of the parts is built. Two different records share
 * a key about once in 10^16 pairs, and would only be warned about as duplicates.
 */
export function duplicateKey(request: {
  template_id: string;
  signatory: { email: string };
  merge_data?: Record<string, unknown> | undefined;
}): number {
  const merge = request.merge_data ?? {};
  const keys = Object.keys(merge);
  sortKeys(keys);
  const hash = new Hash53();
  hash.part(request.template_id.toUpperCase());
  hash.part(request.signatory.email.toLowerCase());
  for (const key of keys) {
    hash.part(key);
    hash.part(String(merge[key]));
  }
  return hash.digest();
}

/** The most keys sorted by insertion; more go to Array.prototype.sort. */
const INSERTION_SORT_MAX = 32;

/**
 * Sorts a record's merge keys in place, as Array.prototype.sort does (by UTF-16 code units). A
 * record's few keys are sorted by insertion: Array.prototype.sort left some 800 bytes of garbage a
 * record (its work arrays), most of what the duplicate key cost.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > INSERTION_SORT_MAX) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let at = i - 1;
    while (at >= 0 && (keys[at] as string) > key) {
      keys[at + 1] = keys[at] as string;
      at--;
    }
    keys[at + 1] = key;
  }
}

/**
 * A 53-bit hash for telling texts apart (not for anything an attacker chooses): two 32-bit
 * multiply-xor lanes over the UTF-16 code units, mixed into each other at the end.
 */
class Hash53 {
  #a = 0x811c9dc5;
  #b = 0x9e3779b9;

  /** Adds `text`'s length, then its code units. */
  part(text: string): void {
    let a = Math.imul(this.#a ^ text.length, 0x01000193);
    let b = Math.imul(this.#b ^ text.length, 0x5bd1e995);
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      a = Math.imul(a ^ unit, 0x01000193);
      b = Math.imul(b ^ unit, 0x5bd1e995);
    }
    this.#a = a;
    this.#b = b;
  }

  digest(): number {
    const a =
      Math.imul(this.#a ^ (this.#a >>> 16), 0x85ebca6b) ^ Math.imul(this.#b ^ (this.#b >>> 13), 0xc2b2ae35);
    const b = Math.imul(this.#b ^ (this.#b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
    return (b & 0x1fffff) * 0x100000000 + (a >>> 0);
  }
}

/**
 * The first line that had each duplicate key (a 53-bit integer), in an open-addressing table of
 * typed arrays. A Map held each key as a heap number and grew through ever larger tables, all of
 * which lived through the young collections of the pass and were promoted; typed arrays keep their
 * contents outside V8's heap, so the pass leaves the young generation as small as it found it.
 * The table is filled up to 85% (the keys are hashes already, so linear probing stays short): it
 * and the tables it outgrew stay in memory until a full collection, which on Node 22 may come only
 * after the sending pass has reached its peak (2 MB at 100k records; filled up to 70%, 4 MB).
 */
export class LineByKey {
  /** Each slot's key, and its line plus one (0: the slot is empty). */
  #keys = new Float64Array(1024);
  #lines = new Float64Array(1024);
  #size = 0;

  /** The line that had `key` first, or undefined after noting that `line` has it. */
  firstOrSet(key: number, line: number): number | undefined {
    const slot = this.#slotOf(key);
    const found = this.#lines[slot] as number;
    if (found !== 0) return found - 1;
    this.#keys[slot] = key;
    this.#lines[slot] = line + 1;
    if (++this.#size * 20 > this.#lines.length * 17) this.#grow();
    return undefined;
  }

  /** The slot holding `key`, else the empty slot where it goes. */
  #slotOf(key: number): number {
    const mask = this.#lines.length - 1;
    // The key is a hash already: its low 32 bits, mixed with the high ones, place it.
    let slot = ((key >>> 0) ^ Math.floor(key / 0x100000000)) & mask;
    while (this.#lines[slot] !== 0 && this.#keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const lines = this.#lines;
    this.#keys = new Float64Array(keys.length * 2);
    this.#lines = new Float64Array(lines.length * 2);
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === 0) continue;
      const slot = this.#slotOf(keys[i] as number);
      this.#keys[slot] = keys[i] as number;
      this.#lines[slot] = lines[i] as number;
    }
  }
}

/**
 * The first pass: every record checked, and each one still to be sent kept (with `keep`) as the
 * exact body that passed.
 */
export async function prepare(input: RecordsInput, defaults: BatchDefaults): Promise<Prepared> {
  const spool = input.keep ? createSpool() : undefined;
  try {
    const checker = new RecordChecker(input, defaults, spool);
    const records =
      input.format === 'csv'
        ? readCsv(input.stream, (header) => checker.fieldProblems.noteColumns(mergeColumns(header)))
        : readJsonl(input.stream);
    for await (const group of records) {
      if (input.signal.aborted) {
        throw new InterruptedError('Interrupted while checking the records; nothing was sent.');
      }
      for (const item of group) checker.take(item);
    }
    const prepared = checker.finish();
    if (prepared.kind !== 'plan') spool?.dispose();
    return prepared;
  } catch (error) {
    spool?.dispose();
    throw error;
  }
}

/**
 * The plan: the counts, and functions that hold the spool and nothing else. Made out here, not in a
 * method of the checker: V8 gives every closure made in one function the same context, and a
 * closure there that reads `this` put the checker (its map of every record's duplicate key, 5 MB
 * at 100k records) into that context, kept through the whole run by the plan's `records`.
 */
function sendingPlan(spool: Spool | undefined, counts: Omit<Plan, 'records' | 'dispose'>): Plan {
  const reader = spool?.reader;
  return {
    ...counts,
    records: reader ? () => reader.next() : async () => [],
    dispose: () => spool?.dispose(),
  };
}

/** The records, one at a time, against the defaults and what the earlier runs did. */
class RecordChecker {
  readonly fieldProblems = new FieldProblems();
  #total = 0;
  #skipped = 0;
  #unknown = 0;
  #toSend = 0;
  #invalid = 0;
  #lastInvalidLine = -1;
  readonly #problems: Problem[] = [];
  #problemCount = 0;
  readonly #duplicates: Duplicate[] = [];
  readonly #unknownRecords: HeldUnknown[] = [];
  #duplicateCount = 0;
  readonly #duplicateLines = new Set<number>();
  #duplicatesToSend = 0;
  /** Lines the earlier run created (or may have) that still hold a record. */
  readonly #settledLines = new Set<number>();
  /** Each record's duplicate key, to the first line that had it. */
  readonly #seen = new LineByKey();
  /** Bodies the earlier run created, by fingerprint, to the line it created them for. */
  readonly #created = new Map<string, number>();
  /** Every body the earlier run holds a result for, and how many records of this input are one. */
  readonly #known = new Set<string>();
  #knownRecords = 0;
  /** Lines whose earlier result this input contradicts (the record changed, or is gone). */
  #conflicts = 0;

  constructor(
    private readonly input: RecordsInput,
    private readonly defaults: BatchDefaults,
    private readonly spool: Spool | undefined,
  ) {
    for (const [line, before] of input.previous) {
      if (before.state === 'created' && before.fingerprint) this.#created.set(before.fingerprint, line);
      if (before.fingerprint) this.#known.add(before.fingerprint);
    }
  }

  /** Checks one record, and keeps it when it is to be sent. */
  take(item: RawItem): void {
    this.#total++;
    const before = this.input.previous.get(item.line);
    if (before && before.state !== 'failed') this.#settledLines.add(item.line);
    if ('problem' in item) {
      this.#report(item.line, usageProblem('', item.problem));
      return;
    }
    const found: Problems = [];
    const request = buildBatchRequest(
      item.record,
      this.defaults,
      { format: this.input.format, problems: found },
      {
        misfit: ({ check, template, originOf }) => {
          this.fieldProblems.add(item.line, check, template, originOf);
          this.#markInvalid(item.line);
        },
        templateUsed: (template) => this.fieldProblems.noteTemplate(template),
      },
    );
    for (const problem of found) this.#report(item.line, problem);
    if (!request) return;
    const body = JSON.stringify(request);
    const print = fingerprintOf(body);
    if (this.#known.has(print)) this.#knownRecords++;
    if (before && before.state !== 'failed' && before.fingerprint !== print) {
      this.#conflicts++;
      const was = before.state === 'created' ? 'created' : 'sent with an unknown outcome';
      this.#report(
        item.line,
        usageProblem(
          '',
          `this record changed since the results were written (there it was ${was}); resuming could send someone a second envelope`,
        ),
      );
    }
    this.#noteDuplicates(item.line, request, print, before);
    // Nothing will be sent once a record is invalid: no need to keep the rest.
    if (this.#problemCount > 0 || this.fieldProblems.size > 0) return;
    this.#place({ line: item.line, fingerprint: print, email: request.signatory.email, body }, before);
  }

  /** What the pass came to, once every record was taken. */
  finish(): Prepared {
    // A settled line with no record any more: lines were removed or joined, so records have moved,
    // and one that was created could now stand at a line that reads as never sent.
    const gone = [...this.input.previous].filter(
      ([line, before]) => before.state !== 'failed' && !this.#settledLines.has(line),
    );
    for (const [line, before] of gone.sort(([a], [b]) => a - b)) {
      this.#conflicts++;
      const did = before.state === 'created' ? 'created' : 'sent (outcome unknown)';
      this.#report(
        line,
        usageProblem(
          '',
          `the earlier run ${did} the record here, and the input no longer has one; if lines moved, resuming could send someone a second envelope`,
        ),
      );
    }
    // Not one record of this input among the earlier results, and more than one line contradicting
    // them: the results are another input's, and a list of its lines would only mislead.
    if (this.#conflicts > 1 && this.#knownRecords === 0) {
      return { kind: 'another_input', resultsHeld: this.input.previous.size };
    }
    const fields = this.#fieldProblems();
    if (this.#problemCount > 0 || fields.length > 0) {
      return {
        kind: 'invalid',
        records: {
          total: this.#total,
          // A header column that is a field of no template makes every record that uses one invalid.
          invalid: Math.max(this.#invalid, this.fieldProblems.recordsWithBadColumns()),
          // The field problems go first: one of them stands for many lines (a misspelt CSV column is
          // on every one), and is the one to fix first.
          problems: [...fields, ...this.#problems].slice(0, Math.max(MAX_LISTED_PROBLEMS, fields.length)),
          problemCount: this.#problemCount + fields.length,
        },
      };
    }
    this.spool?.writer.finish();
    this.spool?.writer.close();
    return {
      kind: 'plan',
      plan: sendingPlan(this.spool, {
        total: this.#total,
        skipped: this.#skipped,
        unknown: this.#unknown,
        unknownRecords: this.#unknownRecords,
        toSend: this.#toSend,
        duplicates: this.#duplicates,
        duplicateCount: this.#duplicateCount,
        duplicateLines: this.#duplicateLines,
        duplicatesToSend: this.#duplicatesToSend,
      }),
    };
  }

  #fieldProblems(): Problem[] {
    return this.fieldProblems.describe(this.#total).map((message) => usageProblem('', message));
  }

  #markInvalid(line: number): void {
    if (line !== this.#lastInvalidLine) {
      this.#invalid++;
      this.#lastInvalidLine = line;
    }
  }

  #report(line: number, problem: Problem): void {
    this.#problemCount++;
    this.#markInvalid(line);
    if (this.#problems.length < MAX_LISTED_PROBLEMS) this.#problems.push({ ...problem, line });
  }

  /** Notes a record the same as an earlier line's, or as one the earlier run created. */
  #noteDuplicates(
    line: number,
    request: CreateEnvelopeRequest,
    print: string,
    before?: PreviousRecord,
  ): void {
    const first = this.#seen.firstOrSet(duplicateKey(request), line);
    if (first !== undefined) this.#duplicate({ line, sameAs: first, createdBefore: false });
    const createdAt = this.#created.get(print);
    if (createdAt !== undefined && createdAt !== line && before?.state !== 'created') {
      this.#duplicate({ line, sameAs: createdAt, createdBefore: true });
    }
  }

  #duplicate(duplicate: Duplicate): void {
    this.#duplicateCount++;
    this.#duplicateLines.add(duplicate.line);
    if (this.#duplicates.length < MAX_LISTED_DUPLICATES) this.#duplicates.push(duplicate);
  }

  /** A valid record: skipped (created before), held back (unknown before), or kept to be sent. */
  #place(record: SpooledRecord, before: PreviousRecord | undefined): void {
    if (before?.state === 'created') this.#skipped++;
    else if (before?.state === 'unknown' && !this.input.retryUnknown) {
      this.#unknown++;
      if (this.#unknownRecords.length < MAX_LISTED_UNKNOWN) {
        this.#unknownRecords.push({ line: record.line, email: record.email });
      }
    } else {
      this.#toSend++;
      if (this.#duplicateLines.has(record.line)) this.#duplicatesToSend++;
      this.spool?.writer.add(record);
    }
  }
}
