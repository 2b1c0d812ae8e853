// esign status: which profile, base URL and token (masked) a command would use, and from where.
import { existsSync } from 'node:fs';
import { loadSettings } from '../config/connect.js';
import {
  describeSource,
  maskToken,
  otherProfilesHint,
  profileSetAsideText,
  type Settings,
} from '../config/settings.js';
import { ageText, ROTATE_AFTER_DAYS, tokenAgeDays } from '../config/token-age.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { themeFor } from '../io/theme.js';
import { connectionOf } from '../options.js';
import { templateNamesFor } from '../project/templates.js';
import { escapeControl } from '../text/terminal-text.js';
import type { status } from './account.decl.js';
import type { Options } from './global-flags.js';

/**
 * What `--json` prints, and what `esign mcp`'s get_status returns: the profile, base URL, where the
 * token comes from (masked, never the token itself) and the files in force.
 */
export function statusReport(settings: Settings, now: Date = new Date()) {
  const token = settings.token.value;
  const storedAt = settings.tokenStoredAt;
  return {
    profile: { value: settings.profile.value, source: settings.profile.source },
    base_url: { value: settings.baseUrl.value ?? null, source: settings.baseUrl.source },
    token: {
      value: token ? maskToken(token) : null,
      source: settings.token.source,
      overrides_profile: settings.tokenOverridesProfile,
      // Where the token comes from when a command prints it: the command is named, never run here.
      command: settings.tokenCommand?.command ?? null,
      stored_at: storedAt ?? null,
      age_days: storedAt === undefined ? null : (tokenAgeDays(storedAt, now) ?? null),
    },
    timeout_seconds: { value: settings.timeoutMs.value / 1000, source: settings.timeoutMs.source },
    config_file: { path: settings.configPath, exists: existsSync(settings.configPath) },
    project_file: projectReport(settings),
  };
}

export async function run(options: Options<typeof status>, ctx: Context): Promise<number> {
  const settings = loadSettings(connectionOf(options), ctx);
  const token = settings.token.value;
  const report = statusReport(settings, ctx.now());
  const hasToken = Boolean(token) || settings.tokenCommand !== undefined;
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const c = await themeFor(ctx.terminal, 'stdout');
    const row = (label: string, value: string, source?: string) =>
      `  ${c.dim(label.padEnd(14))}${value}${source ? c.dim(` (${source})`) : ''}\n`;
    const setAside = profileSetAsideText(settings);
    ctx.stdout.write(
      row('Profile', settings.profile.value, describeSource(settings.profile.source)) +
        (setAside ? row('', setAside.said) : '') +
        row(
          'Base URL',
          settings.baseUrl.value ?? c.yellow('not set'),
          settings.baseUrl.value ? describeSource(settings.baseUrl.source) : undefined,
        ) +
        row(
          'Token',
          tokenText(settings, c.yellow('none')),
          tokenSourceText(settings, report.token.age_days),
        ) +
        row('Timeout', `${settings.timeoutMs.value / 1000} s`, describeSource(settings.timeoutMs.source)) +
        row('Config file', settings.configPath, report.config_file.exists ? undefined : 'not created yet') +
        projectRows(report.project_file, row),
    );
    if (settings.tokenRefused) ctx.stderr.write(`warning: ${settings.tokenRefused}\n`);
    if (!hasToken) {
      const hint = setAside?.hint ?? otherProfilesHint(settings) ?? 'run `esign login`, or set ESIGN_TOKEN.';
      ctx.stderr.write(`hint: ${hint}\n`);
    }
  }
  return hasToken ? ExitCode.ok : ExitCode.unauthenticated;
}

/** The token masked, or the command that prints it (not run: it may ask for a password). */
function tokenText(settings: Settings, none: string): string {
  if (settings.token.value) return maskToken(settings.token.value);
  if (settings.tokenCommand) return `from a command: ${escapeControl(settings.tokenCommand.command)}`;
  return none;
}

/** Where the token comes from, whether it overrides a stored one, and how old a stored one is. */
function tokenSourceText(settings: Settings, ageDays: number | null): string | undefined {
  if (!settings.token.value && !settings.tokenCommand) return undefined;
  const parts = [describeSource(settings.token.source)];
  if (settings.tokenCommand) parts.push('run when a command needs the token, not by status');
  if (settings.tokenOverridesProfile) parts.push('overriding what the profile stores');
  if (ageDays !== null) {
    const due = ageDays >= ROTATE_AFTER_DAYS ? `; rotate it: ${ROTATE_AFTER_DAYS} days or more` : '';
    parts.push(`stored ${ageText(ageDays)}${due}`);
  }
  return parts.join(', ');
}

type ProjectReport = ReturnType<typeof projectReport>;

/** The project file in force and what it sets (null when there is none). */
function projectReport(settings: Settings) {
  const { project } = settings;
  if (!project) return null;
  const templates = templateNamesFor(project, settings.profile.value);
  return {
    path: project.path,
    profile: project.content.profile ?? null,
    templates: templates.names,
    defaults: project.content.defaults ?? {},
  };
}

function projectRows(
  project: ProjectReport,
  row: (label: string, value: string, source?: string) => string,
): string {
  if (!project) return row('Project file', 'none', '.esign.json in this folder or a parent');
  const names = Object.keys(project.templates).sort();
  const defaults = Object.entries(project.defaults).map(([key, value]) => `${key} ${value}`);
  return (
    row('Project file', project.path) +
    (project.profile ? row('  profile', project.profile) : '') +
    (names.length > 0 ? row('  templates', names.join(', '), 'esign templates lists their ids') : '') +
    (defaults.length > 0 ? row('  defaults', defaults.join(', ')) : '')
  );
}
