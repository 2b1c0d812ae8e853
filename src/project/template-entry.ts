// A template entry of the project file, decided once: a template id (a ULID), or an object with the
// id and the template's fields (its merge tags), which esign checks merge data against before
// anything is sent. Used for the top-level `templates` and for every `profiles.<name>.templates`.
import * as z from 'zod/mini';
import { ULID_PATTERN } from '../api/schemas.js';
import { describeNearUlid } from './ulid-text.js';

const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const NOT_A_NAME = 'is not a template name (letters, digits and . _ -, at most 64 characters)';
const LOOKS_LIKE_ID = 'is a ULID; a template name must not look like an id';

/** What is wrong with a template name, or undefined: the rule the schema below keeps. */
export function templateNameProblem(name: string): string | undefined {
  if (!TEMPLATE_NAME.test(name)) return NOT_A_NAME;
  return ULID_PATTERN.test(name) ? LOOKS_LIKE_ID : undefined;
}

const templateId = z.string().check(
  z.refine((value) => ULID_PATTERN.test(value), {
    // A value shaped like an id says what is wrong with it as one, as --template does.
    error: (issue) =>
      (typeof issue.input === 'string' ? describeNearUlid(issue.input) : undefined) ??
      'must be a template id (a ULID: 26 characters like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E)',
  }),
);

/** One field of a template: optional unless `required` is true. */
export const TemplateField = z.strictObject({
  required: z.optional(z.boolean({ error: 'must be true or false' })),
  description: z.optional(z.string({ error: 'must be a string' })),
  example: z.optional(z.string({ error: 'must be a string (merge data is sent as strings)' })),
});
export type TemplateField = z.infer<typeof TemplateField>;

const EMPTY_FIELD_NAME = 'is not a field name: a merge tag is never empty';
/**
 * `__proto__` as a field name: zod's records skip that key and a plain object would take it for
 * its prototype, so the field would vanish without a word. The project file refuses it instead.
 */
const PROTO_FIELD_NAME =
  "is not a field name esign can keep: '__proto__' is the name of every JavaScript object's prototype, so the field would be dropped without a word; rename the merge tag";

/** What is wrong with a field name (a merge tag in the project file), or undefined. */
export function fieldNameProblem(name: string): string | undefined {
  if (name === '') return EMPTY_FIELD_NAME;
  return name === '__proto__' ? PROTO_FIELD_NAME : undefined;
}

/** A template's fields by merge tag. */
export const TemplateFields = z.record(
  // `__proto__` never reaches this check (zod's records skip it): project-file.ts looks for it.
  z.string().check(z.minLength(1, EMPTY_FIELD_NAME)),
  TemplateField,
);
export type TemplateFields = z.infer<typeof TemplateFields>;

/** `{"id": "<ULID>", "fields": {...}}`: a template that declares its fields. */
const TemplateObject = z.strictObject({
  id: templateId,
  fields: z.optional(TemplateFields),
});

/**
 * A string is a plain id, an object the object form. zod reports a union's failure for the branch
 * that got furthest (a bad id, an unknown key); when both stop at once, expandEntryIssue says why.
 */
export const TemplateEntry = z.union([templateId, TemplateObject], { error: 'must be a string' });
export type TemplateEntry = z.infer<typeof TemplateEntry>;

/** `templates` (top level or per profile): name → entry. */
export const TemplateEntries = z.record(
  z.string().check(
    z.regex(TEMPLATE_NAME, NOT_A_NAME),
    z.refine((name) => !ULID_PATTERN.test(name), LOOKS_LIKE_ID),
  ),
  TemplateEntry,
);

const TEMPLATE_OBJECT_KEYS = ['id', 'fields'];
const TEMPLATE_FIELD_KEYS = ['required', 'description', 'example'];

/**
 * The keys a strict object inside a template entry knows, for "did you mean": `path` is the
 * path below a `templates` key, `[name]` or `[name, 'fields', field]`; undefined elsewhere.
 */
export function templateEntryKeysAt(path: readonly string[]): string[] | undefined {
  if (path.length === 1) return TEMPLATE_OBJECT_KEYS;
  if (path.length === 3 && path[1] === 'fields') return TEMPLATE_FIELD_KEYS;
  return undefined;
}

/** The entry's id, in upper case. */
export function entryId(entry: TemplateEntry): string {
  return (typeof entry === 'string' ? entry : entry.id).toUpperCase();
}

/** The entry's declared fields, or undefined for a plain id or an object without `fields`. */
export function entryFields(entry: TemplateEntry): TemplateFields | undefined {
  return typeof entry === 'string' ? undefined : entry.fields;
}

/**
 * A template entry that is an object but not a valid one fails both forms of the union, and zod
 * reports only that: the object form's own issues (a missing `id`, `"required": "yes"`) are what
 * the user needs, at their own paths. Any other issue comes back as it is.
 */
export function expandEntryIssue(issue: z.core.$ZodIssue, root: unknown): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  let input = root;
  for (const key of issue.path) input = (input as Record<PropertyKey, unknown> | undefined)?.[key];
  const objectForm = issue.errors[1];
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !objectForm) return [issue];
  return objectForm.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
}
