// Merge data against a template's declared fields, decided once: a key that is not a field (with
// "did you mean" when one is close) and a required field missing or empty. `envelope create`, its
// dry run and the MCP server check one request (src/envelope/request.ts); the batch checks every
// record and reports each unknown key or column once, and each missing field with its lines; a CSV
// header's column that is not a field is reported even when it is empty on every line.
// A template without declared fields (a plain id in the project file) is never checked.
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';
import type { TemplateFields } from './template-entry.js';

/** What is wrong with one request's merge data; both lists empty when nothing is. */
export interface FieldCheck {
  /** Keys that are not fields of the template. */
  unknown: string[];
  /** Required fields missing or empty (only white space counts as empty), in declared order. */
  missing: string[];
}

/** Checks merge data against declared fields; undefined when no fields are declared. */
export function checkMergeData(
  fields: TemplateFields | undefined,
  data: Readonly<Record<string, string>>,
): FieldCheck | undefined {
  if (fields === undefined) return undefined;
  const names = Object.keys(fields);
  const unknown = Object.keys(data).filter((key) => !Object.hasOwn(fields, key));
  const missing = names.filter(
    (name) => fields[name]?.required === true && !(Object.hasOwn(data, name) && data[name]?.trim() !== ''),
  );
  return { unknown, missing };
}

export const hasFieldProblems = (check: FieldCheck | undefined): check is FieldCheck =>
  check !== undefined && (check.unknown.length > 0 || check.missing.length > 0);

const quoted = (names: readonly string[]) => names.map((name) => `'${name}'`).join(', ');
/** " Did you mean 'start_date'?" when a field is close to the key; computed only for a message. */
const suggestion = (key: string, fields: TemplateFields) => didYouMean(key, Object.keys(fields));

/** How a template is named in messages: its name in the project file, or its id. */
export interface TemplateLabel {
  label: string;
  fields: TemplateFields;
}

function fieldList(fields: TemplateFields): string {
  const names = Object.keys(fields);
  return names.length === 0 ? 'it declares no fields' : `its fields: ${names.join(', ')}`;
}

/**
 * One request's problems as sentences: each unknown key named (with "did you mean"), then every
 * missing required field in one sentence. `what` says how a key was given ("merge field").
 */
export function describeFieldCheck(
  check: FieldCheck,
  template: TemplateLabel,
  what = 'merge field',
): string[] {
  const problems = check.unknown.map(
    (key) =>
      `${what} '${key}' is not a field of template '${template.label}' (${fieldList(template.fields)}).${suggestion(key, template.fields)}`,
  );
  if (check.missing.length > 0) {
    problems.push(
      `${check.missing.length === 1 ? 'merge field' : 'merge fields'} ${quoted(check.missing)} ${check.missing.length === 1 ? 'is' : 'are'} required by template '${template.label}', and missing or empty${describeHelp(check.missing, template.fields)}`,
    );
  }
  // Field names, descriptions and examples come from the project file, keys from the input: data,
  // escaped before they reach a terminal (a sentence of ours holds no control character).
  return problems.map(escapeControl);
}

