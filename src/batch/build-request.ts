// One batch record + the defaults from flags → a validated create request, or its problems.
import { hash } from 'node:crypto';
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import {
  normalizeRequest,
  type Problems,
  parseExpiresInDays,
  toMergeData,
  validateRequest,
} from '../envelope/request.js';
import {
  checkMergeData,
  describeFieldCheck,
  type FieldCheck,
  hasFieldProblems,
  type TemplateLabel,
} from '../project/fields.js';
import {
  NO_TEMPLATE_NAMES,
  type ResolvedTemplate,
  resolveTemplate,
  type TemplateNames,
  UNRESOLVED_TEMPLATE_ID,
} from '../project/templates.js';

export interface BatchDefaults {
  template_id?: string | undefined;
  /** --template resolved: its id and, when the project file declares them, its fields. */
  template?: ResolvedTemplate | undefined;
  merge_data: Record<string, string>;
  expires_in_days?: number | undefined;
  /** Names a record's template_id may give instead of an id (the project file's, for the profile). */
  templates?: TemplateNames | undefined;
  /** The flag each key of merge_data came from ("--set" or "--data"), for messages. */
  merge_data_from?: ReadonlyMap<string, string> | undefined;
}

export type InputFormat = 'jsonl' | 'csv';

const ALLOWED_KEYS = new Set(['template_id', 'merge_data', 'signatory', 'expires_in_days']);

