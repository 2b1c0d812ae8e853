// esign templates set <name> [id]: adds or updates one template of the project file (its id and
// fields), keeping the rest of the file and its formatting as they were. The nearest .esign.json is
// changed (or the one ESIGN_PROJECT_FILE names); with none, one is made in the current folder.
// Nothing is sent.
import { join } from 'node:path';
import { ULID_PATTERN } from '../api/schemas.js';
import { isProfileName, PROFILE_NAME_RULE } from '../config/settings.js';
import type { Context } from '../context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import {
  lookUpProjectFile,
  PROJECT_FILE_NAME,
  type ProjectFile,
  parseProjectFile,
} from '../project/project-file.js';
import {
  fieldNameProblem,
  type TemplateEntry,
  type TemplateFields,
  templateNameProblem,
} from '../project/template-entry.js';
import { listTemplates, templateNamesFor } from '../project/templates.js';
import { changeFileLocked, updatedEntry, withTemplateEntry } from '../project/write-project.js';
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';
import type { Options } from './global-flags.js';
import type { templatesSet } from './templates.decl.js';

type SetOptions = Options<typeof templatesSet>;

export async function run(flags: SetOptions, ctx: Context): Promise<number> {
  const badName = templateNameProblem(flags.name);
  if (badName) throw new UsageError(`'${escapeControl(flags.name)}' ${badName}.`);
  // A name no profile can have would be written under profiles and never read.
  if (flags.inProfile !== undefined && !isProfileName(flags.inProfile)) {
    throw new UsageError(`--in-profile: '${escapeControl(flags.inProfile)}' is not a valid profile name.`, {
      hint: PROFILE_NAME_RULE,
    });
  }
  // The file in force, found and trusted as every command finds it (its problems are reported
  // before anything is changed); a file set aside as untrusted is never written to.
  const lookup = lookUpProjectFile(ctx.cwd, { env: ctx.env });
  if (!lookup.project && lookup.warnings.length > 0) {
    throw new UsageError(lookup.warnings[0] as string, { details: lookup.warnings.slice(1) });
  }
  const found = lookup.project?.path;
  const path = found ?? join(ctx.cwd, PROJECT_FILE_NAME);
  // Read, changed and written under the file's lock: templates set at once by many runs all stay.
  let previous: TemplateEntry | undefined;
  let content: ProjectFile = {};
  let inProfile = flags.inProfile;
  try {
    await changeFileLocked(path, (text, exists) => {
      if (found && !exists) throw new UsageError(`Cannot read the project file ${found}: it is gone.`);
      const before = exists ? parseProjectFile(text, path) : {};
      inProfile = flags.inProfile ?? profileNaming(flags, before);
      const section = inProfile === undefined ? before.templates : before.profiles?.[inProfile]?.templates;
      previous = section && Object.hasOwn(section, flags.name) ? section[flags.name] : undefined;
      const id = idOf(flags, previous);
      const problems: string[] = [];
      const changes = fieldChanges(flags, problems);
      problems.push(...removalsNotDeclared(flags, previous));
      if (problems.length > 0) {
        throw new UsageError(problems[0] as string, { details: problems.slice(1) });
      }
      const entry = updatedEntry(previous, id, changes.apply, changes.any);
      const after = withTemplateEntry(text, flags.name, entry, inProfile);
      // What is written must read back: a bad name or field is refused with the file's own messages.
      content = parseProjectFile(after, path);
      return after;
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new UsageError(`Cannot write ${path}: ${(error as Error).message}.`);
  }
  const profile = inProfile ?? flags.profile ?? 'default';
  const listed = listTemplates(templateNamesFor({ path, content }, profile)).find(
    (t) => t.name === flags.name,
  );
  if (flags.json) {
    ctx.stdout.write(`${JSON.stringify({ project_file: path, entry: listed })}\n`);
    return ExitCode.ok;
  }
  const where = inProfile === undefined ? 'templates' : `profiles.${inProfile}.templates`;
  // Found there rather than told: said, so that the person knows which server's id it is.
  const foundThere =
    inProfile !== undefined && flags.inProfile === undefined
      ? ` (the one place it is named; --in-profile <profile> writes elsewhere)`
      : '';
  ctx.stderr.write(
    `${previous === undefined ? 'Added' : 'Updated'} '${flags.name}' in ${where} of ${path}${foundThere}.\n`,
  );
  return ExitCode.ok;
}

/**
 * Without --in-profile and without an id, the entry to change is where the name is: the top level
 * when it is named there; otherwise the one profile whose names hold it (`esign init --profile
 * sandbox` writes them there), so that changing its fields never needs a second id. Named under
 * several profiles and not at the top: which one is the person's to say. Undefined: the top level.
 */
function profileNaming(flags: SetOptions, file: ProjectFile): string | undefined {
  if (flags.id !== undefined || (file.templates && Object.hasOwn(file.templates, flags.name)))
    return undefined;
  const holders = Object.entries(file.profiles ?? {})
    .filter(([, section]) => section?.templates && Object.hasOwn(section.templates, flags.name))
    .map(([profile]) => profile);
  if (holders.length <= 1) return holders[0];
  throw new UsageError(
    `Template '${flags.name}' is named for several profiles (${holders.map(escapeControl).join(', ')}) and not at the top level: say which one to change.`,
    {
      hint: holders
        .map((profile) => `esign templates set ${flags.name} … --in-profile ${escapeControl(profile)}`)
        .join('\n'),
    },
  );
}

/** Fields --remove-field names that the entry does not declare: a typo ("Updated" would say something was done). */
function removalsNotDeclared(flags: SetOptions, previous: TemplateEntry | undefined): string[] {
  const declared = typeof previous === 'object' ? (previous.fields ?? {}) : {};
  const fields = Object.keys(declared);
  const listed =
    fields.length === 0 ? ' It declares no fields.' : ` Its fields: ${fields.map(escapeControl).join(', ')}.`;
  return flags.removeField
    .filter((name) => fieldNameProblem(name) === undefined && !Object.hasOwn(declared, name))
    .map(
      (name) =>
        `--remove-field '${escapeControl(name)}': template '${flags.name}' declares no such field, so nothing was changed.${didYouMean(name, fields)}${listed}`,
    );
}

function idOf(flags: SetOptions, previous: TemplateEntry | undefined): string {
  if (flags.id !== undefined) {
    if (!ULID_PATTERN.test(flags.id)) {
      throw new UsageError(
        `'${escapeControl(flags.id)}' is not a template id (a ULID: 26 characters like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E).`,
      );
    }
    return flags.id.toUpperCase();
  }
  if (previous === undefined) {
    // No id is suggested: one shown here (the sandbox's, say) would be written as a production name.
    const scope = flags.inProfile === undefined ? '' : ` --in-profile ${escapeControl(flags.inProfile)}`;
    throw new UsageError(
      `No template named '${flags.name}' yet${scope === '' ? '' : ` for profile '${escapeControl(flags.inProfile as string)}'`}: give its id, e.g. esign templates set ${flags.name} <template id>${scope}.`,
      scope === ''
        ? {
            hint: 'At the top level a name holds the production id, which every profile gets; a sandbox id belongs under its profile: add --in-profile <profile>.',
          }
        : {},
    );
  }
  return typeof previous === 'string' ? previous.toUpperCase() : previous.id.toUpperCase();
}

/** `field=text`, split at the first '='. */
function pairs(values: readonly string[], flag: string, problems: string[]): [string, string][] {
  return values.flatMap((raw): [string, string][] => {
    const at = raw.indexOf('=');
    if (at > 0) return [[raw.slice(0, at), raw.slice(at + 1)]];
    problems.push(`${flag} '${raw}': expected <field>=<text>, e.g. ${flag} start_date=2026-12-01.`);
    return [];
  });
}

/** The field flags as one change to the fields there were; `any` is false when none was given. */
function fieldChanges(
  flags: SetOptions,
  problems: string[],
): { any: boolean; apply: (fields: TemplateFields) => TemplateFields } {
  const descriptions = pairs(flags.description, '--description', problems);
  const examples = pairs(flags.example, '--example', problems);
  // A name the project file refuses (`__proto__` would set the object's prototype and be written
  // as nothing while "Updated" was said) is refused here, before the file is touched.
  const named: [string, string][] = [
    ...flags.field.map((name): [string, string] => ['--field', name]),
    ...flags.required.map((name): [string, string] => ['--required', name]),
    ...descriptions.map(([name]): [string, string] => ['--description', name]),
    ...examples.map(([name]): [string, string] => ['--example', name]),
    ...flags.removeField.map((name): [string, string] => ['--remove-field', name]),
  ];
  for (const [flag, name] of named) {
    const problem = fieldNameProblem(name);
    if (problem) problems.push(`${flag} '${escapeControl(name)}' ${problem}.`);
  }
  const any =
    flags.field.length +
      flags.required.length +
      descriptions.length +
      examples.length +
      flags.removeField.length >
    0;
  const apply = (fields: TemplateFields): TemplateFields => {
    const set = (name: string, change: (field: TemplateFields[string]) => TemplateFields[string]) => {
      fields[name] = change(Object.hasOwn(fields, name) ? { ...fields[name] } : {});
    };
    for (const name of flags.field) set(name, ({ required: _, ...rest }) => rest);
    for (const name of flags.required) set(name, (field) => ({ ...field, required: true }));
    for (const [name, text] of descriptions) set(name, (field) => ({ ...field, description: text }));
    for (const [name, text] of examples) set(name, (field) => ({ ...field, example: text }));
    for (const name of flags.removeField) delete fields[name];
    return fields;
  };
  return { any, apply };
}
