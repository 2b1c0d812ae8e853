// esign init: a project file (.esign.json, in the current folder) naming the sandbox's templates
// with their fields, read from the sandbox the active profile points at: at the top level for the
// profile `default`, else under profiles.<profile> (sandbox ids are not production's). Nothing is
// created on the server. An existing file is kept unless --force; `esign templates set` changes
// one template.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadSettings, obtainToken } from '../config/connect.js';
import { DEFAULT_PROFILE, requireBaseUrl } from '../config/settings.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { connectionOf } from '../options.js';
import { PROJECT_FILE_NAME, type ProjectFile, parseProjectFile } from '../project/project-file.js';
import { entriesFromSandbox, fetchSandboxTemplates } from '../project/sandbox-templates.js';
import { listTemplates, templateNamesFor } from '../project/templates.js';
import { newProjectText, writeFileAtomic } from '../project/write-project.js';
import { shellQuote } from '../text/shell.js';
import { escapeControl } from '../text/terminal-text.js';
import type { Options } from './global-flags.js';
import type { init } from './templates.decl.js';

type InitOptions = Options<typeof init>;

export async function run(flags: InitOptions, ctx: Context): Promise<number> {
  const settings = loadSettings(connectionOf(flags), ctx, { verbose: flags.verbose });
  const target = join(ctx.cwd, PROJECT_FILE_NAME);
  if (existsSync(target) && !flags.force) {
    throw new UsageError(`${target} already exists; it was left as it is.`, {
      hint: 'Add --force to replace it, or change one template with `esign templates set <name> <id>`.',
    });
  }
  const baseUrl = requireBaseUrl(settings);
  const listing = await fetchSandboxTemplates(
    baseUrl,
    await obtainToken(settings, ctx),
    settings.timeoutMs.value,
    ctx,
  );
  const { entries, unchecked } = entriesFromSandbox(listing);
  const profile = settings.profile.value;
  // The sandbox's ids under the profile they belong to: top-level names are the production ids
  // every profile gets, and sandbox ids there would be sent to production without a word.
  const content: ProjectFile =
    profile === DEFAULT_PROFILE
      ? { templates: entries }
      : { profiles: { [profile]: { templates: entries } } };
  const text =
    profile === DEFAULT_PROFILE ? newProjectText(entries) : `${JSON.stringify(content, null, 2)}\n`;
  // What is written is read back as every command reads it: a file esign would refuse is never written.
  parseProjectFile(text, target);
  for (const template of unchecked) {
    ctx.stderr.write(
      `warning: template '${template.name}' (${template.id}) has a merge tag that cannot be a declared field: '${escapeControl(template.tag)}' ${template.problem}. It is written as its id alone, so its merge data is not checked.\n`,
    );
  }
  try {
    writeFileAtomic(target, text, !flags.force);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EEXIST'
        ? `${target} was created meanwhile; it was left as it is.`
        : `Cannot write ${target}: ${(error as Error).message}.`,
    );
  }
  const listed = listTemplates(templateNamesFor({ path: target, content }, profile));
  if (flags.json) {
    ctx.stdout.write(
      `${JSON.stringify({ project_file: target, organisation: listing.organisation, entries: listed })}\n`,
    );
    return ExitCode.ok;
  }
  let width = 0;
  for (const entry of listed) width = Math.max(width, entry.name.length);
  const where = profile === DEFAULT_PROFILE ? '' : ` under profiles.${profile}`;
  ctx.stdout.write(
    `Wrote ${target}: ${listed.length} ${listed.length === 1 ? 'template' : 'templates'} of ${escapeControl(listing.organisation)}${where}\n` +
      listed
        .map(
          (entry) =>
            `  ${entry.name.padEnd(width)}  ${entry.id}  ${entry.fields.map((field) => escapeControl(field.name)).join(', ')}\n`,
        )
        .join(''),
  );
  const example = listed.find((entry) => entry.fields.length > 0);
  if (example) {
    const inProfile = profile === DEFAULT_PROFILE ? '' : ` --in-profile ${profile}`;
    ctx.stderr.write(
      'Every field is optional until you mark it required, e.g.\n' +
        `  esign templates set ${example.name} --required ${shellQuote(example.fields[0]?.name ?? '')}${inProfile}\n`,
    );
  }
  if (profile !== DEFAULT_PROFILE && settings.profile.source !== `config ${settings.configPath}`) {
    ctx.stderr.write(
      `note: these names are in force for profile '${profile}': use --profile ${profile}, or make it your default with \`esign profile use ${profile}\`.\n`,
    );
  }
  return ExitCode.ok;
}
