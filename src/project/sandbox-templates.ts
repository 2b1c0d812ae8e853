// A project file's templates from the sandbox: its templates and merge tags (GET or POST
// /_sandbox/templates, with the profile's token) as named entries with their fields. The API has no
// endpoint that lists templates, so only `esign sandbox` can say what a template's fields are.
import * as z from 'zod/mini';
import { ULID_PATTERN } from '../api/schemas.js';
import type { Context } from '../context.js';
import { ApiRejectedError, BadResponseError, NotAuthenticatedError } from '../errors.js';
import { parseJsonText } from '../text/json.js';
import { fieldNameProblem, type TemplateEntry, type TemplateField } from './template-entry.js';

const SANDBOX_TEMPLATES_PATH = '/_sandbox/templates';

export const SandboxTemplates = z.object({
  organisation: z.string(),
  templates: z.array(
    z.object({
      id: z.string().check(z.regex(ULID_PATTERN)),
      name: z.string(),
      merge_tags: z.array(z.string()),
    }),
  ),
});
export type SandboxTemplates = z.infer<typeof SandboxTemplates>;

/** The sandbox's route for a base URL (`http://127.0.0.1:4010/api/v1` → `http://127.0.0.1:4010/_sandbox/templates`). */
function sandboxTemplatesUrl(baseUrl: string): URL {
  return new URL(SANDBOX_TEMPLATES_PATH, baseUrl);
}

/** The longest template name the project file takes (template-entry.ts). */
const MAX_NAME = 64;

/** "Offer letter" → "offer-letter": a template name the project file accepts. */
function templateNameFor(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 60);
  return slug === '' || ULID_PATTERN.test(slug) ? 'template' : slug;
}

/** A template whose merge tags cannot all be declared fields, and why: it is written without fields. */
export interface UncheckedTemplate {
  name: string;
  id: string;
  tag: string;
  problem: string;
}

/**
 * Each template as a named entry with its merge tags as fields (optional: the sandbox does not say
 * which are required). Names that would collide get -2, -3… (linear in templates that share a
 * name: each base name remembers the next number to try), cut to fit the longest name there is.
 * A merge tag the project file could not keep as a field (an empty one, `__proto__`) is checked as
 * the file's reader checks it: that template is written as its id alone, without fields (its merge
 * data then goes unchecked), and said so.
 */
export function entriesFromSandbox(listing: SandboxTemplates): {
  entries: Record<string, TemplateEntry>;
  unchecked: UncheckedTemplate[];
} {
  const entries = new Map<string, TemplateEntry>();
  const nextNumber = new Map<string, number>();
  const unchecked: UncheckedTemplate[] = [];
  for (const template of listing.templates) {
    const base = templateNameFor(template.name);
    let name = base;
    let n = nextNumber.get(base) ?? 2;
    while (entries.has(name)) {
      const suffix = `-${n++}`;
      name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    }
    nextNumber.set(base, n);
    const id = template.id.toUpperCase();
    const unfit = template.merge_tags.find((tag) => fieldNameProblem(tag) !== undefined);
    if (unfit !== undefined) {
      unchecked.push({ name, id, tag: unfit, problem: fieldNameProblem(unfit) as string });
      entries.set(name, id);
      continue;
    }
    entries.set(name, {
      id,
      fields: Object.fromEntries(template.merge_tags.map((tag): [string, TemplateField] => [tag, {}])),
    });
  }
  return { entries: Object.fromEntries(entries), unchecked };
}

/** The sandbox's templates for the token's organisation; a real API has no such route. */
export async function fetchSandboxTemplates(
  baseUrl: string,
  token: string,
  timeoutMs: number,
  ctx: Pick<Context, 'env' | 'version' | 'signal'>,
): Promise<SandboxTemplates> {
  const url = sandboxTemplatesUrl(baseUrl);
  const { HttpClient } = await import('../transport/http-client.js');
  const http = new HttpClient({ timeoutMs, env: ctx.env, origin: url, userAgent: `esign/${ctx.version}` });
  let response: Awaited<ReturnType<typeof http.postJson>>;
  try {
    response = await http.postJson(url, '{}', { authorization: `Bearer ${token}` }, ctx.signal);
  } finally {
    await http.close();
  }
  if (response.status === 401) {
    throw new NotAuthenticatedError(`The sandbox at ${baseUrl} did not accept the token.`, {
      hint: 'Log in with a token `esign sandbox` printed: esign login --with-token --base-url <its base URL>.',
    });
  }
  const parsed = response.status === 200 ? parseJsonText(response.text) : undefined;
  const listing = parsed?.ok ? SandboxTemplates.safeParse(parsed.value) : undefined;
  if (!listing?.success) {
    const ErrorClass = response.status >= 400 && response.status < 500 ? ApiRejectedError : BadResponseError;
    throw new ErrorClass(
      `${baseUrl} does not list its templates (${url.href} answered ${response.status}): only \`esign sandbox\` can.`,
      {
        hint: 'For another API, name each template yourself: esign templates set <name> <id> --required <field> --field <field>.',
        status: response.status,
      },
    );
  }
  return listing.data;
}
