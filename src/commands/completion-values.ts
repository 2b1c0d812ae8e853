// The values completion finds outside the command tree, one completer per source: profile names from
// the config, template names in force from the project file. A new source (a template's merge fields
// for `--set`) is a name in ValueSourceName (command-types.ts), a completer here, and the option in
// src/cli.ts that says it completes from it.
import type { ValueSourceName } from '../command-types.js';
import { configDir } from '../config/paths.js';
import { resolveProfileName } from '../config/settings.js';
import { readConfigFile } from '../config/store.js';
import type { Context } from '../context.js';
import { loadProjectFile } from '../project/project-file.js';
import { templateNamesFor } from '../project/templates.js';
import type { Candidate, CompletionLine, ValueLookup } from './completion.js';

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
  const project = ctx.cwd === undefined ? undefined : loadProjectFile(ctx.cwd, ctx.env);
  const profile = resolveProfileName({ profile: line.flag('--profile') }, ctx.env, project);
  const { names } = templateNamesFor(project, profile.value);
  return Object.keys(names)
    .sort()
    .map((value) => ({ value, description: names[value] as string }));
}

const COMPLETERS: Record<ValueSourceName, ValueCompleter> = {
  profile: profileNames,
  template: templateNames,
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
