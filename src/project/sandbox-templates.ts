// A project file's templates from the sandbox: its templates and merge tags (GET or POST
// /_sandbox/templates, with the profile's token) as named entries with their fields. The API has no
// endpoint that lists templates, so only `esign sandbox` can say what a template's fields are.
import * as z from 'zod/mini';
import { ULID_PATTERN } from '../api/schemas.js';
import type { TemplateEntry, TemplateFields } from './template-entry.js';

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
export function sandboxTemplatesUrl(baseUrl: string): URL {
  return new URL(SANDBOX_TEMPLATES_PATH, baseUrl);
}

/** "Offer letter" → "offer-letter": a template name the project file accepts. */
function templateNameFor(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '')
    .slice(0, 60);
  return slug === '' || ULID_PATTERN.test(slug) ? 'template' : slug;
}

/**
 * Each template as a named entry with its merge tags as fields (optional: the sandbox does not say
 * which are required). Names that would collide get -2, -3….
 */
export function entriesFromSandbox(listing: SandboxTemplates): Record<string, TemplateEntry> {
  const entries: Record<string, TemplateEntry> = {};
  for (const template of listing.templates) {
    const base = templateNameFor(template.name);
    let name = base;
    for (let n = 2; Object.hasOwn(entries, name); n++) name = `${base}-${n}`;
    const fields: TemplateFields = {};
    for (const tag of template.merge_tags) fields[tag] = {};
    entries[name] = { id: template.id.toUpperCase(), fields };
  }
  return entries;
}
