// Checking a create-envelope body the way a careful API would: with the client's own schema
// (src/api/schemas.ts), plus what the schema cannot know (the 365-day limit, unknown fields, the
// template's merge tags), every problem at once, keyed by field, as a 422 answer.
import { CreateEnvelopeRequest, MAX_EXPIRES_IN_DAYS, ULID_PATTERN } from '../../api/schemas.js';
import { describeIssue, type IssueLike, issuePath } from '../../text/issues.js';
import { isPlainObject } from '../../text/plain-object.js';
import type { Template } from '../state/store.js';

/** `{"signatory.email": ["must be an email address, …"]}` */
export type FieldErrors = Record<string, string[]>;

export interface CheckedCreateRequest {
  templateId: string;
  /** The merge data as sent (own keys of the parsed JSON; every value a string). */
  mergeData: CreateEnvelopeRequest['merge_data'];
  signatory: CreateEnvelopeRequest['signatory'];
  expiresInDays: number;
}

const DEFAULT_EXPIRES_IN_DAYS = 30;
const REQUEST_FIELDS = new Set(['template_id', 'merge_data', 'signatory', 'expires_in_days']);
const SIGNATORY_FIELDS = new Set(['name', 'email', 'phone']);

function add(errors: FieldErrors, field: string, message: string): void {
  const list = Object.hasOwn(errors, field) ? errors[field] : undefined;
  if (list === undefined) errors[field] = [message];
  else if (!list.includes(message)) list.push(message);
}

/**
 * The schema's issues as field errors, worded as everywhere (text/issues.ts: "is required", "must be
 * a JSON object"); an empty merge field name is the merge data's error, not that of a key.
 */
function addSchemaIssues(
  errors: FieldErrors,
  body: Record<string, unknown>,
  issues: readonly (IssueLike & { code: string })[],
): void {
  for (const issue of issues) {
    if (issue.code === 'invalid_key') {
      add(errors, issue.path.slice(0, -1).map(String).join('.'), 'merge field names must not be empty');
    } else {
      add(errors, issuePath(issue), describeIssue(issue, body));
    }
  }
}

/** What the schema lets through: unknown fields (of the request, of the signatory) and the 365-day limit. */
function addStrictChecks(errors: FieldErrors, body: Record<string, unknown>): void {
  for (const key of Object.keys(body)) {
    if (!REQUEST_FIELDS.has(key)) add(errors, key, 'is not a field of this request');
  }
  if (isPlainObject(body.signatory)) {
    for (const key of Object.keys(body.signatory)) {
      if (!SIGNATORY_FIELDS.has(key)) add(errors, `signatory.${key}`, 'is not a field of the signatory');
    }
  }
  const days = body.expires_in_days;
  if (typeof days === 'number' && Number.isInteger(days) && days > MAX_EXPIRES_IN_DAYS) {
    add(errors, 'expires_in_days', `must be at most ${MAX_EXPIRES_IN_DAYS}`);
  }
}

/** Checks everything that does not depend on the template. */
export function checkCreateBody(
  body: unknown,
): { ok: true; request: CheckedCreateRequest } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!isPlainObject(body)) {
    add(errors, 'body', 'must be a JSON object with template_id, merge_data and signatory');
    return { ok: false, errors };
  }
  const parsed = CreateEnvelopeRequest.safeParse(body);
  if (!parsed.success) addSchemaIssues(errors, body, parsed.error.issues);
  addStrictChecks(errors, body);
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  const signatory = parsed.data.signatory;
  return {
    ok: true,
    request: {
      templateId: parsed.data.template_id,
      // The body's own object, not zod's copy: a key like "__proto__" stays a plain key.
      mergeData: body.merge_data as Record<string, string>,
      signatory: signatory.phone === undefined ? { name: signatory.name, email: signatory.email } : signatory,
      expiresInDays: parsed.data.expires_in_days ?? DEFAULT_EXPIRES_IN_DAYS,
    },
  };
}

/** Merge keys the template does not have. Missing tags are allowed: the field stays empty. */
export function checkMergeKeys(mergeData: unknown, template: Template): FieldErrors {
  const errors: FieldErrors = {};
  if (!isPlainObject(mergeData)) return errors;
  const tags =
    template.mergeTags.length === 0 ? 'it has none' : `its tags are ${template.mergeTags.join(', ')}`;
  for (const key of Object.keys(mergeData)) {
    if (!template.tagSet.has(key))
      add(errors, `merge_data.${key}`, `is not a merge tag of template ${template.id} (${tags})`);
  }
  return errors;
}

/** The template id of a body, when it has a well-formed one (to check merge keys alongside other problems). */
export function templateIdOf(body: unknown): string | undefined {
  const id = isPlainObject(body) ? body.template_id : undefined;
  return typeof id === 'string' && ULID_PATTERN.test(id) ? id : undefined;
}

/** Both sets of problems, messages of the same field together. */
export function mergeFieldErrors(first: FieldErrors, second: FieldErrors): FieldErrors {
  const all: FieldErrors = {};
  for (const errors of [first, second]) {
    for (const [field, messages] of Object.entries(errors))
      for (const message of messages) add(all, field, message);
  }
  return all;
}

/** The 422 body: the first problem as the message, like "signatory.email must be … (and 2 more errors)". */
export function validationErrorBody(errors: FieldErrors): { message: string; errors: FieldErrors } {
  const entries = Object.entries(errors).flatMap(([field, messages]) => messages.map((m) => `${field} ${m}`));
  const more = entries.length - 1;
  const suffix = more === 0 ? '' : ` (and ${more} more error${more === 1 ? '' : 's'})`;
  return { message: `${entries[0] ?? 'The request is invalid'}${suffix}.`, errors };
}
