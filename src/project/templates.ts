// Template names: `--template offer-letter` (create and batch) and a batch record's `template_id`
// may name a template of the project file instead of giving its ULID.
import { ULID_PATTERN } from '../api/schemas.js';
import { didYouMean } from '../io/suggest.js';
import type { LoadedProject } from './project-file.js';

/** The template names in force for one profile, and where they come from. */
export interface TemplateNames {
  /** name → ULID, the profile's names over the top-level ones. */
  readonly names: Readonly<Record<string, string>>;
  /** For each name: `templates` or `profiles.<name>.templates`. */
  readonly origins: Readonly<Record<string, string>>;
  /** The project file's path, or undefined when there is none. */
  readonly file: string | undefined;
}

export const NO_TEMPLATE_NAMES: TemplateNames = { names: {}, origins: {}, file: undefined };

/** The names in force for `profile`: `profiles.<profile>.templates` over the top-level `templates`. */
export function templateNamesFor(project: LoadedProject | undefined, profile: string): TemplateNames {
  if (!project) return NO_TEMPLATE_NAMES;
  const names: Record<string, string> = {};
  const origins: Record<string, string> = {};
  for (const [name, id] of Object.entries(project.content.templates ?? {})) {
    names[name] = id.toUpperCase();
    origins[name] = 'templates';
  }
  const own = project.content.profiles?.[profile]?.templates ?? {};
  for (const [name, id] of Object.entries(own)) {
    names[name] = id.toUpperCase();
    origins[name] = `profiles.${profile}.templates`;
  }
  return { names, origins, file: project.path };
}

export type TemplateResolution = { id: string } | { problem: string };

/**
 * A template id or name → the id. A name in force gives its id; a ULID (or anything when no names
 * are in force) passes on to the request schema's check; an unknown name is a problem that lists
 * the names there are, with "did you mean".
 * `where` names the source: "--template", "template_id".
 */
export function resolveTemplate(value: string, templates: TemplateNames, where: string): TemplateResolution {
  const known = templates.names[value];
  if (known !== undefined) return { id: known };
  if (ULID_PATTERN.test(value)) return { id: value.toUpperCase() };
  const names = Object.keys(templates.names).sort();
  // With no names to choose from, or a value shaped like an id (26 characters), the request
  // schema's ULID check says what is wrong.
  if (names.length === 0 || value.length === 26) return { id: value };
  return {
    problem: `${where}: no template named '${value}'.${didYouMean(value, names)} Names in ${templates.file}: ${names.join(', ')}.`,
  };
}

/**
 * A well-formed id that stands in for a name that did not resolve: its problem is reported already,
 * and the stand-in keeps the request schema from reporting the same field again. Nothing is sent
 * while there are problems.
 */
export const UNRESOLVED_TEMPLATE_ID = '00000000000000000000000000';

/**
 * For a batch record: its `template_id` (a string) resolved; any other value is left to the
 * request schema. Returns the template id to put in the request; for a name that does not resolve,
 * pushes the problem and returns UNRESOLVED_TEMPLATE_ID.
 */
export function resolveRecordTemplate(
  value: unknown,
  templates: TemplateNames,
  where: string,
  problems: string[],
): unknown {
  if (typeof value !== 'string' || value === '') return value;
  const resolved = resolveTemplate(value, templates, where);
  if ('id' in resolved) return resolved.id;
  problems.push(resolved.problem);
  return UNRESOLVED_TEMPLATE_ID;
}
