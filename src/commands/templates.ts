// esign templates: the template names in force (the project file's, for the active profile), their
// ids and their declared fields. Nothing is sent: names are a local convenience, the API only knows ids.
import { loadSettings } from '../config/connect.js';
import type { Settings } from '../config/settings.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { themeFor } from '../io/theme.js';
import { connectionOf } from '../options.js';
import { listTemplates, type TemplateListing, templateNamesFor } from '../project/templates.js';
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';
import type { Options } from './global-flags.js';
import type { templates } from './templates.decl.js';

/**
 * What `--json` prints, and what `esign mcp`'s list_templates returns: the names in force and their
 * ids (`templates`, as before), and each one with its declared fields (`entries`).
 */
export function templatesReport(settings: Settings) {
  const profile = settings.profile.value;
  const templates = templateNamesFor(settings.project, profile);
  const entries = listTemplates(templates);
  const sorted = Object.fromEntries(entries.map((entry) => [entry.name, entry.id]));
  return { project_file: templates.file ?? null, profile, templates: sorted, entries };
}

export async function run(options: Options<typeof templates>, ctx: Context): Promise<number> {
  // Only the project file is read: the profile chooses its names, and need not be stored anywhere
  // (a CI job lists the names of `--profile production` with no config at all).
  const settings = loadSettings(connectionOf(options), ctx, { profileMustExist: false });
  const profile = settings.profile.value;
  const templates = templateNamesFor(settings.project, profile);
  const perProfile = settings.project?.content.profiles ?? {};
  const known = Object.keys(perProfile).sort();
  if (settings.project && known.length > 0 && !Object.hasOwn(perProfile, profile)) {
    // The file's text is data: escaped whole.
    const note = `${settings.project.path} has no profiles.${profile}, only ${known.join(', ')}: the names below are the top-level ones.${didYouMean(profile, known)}`;
    ctx.stderr.write(`note: ${escapeControl(note)}\n`);
  }
  const listed = listTemplates(templates);
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify(templatesReport(settings))}\n`);
    return ExitCode.ok;
  }
  if (!templates.file) {
    ctx.stderr.write(
      'No project file: template names come from .esign.json in this folder or a parent, e.g.\n' +
        '  {"templates": {"offer-letter": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E"}}\n' +
        'Run `esign init` to write one for the sandbox, or `esign templates set <name> <id>` to start one.\n',
    );
    return ExitCode.ok;
  }
  if (listed.length === 0) {
    ctx.stderr.write(`${escapeControl(templates.file)} names no templates for profile '${profile}'.\n`);
    return ExitCode.ok;
  }
  const c = await themeFor(ctx.terminal, 'stdout');
  const width = Math.max(...listed.map((entry) => entry.name.length));
  const ownOrigin = `profiles.${profile}.templates`;
  const text = listed.map((entry) => {
    const own = templates.origins[entry.name] === ownOrigin ? c.dim(`  (${ownOrigin})`) : '';
    return `${entry.name.padEnd(width)}  ${entry.id}${own}\n${fieldLines(entry, c)}`;
  });
  ctx.stdout.write(text.join(''));
  ctx.stderr.write(c.dim(`from ${escapeControl(templates.file)}, profile '${profile}'\n`));
  return ExitCode.ok;
}

/** A template's fields, one a line under it: required ones marked, with description and example. */
function fieldLines(entry: TemplateListing, c: Awaited<ReturnType<typeof themeFor>>): string {
  if (entry.fields.length === 0) return '';
  // Field names, descriptions and examples are text someone else wrote: escaped before a terminal.
  const names = entry.fields.map((field) => escapeControl(field.name));
  const width = Math.max(...names.map((name) => name.length));
  return entry.fields
    .map((field, index) => {
      const mark = field.required ? c.bold('required') : c.dim('optional');
      const about = [
        field.description === undefined ? undefined : escapeControl(field.description),
        field.example === undefined ? undefined : c.dim(`e.g. ${escapeControl(field.example)}`),
      ].filter((part) => part !== undefined && part !== '');
      return `  ${(names[index] as string).padEnd(width)}  ${mark}${about.length > 0 ? `  ${about.join('  ')}` : ''}`.trimEnd();
    })
    .map((line) => `${line}\n`)
    .join('');
}
