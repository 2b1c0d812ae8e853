// esign templates: the template names in force (the project file's, for the active profile), their
// ids and their declared fields. Nothing is sent: names are a local convenience, the API only knows ids.
import type * as z from 'zod/mini';
import { loadSettings } from '../config/connect.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { themeFor } from '../io/theme.js';
import { GlobalOptions } from '../options.js';
import { listTemplates, type TemplateListing, templateNamesFor } from '../project/templates.js';
import { escapeControl } from '../text/terminal-text.js';

export const options = GlobalOptions;

export async function run(options: z.infer<typeof GlobalOptions>, ctx: Context): Promise<number> {
  const settings = loadSettings(options, ctx);
  const profile = settings.profile.value;
  const templates = templateNamesFor(settings.project, profile);
  const listed = listTemplates(templates);
  if (options.json) {
    // `templates` (name → id) as before; `entries` adds each one's fields.
    const sorted = Object.fromEntries(listed.map((entry) => [entry.name, entry.id]));
    ctx.stdout.write(
      `${JSON.stringify({ project_file: templates.file ?? null, profile, templates: sorted, entries: listed })}\n`,
    );
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
    ctx.stderr.write(`${templates.file} names no templates for profile '${profile}'.\n`);
    return ExitCode.ok;
  }
  const c = themeFor(ctx.terminal, 'stdout');
  const width = Math.max(...listed.map((entry) => entry.name.length));
  const perProfile = `profiles.${profile}.templates`;
  const text = listed.map((entry) => {
    const own = templates.origins[entry.name] === perProfile ? c.dim(`  (${perProfile})`) : '';
    return `${entry.name.padEnd(width)}  ${entry.id}${own}\n${fieldLines(entry, c)}`;
  });
  ctx.stdout.write(text.join(''));
  ctx.stderr.write(c.dim(`from ${templates.file}, profile '${profile}'\n`));
  return ExitCode.ok;
}

/** A template's fields, one a line under it: required ones marked, with description and example. */
function fieldLines(entry: TemplateListing, c: ReturnType<typeof themeFor>): string {
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
