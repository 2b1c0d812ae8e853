// One create request from what a caller gave: `esign envelope create`'s flags (and its --dry-run),
// or the arguments of an assistant's tool call (`esign mcp`). The template is resolved against the
// names in force, the project's default expiry applied, every problem collected and checked against
// the API's own request schema, and all of them reported in one error. Only the names differ: each
// caller's problems name what that caller wrote (`--email`, or `signatory.email`). A caller may add
// rules of its own (`esign mcp --allow-domain`): they are checked here too, with the rest.
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import type { Settings } from '../config/settings.js';
import { type CliError, InputError, UsageError } from '../errors.js';
import {
  type ResolvedTemplate,
  resolveTemplate,
  templateNamesFor,
  UNRESOLVED_TEMPLATE_ID,
} from '../project/templates.js';
import { checkTemplateFields, normalizeRequest, type Problems, validateRequest } from './request.js';
import {
  type AllowedDomain,
  describeAllowedDomain,
  emailDomain,
  isAllowedEmail,
} from './signatory-domains.js';

/** What a caller asks for, before it is checked. */
export interface CreateDraft {
  /** A template id (a ULID) or a name in force; anything but text is left to the request schema. */
  template: unknown;
  mergeData: Record<string, string>;
  signatory: unknown;
  /** Undefined: the project file's default, else the API's. */
  expiresInDays: unknown;
}

/** How problems name what the caller wrote. */
export interface InputNames {
  /** The request's fields (template_id, signatory.email, …) as the caller names them. */
  readonly fields: Readonly<Record<string, string>>;
  /** Problems that start with this (or with "merge field") are about merge data: invalid input, not usage. */
  readonly mergeData: string;
  readonly hint: string;
}

/** What a caller allows beyond the API's own rules. */
export interface RequestRules {
  /** The signatory's email must be at one of these domains (none given: any). */
  readonly allowedDomains?: readonly AllowedDomain[];
}

/** The request the draft makes, ready to send; every problem found (with those already in `problems`) is thrown as one error. */
export function buildCreateRequest(
  draft: CreateDraft,
  settings: Settings,
  problems: Problems,
  names: InputNames,
  rules: RequestRules = {},
): CreateEnvelopeRequest {
  const expiresInDays = draft.expiresInDays ?? settings.project?.content.defaults?.expires_in_days;
  const template = templateOf(draft.template, settings, names.fields.template_id ?? 'template_id', problems);
  const body = {
    template_id: template?.id ?? draft.template,
    merge_data: draft.mergeData,
    signatory: draft.signatory,
    ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
  };
  const request = validateRequest(body, problems, names.fields);
  // The merge data against the template's declared fields, when the project file declares them.
  checkTemplateFields(template, draft.mergeData, problems);
  checkSignatoryDomain(draft.signatory, rules, names, problems);
  if (problems.length > 0 || !request) throw inputProblemsError(problems, names);
  return normalizeRequest(request);
}

/**
 * The signatory's address against the allowed domains, when the caller set any: told with the other
 * problems, unless the address itself is already one.
 */
function checkSignatoryDomain(
  signatory: unknown,
  rules: RequestRules,
  names: InputNames,
  problems: Problems,
): void {
  const allowed = rules.allowedDomains ?? [];
  const email = (signatory as { email?: unknown } | undefined)?.email;
  if (allowed.length === 0 || typeof email !== 'string') return;
  const where = names.fields['signatory.email'] ?? 'signatory.email';
  if (problems.some((problem) => problem.startsWith(`${where}:`)) || isAllowedEmail(email, allowed)) return;
  problems.push(
    `${where}: ${emailDomain(email)} is not a domain this sender may send to (allowed: ${allowed.map(describeAllowedDomain).join(', ')}).`,
  );
}

/**
 * A template given as text: a ULID, or a name from the project file (for the active profile), with
 * the fields declared for it. Anything but text is left to the request schema (undefined here).
 */
function templateOf(
  value: unknown,
  settings: Settings,
  where: string,
  problems: Problems,
): ResolvedTemplate | undefined {
  if (typeof value !== 'string') return undefined;
  const resolved = resolveTemplate(
    value,
    templateNamesFor(settings.project, settings.profile.value, settings.projectSearchedFrom),
    where,
  );
  if ('id' in resolved) return resolved;
  problems.push(resolved.problem);
  // A stand-in id: the schema must not report the same field again. Nothing is sent.
  return { id: UNRESOLVED_TEMPLATE_ID };
}

/** One error for every problem: invalid input when all are about merge data, else a usage error. */
function inputProblemsError(problems: Problems, names: InputNames): CliError {
  const only = problems.length === 1;
  const ErrorClass = problems.every((p) => p.startsWith(names.mergeData) || p.startsWith('merge field'))
    ? InputError
    : UsageError;
  return new ErrorClass(
    only ? (problems[0] as string) : `${problems.length} problems with the input; nothing was sent:`,
    { details: only ? [] : problems, hint: names.hint },
  );
}
