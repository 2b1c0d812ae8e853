// The first phase of a batch: the flags' defaults and every record checked, and each record still
// to be sent written to the spool as the exact body that passed. Nothing is kept in memory but
// counts, the first problems and a short key per record (to find duplicates).
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import type { Readable } from 'node:stream';
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import type { Settings } from '../config/settings.js';
import type { Context } from '../context.js';
import { type Problems, parseExpiresInDays, parseSetFlags, readMergeDataFiles } from '../envelope/request.js';
import { InterruptedError, UsageError } from '../errors.js';
import { describeReadError } from '../fs/files.js';
import { FieldProblems } from '../project/fields.js';
import { type ResolvedTemplate, resolveTemplate, templateNamesFor } from '../project/templates.js';
import { type BatchDefaults, buildBatchRequest, fingerprintOf, type InputFormat } from './build-request.js';
import type { PreviousRecord, PreviousResults } from './previous-results.js';
import { mergeColumns, type RawItem, readCsv, readJsonl } from './readers.js';
import type { SpoolWriter } from './spool.js';

/** The flags the defaults come from. */
export interface DefaultFlags {
  template?: string | undefined;
  data?: string[] | undefined;
  set?: string[] | undefined;
  expiresInDays?: string | undefined;
}

const MAX_LISTED_PROBLEMS = 20;
const MAX_LISTED_DUPLICATES = 20;

export function formatOf(file: string, flag: InputFormat | undefined): InputFormat {
  if (flag) return flag;
  const extension = extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  throw new UsageError(
    file === '-'
      ? 'Reading records from standard input needs --format jsonl or --format csv.'
      : `Cannot tell the format of '${file}' from its name.`,
    { hint: 'Name the file .jsonl or .csv, or pass --format jsonl|csv.' },
  );
}

/**
 * The defaults every record starts from: the flags over the project file's (`defaults`), and the
 * template names in force for the active profile, for --template and the records' template_id.
 */
export async function readDefaults(
  flags: DefaultFlags,
  ctx: Context,
  settings: Pick<Settings, 'project' | 'profile'>,
): Promise<BatchDefaults> {
  const problems: Problems = [];
  const fromFiles = await readMergeDataFiles(flags.data ?? [], ctx, problems);
  const fromSet = parseSetFlags(flags.set ?? [], problems);
  const expires =
    parseExpiresInDays(flags.expiresInDays, '--expires-in-days', problems) ??
    settings.project?.content.defaults?.expires_in_days;
  const templates = templateNamesFor(settings.project, settings.profile.value, ctx.cwd);
  let template: ResolvedTemplate | undefined;
  if (flags.template !== undefined) {
    const resolved = resolveTemplate(flags.template, templates, '--template');
    if ('problem' in resolved) problems.push(resolved.problem);
    else template = resolved;
  }
  if (problems.length > 0) {
    throw new UsageError(
      problems.length === 1 ? (problems[0] as string) : 'The default flags have problems:',
      {
        details: problems.length === 1 ? [] : problems,
      },
    );
  }
  const from = new Map<string, string>();
  for (const key of Object.keys(fromFiles)) from.set(key, '--data');
  for (const key of Object.keys(fromSet)) from.set(key, '--set');
  return {
    template_id: template?.id,
    template,
    merge_data_from: from,
    merge_data: { ...fromFiles, ...fromSet },
    expires_in_days: expires,
    templates,
  };
}

export function checkReadableFile(path: string, shown: string): void {
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new UsageError(`Cannot read ${shown}: ${describeReadError(error)}.`);
  }
}

export function checkWritableFolder(path: string, shown: string): void {
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `Cannot write --output ${shown}: its folder ${dirname(path)} ${describeReadError(error) === 'no such file' ? 'does not exist' : 'is not writable'}.`,
    );
  }
}