const NAMES: Record<InputFormat, Record<string, string>> = {
  jsonl: {
    template_id: 'template_id',
    'signatory.name': 'signatory.name',
    'signatory.email': 'signatory.email',
    'signatory.phone': 'signatory.phone',
    signatory: 'signatory',
    expires_in_days: 'expires_in_days',
  },
  csv: {
    template_id: 'template_id',
    'signatory.name': 'signatory_name',
    'signatory.email': 'signatory_email',
    'signatory.phone': 'signatory_phone',
    expires_in_days: 'expires_in_days',
  },
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Merge data that does not fit the template's declared fields: the check (src/project/fields.ts),
 * the template, and what each key was given as ("column" for a CSV file's own column).
 */
export type FieldTrouble = (
  check: FieldCheck,
  template: TemplateLabel,
  whatIs: (key: string) => string,
) => void;

/** Where a batch's field checks go: each misfit, and the template each record uses. */
export interface FieldReport {
  trouble: FieldTrouble;
  /** The record's template, with its declared fields, or undefined when it declares none. */
  templateUsed?: (template: TemplateLabel | undefined) => void;
}

/**
 * Returns the request, or undefined with the reasons pushed to `problems` (without line numbers).
 * Merge data that does not fit the template's declared fields goes to `fieldTrouble` instead (the
 * batch tells each such problem once for all its lines), and the record is not sent either.
 */
export function buildBatchRequest(
  record: unknown,
  defaults: BatchDefaults,
  format: InputFormat,
  problems: Problems,
  fieldReport?: FieldReport,
): CreateEnvelopeRequest | undefined {
  if (!isObject(record)) {
    problems.push(
      'expected a JSON object with signatory (and optionally template_id, merge_data, expires_in_days)',
    );
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(record)) {
    if (!ALLOWED_KEYS.has(key)) {
      problems.push(`unknown key '${key}' (allowed: template_id, merge_data, signatory, expires_in_days)`);
    }
  }
  const mergeData = recordMergeData(record.merge_data, problems);
  const expires = recordExpiry(record.expires_in_days, defaults.expires_in_days, format, problems);
  const ownTemplate = recordTemplate(record.template_id, defaults, format, problems);
  const template = ownTemplate === undefined ? defaults.template : ownTemplate;
  const merged = { ...defaults.merge_data, ...mergeData };
  const body = {
    template_id: ownTemplate === undefined ? defaults.template_id : ownTemplate.id,
    merge_data: merged,
    signatory: record.signatory,
    ...(expires === undefined ? {} : { expires_in_days: expires }),
  };
  const found: Problems = [];
  const request = validateRequest(body, found, NAMES[format]);
  for (const problem of found) {
    const clean = problem.replace(/\.$/, '');
    problems.push(
      clean.startsWith('template_id: is required')
        ? 'template_id: is required (give it in the record or with --template)'
        : clean,
    );
  }
  const misfit = checkFields(record, merged, template, defaults, format, problems, fieldReport);
  if (problems.length > before || !request || misfit) return undefined;
  return normalizeRequest(request);
}

/**
 * The merge data against the record's template's declared fields; true when it does not fit. Each
 * key is named by where it came from: the record's own (a CSV column), or the flag of a default.
 */
function checkFields(
  record: Record<string, unknown>,
  merged: Record<string, string>,
  template: (Omit<ResolvedTemplate, 'id'> & { id: unknown }) | undefined,
  defaults: BatchDefaults,
  format: InputFormat,
  problems: Problems,
  fieldReport: FieldReport | undefined,
): boolean {
  const fields = template?.fields;
  const label: TemplateLabel | undefined =
    fields === undefined ? undefined : { label: template?.label ?? String(template?.id), fields };
  if (template !== undefined && template.id !== UNRESOLVED_TEMPLATE_ID) fieldReport?.templateUsed?.(label);
  const check = checkMergeData(fields, merged);
  if (label === undefined || !hasFieldProblems(check)) return false;
  const own = isObject(record.merge_data) ? record.merge_data : {};
  const whatIs = (key: string) => {
    if (Object.hasOwn(own, key)) return format === 'csv' ? 'column' : 'merge field';
    return defaults.merge_data_from?.get(key) ?? 'merge field';
  };
  if (fieldReport) fieldReport.trouble(check, label, whatIs);
  else problems.push(...describeFieldCheck(check, label));
  return true;
}

/**
 * A record's own template_id: a name in force or an id, resolved with its declared fields; any
 * value that is not a usable string is left to the request schema (as `id`). Undefined when the
 * record has none, so the default applies. A name that does not resolve is a problem, and a
 * stand-in id keeps the schema from reporting the same field again.
 */
function recordTemplate(
  value: unknown,
  defaults: BatchDefaults,
  format: InputFormat,
  problems: Problems,
): (Omit<ResolvedTemplate, 'id'> & { id: unknown }) | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') return { id: value };
  const resolved = resolveTemplate(
    value,
    defaults.templates ?? NO_TEMPLATE_NAMES,
    NAMES[format].template_id ?? 'template_id',
  );
  if ('id' in resolved) return resolved;
  problems.push(resolved.problem);
  return { id: UNRESOLVED_TEMPLATE_ID };
}

function recordMergeData(value: unknown, problems: Problems): Record<string, string> {
  if (value === undefined) return {};
  if (isObject(value)) return toMergeData(value, 'merge_data', problems);
  problems.push('merge_data must be a JSON object');
  return {};
}

/** The record's own expires_in_days (text from a CSV cell, or a JSON number) over the default. */
function recordExpiry(
  own: unknown,
  fallback: number | undefined,
  format: InputFormat,
  problems: Problems,
): number | undefined {
  if (own === undefined) return fallback;
  if (typeof own === 'string') {
    return parseExpiresInDays(own, NAMES[format].expires_in_days ?? 'expires_in_days', problems) ?? fallback;
  }
  if (typeof own === 'number' && Number.isInteger(own) && own >= 1) return own;
  problems.push(`expires_in_days: ${JSON.stringify(own)} is not a positive whole number of days`);
  return fallback;
}

/**
 * Identifies a record's request by its JSON body, so that a resumed run notices when the input
 * changed under it.
 */
export function fingerprintOf(body: string): string {
  return hash('sha256', body, 'hex').slice(0, 16);
}
