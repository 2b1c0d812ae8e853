// One create request from what a caller gave: `esign envelope create`'s flags (and its --dry-run),
// or the arguments of an assistant's tool call (`esign mcp`). The template is resolved against the
// names in force, the project's default expiry applied, every problem collected and checked against
// the API's own request schema, and all of them reported in one error. Only the names differ: each
// caller's problems name what that caller wrote (`--email`, or `signatory.email`). A caller may add
// rules of its own (`esign mcp --allow-domain`): they are checked here too, with the rest.
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import { type Settings, templateNamesOf } from '../config/settings.js';
import { problemsError, usageProblem } from '../problems.js';
import { type ResolvedTemplate, resolveTemplate } from '../project/templates.js';
import {
  checkExpiryLimit,
  checkTemplateFields,
  knownExpiryLimit,
  normalizeRequest,
  type Problems,
  validateRequest,
} from './request.js';
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
  /**
   * What the person will be asked for and has not answered yet (a walk-through checks what was
   * given before it asks): wire fields (`template_id`, `signatory.email`) and merge fields. Their
   * absence is no problem; a draft with any of them pending is checked, never sent.
   */
  pending?: { readonly wire: readonly string[]; readonly mergeFields: readonly string[] } | undefined;
}

/** Who asks: how problems name what the caller wrote, and what it allows beyond the API's own rules. */
export interface InputNames {
  /** The request's fields (template_id, signatory.email, …) as the caller names them. */
  readonly fields: Readonly<Record<string, string>>;
  readonly hint: string;
  /** The signatory's email must be at one of these domains (none given: any). */
  readonly allowedDomains?: readonly AllowedDomain[] | undefined;
}

/** The request the draft makes, ready to send; every problem found (with those already in `problems`) is thrown as one error. */
export function buildCreateRequest(
  draft: CreateDraft,
  settings: Settings,
  problems: Problems,
  names: InputNames,
): CreateEnvelopeRequest {
  const request = checkDraft(draft, settings, problems, names);
  if (problems.length > 0 || !request) throw problemsError(problems, names.hint);
  return normalizeRequest(request);
}

/** The problems of a draft whose pending answers are not given yet (nothing is built to send). */
export function draftProblems(draft: CreateDraft, settings: Settings, names: InputNames): Problems {
  const problems: Problems = [];
  checkDraft(draft, settings, problems, names);
  return problems;
}

/** The draft through every check, problems added to `problems`; the request when there are none. */
function checkDraft(
  draft: CreateDraft,
  settings: Settings,
  problems: Problems,
  names: InputNames,
): CreateEnvelopeRequest | undefined {
  const expiresInDays = draft.expiresInDays ?? settings.project?.content.defaults?.expires_in_days;
  const template = templateOf(draft.template, settings, names.fields.template_id ?? 'template_id', problems);
  const body = {
    template_id: template === 'unresolved' ? draft.template : (template?.id ?? draft.template),
    merge_data: draft.mergeData,
    signatory: draft.signatory,
    ...(expiresInDays === undefined ? {} : { expires_in_days: expiresInDays }),
  };
  // A template that did not resolve is reported already: the schema does not report it again.
  const unsaid = [...(draft.pending?.wire ?? []), ...(template === 'unresolved' ? ['template_id'] : [])];
  const request = validateRequest(body, problems, names.fields, unsaid);
  // Over the sandbox's bound, where the base URL is the sandbox's: told now, not as a 422.
  const expiryFrom =
    draft.expiresInDays === undefined && settings.project
      ? `defaults.expires_in_days of ${settings.project.path}`
      : (names.fields.expires_in_days ?? 'expires_in_days');
  checkExpiryLimit(request?.expires_in_days, knownExpiryLimit(settings.baseUrl.value), expiryFrom, problems);
  // The merge data against the template's declared fields, when the project file declares them.
  if (template !== 'unresolved') {
    checkTemplateFields(template, draft.mergeData, problems, draft.pending?.mergeFields);
  }
  checkSignatoryDomain(draft.signatory, names, problems);
  return request;
}

/**
 * The signatory's address against the allowed domains, when the caller set any: told with the other
 * problems, unless the address itself is already one.
 */
function checkSignatoryDomain(signatory: unknown, names: InputNames, problems: Problems): void {
  const allowed = names.allowedDomains ?? [];
  const email = (signatory as { email?: unknown } | undefined)?.email;
  if (allowed.length === 0 || typeof email !== 'string') return;
  const where = names.fields['signatory.email'] ?? 'signatory.email';
  if (problems.some((problem) => problem.source === where) || isAllowedEmail(email, allowed)) return;
  problems.push(
    usageProblem(
      where,
      `${emailDomain(email)} is not a domain this sender may send to (allowed: ${allowed.map(describeAllowedDomain).join(', ')}).`,
    ),
  );
}

/**
 * A template given as text: a ULID, or a name from the project file (for the active profile), with
 * the fields declared for it; 'unresolved' when it is neither (its problem is added). Anything but
 * text is left to the request schema (undefined here).
 */
function templateOf(
  value: unknown,
  settings: Settings,
  where: string,
  problems: Problems,
): ResolvedTemplate | 'unresolved' | undefined {
  if (typeof value !== 'string') return undefined;
  const resolved = resolveTemplate(value, templateNamesOf(settings), where);
  if ('id' in resolved) return resolved;
  problems.push(resolved.problem);
  return 'unresolved';
}
