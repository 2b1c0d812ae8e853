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
import { NO_TEMPLATE_NAMES, resolveRecordTemplate, type TemplateNames } from '../project/templates.js';

export interface BatchDefaults {
  template_id?: string | undefined;
  merge_data: Record<string, string>;
  expires_in_days?: number | undefined;
  /** Names a record's template_id may give instead of an id (the project file's, for the profile). */
  templates?: TemplateNames | undefined;
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

/** Returns the request, or undefined with the reasons pushed to `problems` (without line numbers). */
export function buildBatchRequest(
  record: unknown,
  defaults: BatchDefaults,
  format: InputFormat,
  problems: Problems,
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
  const ownTemplate =
    record.template_id === undefined || record.template_id === null
      ? record.template_id
      : resolveRecordTemplate(
          record.template_id,
          defaults.templates ?? NO_TEMPLATE_NAMES,
          NAMES[format].template_id ?? 'template_id',
          problems,
        );
  const body = {
    template_id: ownTemplate ?? defaults.template_id,
    merge_data: { ...defaults.merge_data, ...mergeData },
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
  if (problems.length > before || !request) return undefined;
  return normalizeRequest(request);
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
