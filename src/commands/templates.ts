// esign templates: the template names in force (the project file's, for the active profile) and
// their ids. Nothing is sent: names are a local convenience, the API only knows ids.
import type * as z from 'zod/mini';
import { loadSettings } from '../config/connect.js';
import type { Settings } from '../config/settings.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { themeFor } from '../io/theme.js';
import { GlobalOptions } from '../options.js';
import { templateNamesFor } from '../project/templates.js';
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';

export const options = GlobalOptions;

/** What `--json` prints, and what `esign mcp`'s list_templates returns: the names in force and their ids. */
export function templatesReport(settings: Settings) {
  const profile = settings.profile.value;
  const templates = templateNamesFor(settings.project, profile);
  const names = Object.keys(templates.names).sort();
  const sorted = Object.fromEntries(names.map((name) => [name, templates.names[name]]));
  return { project_file: templates.file ?? null, profile, templates: sorted };
}

export async function run(options: z.infer<typeof GlobalOptions>, ctx: Context): Promise<number> {
  // Only the project file is read: the profile chooses its names, and need not be stored anywhere
  // (a CI job lists the names of `--profile production` with no config at all).
  const settings = loadSettings(options, ctx, { profileMustExist: false });
  const profile = settings.profile.value;
  const templates = templateNamesFor(settings.project, profile);
  const perProfile = settings.project?.content.profiles ?? {};
  const known = Object.keys(perProfile).sort();
  if (settings.project && known.length > 0 && !Object.hasOwn(perProfile, profile)) {
    // The file's text is data: escaped whole.
    const note = `${settings.project.path} has no profiles.${profile}, only ${known.join(', ')}: the names below are the top-level ones.${didYouMean(profile, known)}`;
    ctx.stderr.write(`note: ${escapeControl(note)}\n`);
  }
  const names = Object.keys(templates.names).sort();
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify(templatesReport(settings))}\n`);
    return ExitCode.ok;
  }
  if (!templates.file) {
    ctx.stderr.write(
      'No project file: template names come from .esign.json in this folder or a parent, e.g.\n' +
        '  {"templates": {"offer-letter": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E"}}\n',
    );
    return ExitCode.ok;
  }
  if (names.length === 0) {
    ctx.stderr.write(`${escapeControl(templates.file)} names no templates for profile '${profile}'.\n`);
    return ExitCode.ok;
  }
  const c = themeFor(ctx.terminal, 'stdout');
  const width = Math.max(...names.map((name) => name.length));
  const ownOrigin = `profiles.${profile}.templates`;
  ctx.stdout.write(
    names
      .map((name) => {
        const own = templates.origins[name] === ownOrigin ? c.dim(`  (${ownOrigin})`) : '';
        return `${name.padEnd(width)}  ${templates.names[name]}${own}\n`;
      })
      .join(''),
  );
  ctx.stderr.write(c.dim(`from ${escapeControl(templates.file)}, profile '${profile}'\n`));
  return ExitCode.ok;
}
