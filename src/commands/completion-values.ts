// The values completion finds outside the command tree, one completer per source: profile names from
// the config, template names in force from the project file, and the fields the chosen template
// declares there (for `--set`). A new source is a name in ValueSourceName (command-types.ts), a
// completer here, and the option in src/cli.ts that says it completes from it.
import type { ValueSourceName } from '../command-types.js';
import { configDir, configFilePath } from '../config/paths.js';
import { resolveProfileName } from '../config/settings.js';
import { readConfigFile } from '../config/store.js';
import type { Context } from '../context.js';
import { loadProjectFile } from '../project/project-file.js';
import type { TemplateField } from '../project/template-entry.js';
import { resolveTemplate, type TemplateNames, templateNamesFor } from '../project/templates.js';
import { escapeControl } from '../text/terminal-text.js';
import type { Candidate, CompletionLine, ValueLookup } from './complete.js';

type ValueCompleter = (line: CompletionLine, ctx: Context) => readonly Candidate[];

/** The profiles stored in the config. */
function profileNames(_line: CompletionLine, ctx: Context): Candidate[] {
  const config = readConfigFile(configDir(ctx.env, ctx.platform, ctx.homedir));
  return Object.keys(config.profiles ?? {}).map((value) => ({ value }));
}

/**
 * The template names in force for the profile this command line would use (its --profile, else
 * ESIGN_PROFILE, else the project file's), each with its id: the same resolution `--template` uses.
 */
function templateNames(line: CompletionLine, ctx: Context): Candidate[] {
  const { names } = namesInForce(line, ctx);
  return Object.keys(names)
    .sort()
    .map((value) => ({ value, description: names[value] as string }));
}

function namesInForce(line: CompletionLine, ctx: Context): TemplateNames {
  const project = ctx.cwd === undefined ? undefined : loadProjectFile(ctx.cwd, ctx.env);
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  const stored = { profile: readConfigFile(dir).default_profile, configPath: configFilePath(dir) };
  const profile = resolveProfileName({ profile: line.flag('--profile') }, ctx.env, project, stored);
  return templateNamesFor(project, profile.value);
}

// A field `--set` cannot give (its key would end at the `=`), or that no shell would keep as one
// word, is not offered.
const NOT_SETTABLE = /[=\s\p{Cc}]/u;

/**
 * `--set`: the fields the project file declares for the template given by `--template` earlier on the
 * line (by name, or by an id a name declares fields for: resolveTemplate, as the commands resolve it),
 * each as `name=` for its value to follow. Fields already given with `--set` are left out; a template
 * with no declared fields, or none given, offers nothing.
 */
function fieldNames(line: CompletionLine, ctx: Context): Candidate[] {
  const template = line.flag('--template');
  if (template === undefined) return [];
  const resolved = resolveTemplate(template, namesInForce(line, ctx), '--template');
  if ('problem' in resolved || !resolved.fields) return [];
  const fields = resolved.fields;
  const given = new Set(
    line
      .flagValues('--set')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.slice(0, pair.indexOf('='))),
  );
  return Object.keys(fields)
    .filter((name) => !given.has(name) && !NOT_SETTABLE.test(name))
    .sort()
    .map((name) => ({ value: `${name}=`, description: describeField(fields[name] as TemplateField) }));
}

/** Beside a field: whether it is required, its description and example (text from the file: escaped). */
function describeField(field: TemplateField): string {
  const parts = [
    field.required === true ? 'required' : 'optional',
    ...(field.description ? [field.description] : []),
    ...(field.example ? [`e.g. ${field.example}`] : []),
  ];
  return escapeControl(parts.join('; '));
}

const COMPLETERS: Record<ValueSourceName, ValueCompleter> = {
  profile: profileNames,
  template: templateNames,
  field: fieldNames,
};

/**
 * The lookup the entry point gives `complete`. Never fails loudly: a broken config or project file is
 * reported by the commands that read it, not by Tab, which then offers nothing for that value.
 */
export function valueLookup(ctx: Context): ValueLookup {
  return (source, line) => {
    try {
      return COMPLETERS[source](line, ctx);
    } catch {
      return [];
    }
  };
}
