// Template values, decided once: `--template` (create and batch) and a batch record's
// `template_id` give a template's id (a ULID) or a name from the project file. Every folder gets the
// same messages: a value shaped like an id says what is wrong with it as an id, a name that is not
// in force says so, with the names there are or with the folder no project file was found from.
import { ULID_PATTERN } from '../api/schemas.js';
import { type Problem, usageProblem } from '../problems.js';
import { didYouMean } from '../text/suggest.js';
import { type LoadedProject, PROJECT_FILE_NAME } from './project-file.js';
import { entryFields, entryId, type TemplateEntry, type TemplateFields } from './template-entry.js';
import { describeNearUlid, ULID_EXPECTED } from './ulid-text.js';

/** The template names in force for one profile, and where they come from. */
export interface TemplateNames {
  /** name → ULID, the profile's names over the top-level ones. */
  readonly names: Readonly<Record<string, string>>;
  /** For each name: `templates` or `profiles.<name>.templates`. */
  readonly origins: Readonly<Record<string, string>>;
  /** For each name that declares them: its fields (merge data is checked against them). */
  readonly fields: Readonly<Record<string, TemplateFields>>;
  /** The project file's path, or undefined when there is none. */
  readonly file: string | undefined;
  /** The folder the project file was looked for from (its parents too), when known. */
  readonly searchedFrom?: string | undefined;
  /**
   * Why the profile these names are for is not the one chosen (a base URL from --base-url or
   * ESIGN_BASE_URL set it aside): said with a name that is not in force.
   */
  readonly profileNote?: string | undefined;
}

export const NO_TEMPLATE_NAMES: TemplateNames = { names: {}, origins: {}, fields: {}, file: undefined };

/**
 * The names in force for `profile`: `profiles.<profile>.templates` over the top-level `templates`.
 * `searchedFrom` is the folder the project file was looked for from, for the message that none was found.
 */
export function templateNamesFor(
  project: LoadedProject | undefined,
  profile: string,
  searchedFrom?: string,
): TemplateNames {
  if (!project) return { ...NO_TEMPLATE_NAMES, searchedFrom };
  const names: Record<string, string> = {};
  const origins: Record<string, string> = {};
  const fields: Record<string, TemplateFields> = {};
  const take = (entries: Record<string, TemplateEntry> | undefined, origin: string) => {
    for (const [name, entry] of Object.entries(entries ?? {})) {
      names[name] = entryId(entry);
      origins[name] = origin;
      // A profile's entry that gives only an id keeps the fields declared for that name at the top
      // level: the same template in another environment (sandbox and production ids differ).
      const declared = entryFields(entry);
      if (declared) fields[name] = declared;
    }
  };
  take(project.content.templates, 'templates');
  const profiles = project.content.profiles ?? {};
  take(
    Object.hasOwn(profiles, profile) ? profiles[profile]?.templates : undefined,
    `profiles.${profile}.templates`,
  );
  return { names, origins, fields, file: project.path, searchedFrom };
}

/**
 * A resolved template: its id, and, when the project file declares them, its fields and the name
 * they are declared under (for messages).
 */
export interface ResolvedTemplate {
  id: string;
  fields?: TemplateFields | undefined;
  label?: string | undefined;
}

export { describeNearUlid } from './ulid-text.js';

export type TemplateResolution = ResolvedTemplate | { problem: Problem };

/**
 * A template id or name → the id (upper case), or the problem with it, whose source is `where`
 * ("--template", "template_id"). A name in force wins; then a ULID; then a value shaped like an id
 * (within three characters of 26, letters and digits with at least one digit) is told what is wrong
 * with it as an id; anything else is a name that is not in force.
 */
export function resolveTemplate(value: string, templates: TemplateNames, where: string): TemplateResolution {
  if (Object.hasOwn(templates.names, value)) {
    const id = templates.names[value] as string;
    return Object.hasOwn(templates.fields, value)
      ? { id, fields: templates.fields[value], label: value }
      : { id };
  }
  if (ULID_PATTERN.test(value)) return fieldsById(value.toUpperCase(), templates, where);
  const asId = value === '' ? `${ULID_EXPECTED}; it is empty` : describeNearUlid(value);
  const note = asId === undefined && templates.profileNote ? ` ${templates.profileNote}` : '';
  return { problem: usageProblem(where, `${asId ?? describeUnknownName(value, templates)}.${note}`) };
}

/**
 * A template given by its id is checked like one given by name when a name in force declares fields
 * for that id: a typo must not reach a signatory because the id was typed instead of the name. Two
 * names that give the same id different fields leave no way to tell which was meant: a problem.
 */
function fieldsById(id: string, templates: TemplateNames, where: string): TemplateResolution {
  const declaring = Object.keys(templates.fields)
    .filter((name) => templates.names[name] === id)
    .sort();
  const [first] = declaring;
  if (first === undefined) return { id };
  const fields = templates.fields[first];
  const same = JSON.stringify(fields);
  const differ = declaring.filter((name) => JSON.stringify(templates.fields[name]) !== same);
  if (differ.length === 0) return { id, fields, label: first };
  const names = declaring.map((name) => `'${name}'`).join(', ');
  return {
    problem: usageProblem(
      where,
      `${id} is the id of ${names} in ${templates.file}, whose fields differ; give the name instead.`,
    ),
  };
}

function describeUnknownName(value: string, templates: TemplateNames): string {
  const names = Object.keys(templates.names).sort();
  if (templates.file === undefined) {
    const where =
      templates.searchedFrom === undefined ? 'here' : `in ${templates.searchedFrom} or its parents`;
    return `must be a ULID or a template name, and no template is named '${value}': no ${PROJECT_FILE_NAME} was found ${where} to name templates`;
  }
  if (names.length === 0) return `no template named '${value}': ${templates.file} names no templates`;
  return `no template named '${value}'.${didYouMean(value, names)} Names in ${templates.file}: ${names.join(', ')}`;
}

/** One template as `esign templates --json` lists it (and the MCP server's list_templates). */
export interface TemplateListing {
  name: string;
  id: string;
  fields: { name: string; required: boolean; description?: string; example?: string }[];
}

/** The names in force, sorted, each with its id and declared fields (`[]` for a plain id). */
export function listTemplates(templates: TemplateNames): TemplateListing[] {
  return Object.keys(templates.names)
    .sort()
    .map((name) => ({
      name,
      id: templates.names[name] as string,
      fields: Object.entries(templates.fields[name] ?? {}).map(([field, spec]) => ({
        name: field,
        required: spec.required === true,
        ...(spec.description === undefined ? {} : { description: spec.description }),
        ...(spec.example === undefined ? {} : { example: spec.example }),
      })),
    }));
}