export interface Prepared {
  total: number;
  problems: string[];
  problemCount: number;
  skipped: number;
  /** Unknown in an earlier run and not to be retried. */
  unknown: number;
  /** Records with at least one problem. */
  invalid: number;
  /** Records to be sent (written to the spool). */
  toSend: number;
  /** Duplicates found, the first few described, and how many there were. */
  duplicates: string[];
  duplicateCount: number;
}

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
  let sorted = true;
  for (let i = 1; sorted && i < keys.length; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (!sorted) keys.sort();
  const hash = new Hash53();
  hash.part(request.template_id.toUpperCase());
  hash.part(request.signatory.email.toLowerCase());
  for (const key of keys) {
    hash.part(key);
    hash.part(String(merge[key]));
  }
  return hash.digest();
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

function anotherInput(previous: PreviousResults): UsageError {
  return new UsageError(
    `--output ${previous.shownAs ?? 'file'} holds the results of another input: none of the ${previous.size} records it holds results for is a record of this input. Nothing was sent.`,
    {
      hint: 'Resume with the input those results came from, or write the results of this input to another --output.',
    },
  );
}

/**
 * The first pass: every record checked, and each one still to be sent written to the spool as the
 * exact body that passed. Nothing is kept in memory but counts and the first problems.
 */
export async function prepare(
  format: InputFormat,
  input: Readable,
  defaults: BatchDefaults,
  previous: PreviousResults,
  retryUnknown: boolean,
  spool: SpoolWriter | undefined,
  signal: AbortSignal,
): Promise<Prepared> {
  const prepared: Prepared = {
    total: 0,
    problems: [],
    problemCount: 0,
    skipped: 0,
    unknown: 0,
    invalid: 0,
    toSend: 0,
    duplicates: [],
    duplicateCount: 0,
  };
  let lastInvalidLine = -1;
  const markInvalid = (line: number) => {
    if (line !== lastInvalidLine) {
      prepared.invalid++;
      lastInvalidLine = line;
    }
  };
  const report = (line: number, problem: string) => {
    prepared.problemCount++;
    markInvalid(line);
    if (prepared.problems.length < MAX_LISTED_PROBLEMS) prepared.problems.push(`line ${line}: ${problem}`);
  };
  /** Merge data that does not fit a template's declared fields: told once per key or field, after the pass. */
  const fieldProblems = new FieldProblems();
  const records =
    format === 'csv'
      ? readCsv(input, (header) => fieldProblems.noteColumns(mergeColumns(header)))
      : readJsonl(input);
  /** Lines the earlier run created (or may have) that still hold a record. */
  const settledLines = new Set<number>();
  /** Each record's duplicate key, to the first line that had it. */
  const seen = new Map<number, number>();
  /** Bodies the earlier run created, by fingerprint, to the line it created them for. */
  const created = new Map<string, number>();
  /** Every body the earlier run holds a result for, and how many records of this input are one. */
  const known = new Set<string>();
  let knownRecords = 0;
  for (const [line, before] of previous) {
    if (before.state === 'created' && before.fingerprint) created.set(before.fingerprint, line);
    if (before.fingerprint) known.add(before.fingerprint);
  }
  /** Lines whose earlier result this input contradicts (the record changed, or is gone). */
  let conflicts = 0;
  const duplicate = (text: string) => {
    prepared.duplicateCount++;
    if (prepared.duplicates.length < MAX_LISTED_DUPLICATES) prepared.duplicates.push(text);
  };
  /** Checks one record, and spools it when it is to be sent. */
  const take = (item: RawItem) => {
    prepared.total++;
    const before = previous.get(item.line);
    if (before && before.state !== 'failed') settledLines.add(item.line);
    if ('problem' in item) {
      report(item.line, item.problem);
      return;
    }
    const found: Problems = [];
    const request = buildBatchRequest(item.record, defaults, format, found, {
      trouble: (check, template, whatIs) => {
        fieldProblems.add(item.line, check, template, whatIs);
        markInvalid(item.line);
      },
      templateUsed: (template) => fieldProblems.noteTemplate(template),
    });
    for (const problem of found) report(item.line, problem);
    if (!request) return;
    const body = JSON.stringify(request);
    const print = fingerprintOf(body);
    if (known.has(print)) knownRecords++;
    if (before && before.state !== 'failed' && before.fingerprint !== print) {
      conflicts++;
      report(
        item.line,
        `this record changed since the results were written (there it was ${before.state === 'created' ? 'created' : 'sent with an unknown outcome'}); resuming could send someone a second envelope`,
      );
    }
    noteDuplicates(item.line, request, print, before);
    if (prepared.problemCount > 0 || fieldProblems.size > 0) return; // nothing will be sent: no need to spool
    place(item.line, print, body, before);
  };
  /** Warns of a record the same as an earlier line's, or as one the earlier run created. */
  const noteDuplicates = (
    line: number,
    request: CreateEnvelopeRequest,
    print: string,
    before?: PreviousRecord,
  ) => {
    const key = duplicateKey(request);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, line);
    else duplicate(`line ${line}: same template, signatory email and merge data as line ${first}`);
    const createdAt = created.get(print);
    if (createdAt !== undefined && createdAt !== line && before?.state !== 'created') {
      duplicate(`line ${line}: identical to the record created at line ${createdAt} by the earlier run`);
    }
  };
  /** A valid record: skipped (created before), held back (unknown before), or spooled to be sent. */
  const place = (line: number, print: string, body: string, before?: PreviousRecord) => {
    if (before?.state === 'created') prepared.skipped++;
    else if (before?.state === 'unknown' && !retryUnknown) prepared.unknown++;
    else {
      prepared.toSend++;
      spool?.add(line, print, body);
    }
  };
  for await (const group of records) {
    if (signal.aborted)
      throw new InterruptedError('Interrupted while checking the records; nothing was sent.');
    for (const item of group) take(item);
  }
  // A settled line with no record any more: lines were removed or joined, so records have moved,
  // and one that was created could now stand at a line that reads as never sent.
  const gone = [...previous].filter(([line, before]) => before.state !== 'failed' && !settledLines.has(line));
  for (const [line, before] of gone.sort(([a], [b]) => a - b)) {
    conflicts++;
    report(
      line,
      `the earlier run ${before.state === 'created' ? 'created' : 'sent (outcome unknown)'} the record here, and the input no longer has one; if lines moved, resuming could send someone a second envelope`,
    );
  }
  // Not one record of this input among the earlier results, and more than one line contradicting
  // them: the results are another input's, and a list of its lines would only mislead.
  if (conflicts > 1 && knownRecords === 0) throw anotherInput(previous);
  addFieldProblems(prepared, fieldProblems);
  return prepared;
}

/**
 * The field problems go first: one of them stands for many lines (a misspelt CSV column is on
 * every one), and is the one to fix first.
 */
function addFieldProblems(prepared: Prepared, fieldProblems: FieldProblems): void {
  const described = fieldProblems.describe(prepared.total);
  if (described.length === 0) return;
  // A header column that is a field of no template makes every record that uses one invalid.
  prepared.invalid = Math.max(prepared.invalid, fieldProblems.recordsWithBadColumns());
  prepared.problemCount += described.length;
  prepared.problems = [...described, ...prepared.problems].slice(
    0,
    Math.max(MAX_LISTED_PROBLEMS, described.length),
  );
}