/** ": company (Legal name of the employer), start_date (e.g. 2026-12-01)", when the file says more. */
function describeHelp(missing: readonly string[], fields: TemplateFields): string {
  const parts = missing.flatMap((name) => {
    const field = fields[name];
    const about = [field?.description, field?.example === undefined ? undefined : `e.g. ${field.example}`]
      .filter((text) => text !== undefined && text !== '')
      .join(', ');
    return about === '' ? [] : [`${name}: ${about}`];
  });
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/**
 * Where a batch's merge-data key was given: a CSV file's own column, a key of a record's
 * merge_data, or a default for every record from a flag (`--set`, `--data`).
 */
export type KeyOrigin = { kind: 'column' } | { kind: 'merge field' } | { kind: 'flag'; flag: string };

/** How many lines a batch message lists before "and N more". */
const LISTED_LINES = 10;

/**
 * A batch's field problems, gathered over every record and told once each: an unknown key (a CSV
 * column, or a JSON Lines key) once with the lines it was on, a missing required field once with
 * the lines it was missing on. Keeps at most LISTED_LINES line numbers per problem, and counts.
 */
export class FieldProblems {
  readonly #unknown = new Map<
    string,
    { key: string; origin: KeyOrigin; template: TemplateLabel; lines: number[]; count: number }
  >();
  readonly #missing = new Map<
    string,
    { field: string; template: TemplateLabel; lines: number[]; count: number }
  >();

  /** The CSV header's merge-data columns; each must be a field of a template the records use. */
  #columns: readonly string[] = [];
  /** The declared templates the records used, by label, with how many records used each. */
  readonly #templates = new Map<string, { template: TemplateLabel; records: number }>();
  /** A record used a template without declared fields: any column may be one of its fields. */
  #undeclaredUsed = false;

  /**
   * Notes one record's check; `line` is its input line. `originOf` says where a key was given: a
   * default from a flag is told once, without lines (it is on all).
   */
  add(line: number, check: FieldCheck, template: TemplateLabel, originOf: (key: string) => KeyOrigin): void {
    for (const found of check.unknown) {
      const origin = originOf(found);
      const what = origin.kind === 'flag' ? origin.flag : origin.kind;
      const key = `${template.label}\u0000${what}\u0000${found}`;
      const entry = this.#unknown.get(key) ?? { key: found, origin, template, lines: [], count: 0 };
      noteLine(entry, line);
      this.#unknown.set(key, entry);
    }
    for (const field of check.missing) {
      const key = `${template.label}\u0000${field}`;
      const entry = this.#missing.get(key) ?? { field, template, lines: [], count: 0 };
      noteLine(entry, line);
      this.#missing.set(key, entry);
    }
  }

  /** The CSV header's columns that are merge data (not signatory_*, template_id, expires_in_days). */
  noteColumns(columns: readonly string[]): void {
    this.#columns = columns;
  }

  /** Notes the template a record uses: its declared fields, or undefined when it declares none. */
  noteTemplate(template: TemplateLabel | undefined): void {
    if (template === undefined) {
      this.#undeclaredUsed = true;
      return;
    }
    const used = this.#templates.get(template.label);
    if (used) used.records++;
    else this.#templates.set(template.label, { template, records: 1 });
  }

  /** Problems found record by record so far (the header's empty columns are told by describe). */
  get size(): number {
    return this.#unknown.size + this.#missing.size;
  }

  /**
   * The header's columns that no template the records use has as a field, and that no record had
   * a value in (those are told with their lines): empty on every line, they would never be told
   * record by record. None when a record uses a template without declared fields.
   */
  #emptyColumns(): { column: string; templates: TemplateLabel[]; records: number }[] {
    if (this.#undeclaredUsed || this.#templates.size === 0) return [];
    const used = [...this.#templates.values()];
    const told = new Set(
      [...this.#unknown.values()].filter((e) => e.origin.kind === 'column').map((e) => e.key),
    );
    return this.#columns
      .filter(
        (column) =>
          !told.has(column) && used.every(({ template }) => !Object.hasOwn(template.fields, column)),
      )
      .map((column) => ({
        column,
        templates: used.map(({ template }) => template),
        records: used.reduce((sum, { records }) => sum + records, 0),
      }));
  }

  /** How many records use a template that a header column is not a field of (0 when none is). */
  recordsWithBadColumns(): number {
    return this.#emptyColumns()[0]?.records ?? 0;
  }

  /**
   * The problems as sentences, unknown keys first, in the order they were first met. `total`: how
   * many records there were, so that a problem on every one says so instead of listing lines.
   */
  describe(total?: number): string[] {
    const linesOf = (entry: { lines: number[]; count: number }) => linesText(entry, total);
    const problems = this.#emptyColumns().map(({ column, templates }) =>
      describeEmptyColumn(column, templates),
    );
    for (const entry of this.#unknown.values()) {
      const { origin } = entry;
      const fromFlag = origin.kind === 'flag';
      problems.push(
        `${fromFlag ? `merge field '${entry.key}' from ${origin.flag}` : `${origin.kind} '${entry.key}'`} is not a field of template '${entry.template.label}' (${fieldList(entry.template.fields)}${fromFlag ? '' : `; ${linesOf(entry)}`}).${suggestion(entry.key, entry.template.fields)}`,
      );
    }
    for (const entry of this.#missing.values()) {
      problems.push(
        `merge field '${entry.field}' is required by template '${entry.template.label}', and missing or empty on ${linesOf(entry)}${describeHelp([entry.field], entry.template.fields)}`,
      );
    }
    return problems.map(escapeControl);
  }
}

/** A header column that is a field of none of the templates used, and empty on every line. */
function describeEmptyColumn(column: string, templates: readonly TemplateLabel[]): string {
  if (templates.length === 1 && templates[0]) {
    const { label, fields } = templates[0];
    return `column '${column}' is not a field of template '${label}' (${fieldList(fields)}; the column is empty on every line).${suggestion(column, fields)}`;
  }
  const names = templates.flatMap(({ fields }) => Object.keys(fields));
  return `column '${column}' is not a field of any of the templates ${quoted(templates.map(({ label }) => label))} (the column is empty on every line).${didYouMean(column, [...new Set(names)])}`;
}

function noteLine(entry: { lines: number[]; count: number }, line: number): void {
  entry.count++;
  if (entry.lines.length < LISTED_LINES) entry.lines.push(line);
}

function linesText(entry: { lines: number[]; count: number }, total: number | undefined): string {
  if (entry.count === total && total > 1) return `all ${total} records`;
  const more = entry.count - entry.lines.length;
  return `${entry.count === 1 ? 'line' : 'lines'} ${entry.lines.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
