// One batch record + the defaults every record starts from → a validated create request, or its problems.
import { hash } from 'node:crypto';
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import { type Problem, usageProblem } from '../problems.js';
import {
  checkMergeData,
  describeFieldCheck,
  type FieldCheck,
  hasFieldProblems,
  type KeyOrigin,
  type TemplateLabel,
} from '../project/fields.js';
import {
  NO_TEMPLATE_NAMES,
  type ResolvedTemplate,
  resolveTemplate,
  type TemplateNames,
} from '../project/templates.js';
import {
  checkExpiryLimit,
  fieldsTold,
  normalizeRequest,
  type Problems,
  parseExpiresInDays,
  toMergeData,
  validateRequest,
} from '../request/request.js';
import { isPlainObject } from '../text/plain-object.js';

/** What every record starts from: the command's flags over the project file's defaults. */
export interface BatchDefaults {
  /** The template for records that name none: its id and, when the project file declares them, its fields. */
  template?: ResolvedTemplate | undefined;
  merge_data: Record<string, string>;
  expires_in_days?: number | undefined;
  /** Names a record's template_id may give instead of an id (the project file's, for the profile). */
  templates?: TemplateNames | undefined;
  /** The flag each key of merge_data came from ("--set" or "--data"), for messages. */
  merge_data_from?: ReadonlyMap<string, string> | undefined;
  /** Where the default template may be given (the command's flag), for a record that has none. */
  template_from?: string | undefined;
  /** The longest expiry the API is known to take (the sandbox's), checked on every record. */
  max_expires_in_days?: number | undefined;
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

/** Merge data that does not fit a template's declared fields: the check, the template, and where each key came from. */
interface FieldMisfit {
  check: FieldCheck;
  template: TemplateLabel;
  originOf: (key: string) => KeyOrigin;
}

/** Where a batch's field checks go: each misfit, and the template each record uses. */
export interface FieldReport {
  misfit: (found: FieldMisfit) => void;
  /** The record's template, with its declared fields, or undefined when it declares none. */
  templateUsed?: (template: TemplateLabel | undefined) => void;
}

/**
 * Returns the request, or undefined with the reasons pushed to `problems` (without line numbers).
 * Merge data that does not fit the template's declared fields goes to `fieldReport` instead (the
 * batch tells each such problem once for all its lines), and the record is not sent either.
 */
export function buildBatchRequest(
  record: unknown,
  defaults: BatchDefaults,
  { format, problems }: { format: InputFormat; problems: Problems },
  fieldReport?: FieldReport,
): CreateEnvelopeRequest | undefined {
  if (!isPlainObject(record)) {
    problems.push(
      recordProblem(
        'expected a JSON object with signatory (and optionally template_id, merge_data, expires_in_days)',
      ),
    );
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(record)) {
    if (!ALLOWED_KEYS.has(key)) {
      problems.push(
        recordProblem(`unknown key '${key}' (allowed: template_id, merge_data, signatory, expires_in_days)`),
      );
    }
  }
  const mergeData = recordMergeData(record.merge_data, problems);
  const expires = recordExpiry(record.expires_in_days, defaults.expires_in_days, format, problems);
  const ownTemplate = recordTemplate(record.template_id, defaults, format, problems);
  const template = ownTemplate === undefined ? defaults.template : ownTemplate;
  const merged = { ...defaults.merge_data, ...mergeData };
  const templateId =
    template === undefined ? undefined : template === 'unresolved' ? record.template_id : template.id;
  const body = {
    template_id: templateId,
    merge_data: merged,
    signatory: record.signatory,
    ...(expires === undefined ? {} : { expires_in_days: expires }),
  };
  // A template that is given nowhere is told where it may be given; one that did not resolve is
  // told already: the schema says nothing more of either.
  const reported: string[] = [];
  if (templateId === undefined) {
    reported.push('template_id');
    problems.push(
      usageProblem(
        NAMES[format].template_id ?? 'template_id',
        defaults.template_from === undefined
          ? 'is required (give it in the record)'
          : `is required (give it in the record or with ${defaults.template_from})`,
      ),
    );
  } else if (template === 'unresolved') reported.push('template_id');
  const request = validateRequest(body, problems, NAMES[format], reported);
  checkExpiryLimit(
    request?.expires_in_days,
    defaults.max_expires_in_days,
    NAMES[format].expires_in_days ?? 'expires_in_days',
    problems,
  );
  const misfit =
    template !== 'unresolved' &&
    checkFields(
      { record, merged, template, defaults, format, told: fieldsTold(problems.slice(before)) },
      fieldReport,
      problems,
    );
  if (problems.length > before || !request || misfit) return undefined;
  return normalizeRequest(request);
}

/** A problem of the record as a whole, with no key to name. */
function recordProblem(message: string): Problem {
  return usageProblem('', message);
}

/**
 * The merge data against the record's template's declared fields; true when it does not fit. Each
 * key is named by where it came from: the record's own (a CSV column), or the flag of a default.
 */
function checkFields(
  given: {
    record: Record<string, unknown>;
    merged: Record<string, string>;
    template: ResolvedTemplate | { id: unknown } | undefined;
    defaults: BatchDefaults;
    format: InputFormat;
    /** The merge fields this record's problems tell already. */
    told: ReadonlySet<string>;
  },
  fieldReport: FieldReport | undefined,
  problems: Problems,
): boolean {
  const { record, merged, template, defaults, format } = given;
  const fields = template && 'fields' in template ? template.fields : undefined;
  const label: TemplateLabel | undefined =
    fields === undefined
      ? undefined
      : {
          label: (template && 'label' in template ? template.label : undefined) ?? String(template?.id),
          fields,
        };
  if (template !== undefined) fieldReport?.templateUsed?.(label);
  const found = checkMergeData(fields, merged);
  // A field told already for this record (its value is null, an array) is not also "missing".
  const { told } = given;
  const check = found && { ...found, missing: found.missing.filter((name) => !told.has(name)) };
  if (label === undefined || !hasFieldProblems(check)) return false;
  const own = isPlainObject(record.merge_data) ? record.merge_data : {};
  const originOf = (key: string): KeyOrigin => {
    if (Object.hasOwn(own, key)) return { kind: format === 'csv' ? 'column' : 'merge field' };
    const flag = defaults.merge_data_from?.get(key);
    return flag === undefined ? { kind: 'merge field' } : { kind: 'flag', flag };
  };
  if (fieldReport) fieldReport.misfit({ check, template: label, originOf });
  else for (const message of describeFieldCheck(check, label)) problems.push(usageProblem('', message));
  return true;
}

/**
 * A record's own template_id: a name in force or an id, resolved with its declared fields; any
 * value that is not a usable string is left to the request schema (as `id`). Undefined when the
 * record has none, so the default applies; 'unresolved' (its problem added) for a name that is
 * not in force.
 */
function recordTemplate(
  value: unknown,
  defaults: BatchDefaults,
  format: InputFormat,
  problems: Problems,
): ResolvedTemplate | { id: unknown } | 'unresolved' | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') return { id: value };
  const resolved = resolveTemplate(
    value,
    defaults.templates ?? NO_TEMPLATE_NAMES,
    NAMES[format].template_id ?? 'template_id',
  );
  if ('id' in resolved) return resolved;
  problems.push(resolved.problem);
  return 'unresolved';
}

function recordMergeData(value: unknown, problems: Problems): Record<string, string> {
  if (value === undefined) return {};
  if (isPlainObject(value)) return toMergeData(value, 'merge_data', problems);
  problems.push(usageProblem('', 'merge_data must be a JSON object'));
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
  problems.push(
    usageProblem('expires_in_days', `${JSON.stringify(own)} is not a positive whole number of days`),
  );
  return fallback;
}

/**
 * Identifies a record's request by its JSON body, so that a resumed run notices when the input
 * changed under it.
 */
export function fingerprintOf(body: string): string {
  return hash('sha256', body, 'hex').slice(0, 16);
}
