// What most commands start with: the settings (flag > env > profile > default) and an API client.
import type { ApiClient } from '../api/client.js';
import type { Context } from '../context.js';
import { lookUpProjectFile } from '../project/project-file.js';
import { escapeControl } from '../text/terminal-text.js';
import { configDir, configFilePath } from './paths.js';
import {
  checkProfileExists,
  describeSource,
  type GlobalFlags,
  notLoggedIn,
  profileSetAsideText,
  type ResolveOptions,
  requireBaseUrl,
  resolveProfileName,
  resolveSettings,
  type Setting,
  type Settings,
} from './settings.js';
import { type ConfigFile, readConfigFile, warnIfReadableByOthers } from './store.js';
import { remindOfTokenAge } from './token-age.js';

/**
 * What the command line chose for the connection (--profile, --base-url, --timeout, as given:
 * each is checked where the settings are resolved, with the environment and the profile).
 */
export type Connection = GlobalFlags;

export function loadSettings(
  connection: Connection,
  ctx: Context,
  { verbose = false, ...resolveOptions }: ResolveOptions & { verbose?: boolean | undefined } = {},
): Settings {
  const settings = resolveSettings(connection, ctx, readConfigFile, resolveOptions);
  if (settings.token.value) ctx.addSecret(settings.token.value);
  for (const notice of settings.notices) ctx.stderr.write(`${notice}\n`);
  warnIfReadableByOthers(settings.configDir, ctx);
  // Under --verbose, each setting and where it came from, before anything can fail on them.
  if (verbose) traceSettings(settings, (line) => ctx.stderr.write(`${line}\n`));
  return settings;
}

/** The settings already traced (by loadSettings under --verbose): connect does not trace them again. */
const traced = new WeakSet<Settings>();

/** Each setting, its value (never the token's) and where it came from, one line each. */
function traceSettings(settings: Settings, trace: (line: string) => void): void {
  if (traced.has(settings)) return;
  traced.add(settings);
  const aside = profileSetAsideText(settings);
  trace(`profile: ${settings.profile.value} (${describeSource(settings.profile.source)})`);
  if (aside) trace(`  ${aside.said}`);
  const { baseUrl } = settings;
  trace(
    baseUrl.value === undefined
      ? 'base URL: not set'
      : `base URL: ${baseUrl.value} (${describeSource(baseUrl.source)})`,
  );
  trace(
    settings.token.source === 'none' ? 'token: none' : `token: from ${describeSource(settings.token.source)}`,
  );
  trace(`timeout: ${settings.timeoutMs.value / 1000} s (${describeSource(settings.timeoutMs.source)})`);
  trace(`project file: ${settings.project ? escapeControl(settings.project.path) : 'none'}`);
  trace(`config file: ${settings.configPath}`);
}

/**
 * The profile a command that changes the config works on (login, logout, config): --profile,
 * ESIGN_PROFILE, the project file's, or default. Such a command uses only the project file's
 * profile, so other problems in the file are warnings here.
 */
export function profileToChange(connection: Connection, ctx: Context): string {
  return chooseProfile(connection, ctx).profile.value;
}

/**
 * profileToChange, for a command that works on a profile that must be there (logout, config get,
 * unset and list): a profile named by a flag, ESIGN_PROFILE or the project file that is not in the
 * config, while others are, is a typo, told with "did you mean" (exit 2), as every other command does.
 */
export function storedProfileToChange(connection: Connection, ctx: Context): string {
  const { profile, config, configPath } = chooseProfile(connection, ctx);
  checkProfileExists(profile, config, configPath);
  return profile.value;
}

/** The profile chosen, with the config file it was chosen from (read once; a broken one throws here). */
function chooseProfile(
  connection: Connection,
  ctx: Context,
): { profile: Setting<string>; config: ConfigFile; configPath: string } {
  const lookup = lookUpProjectFile(ctx.cwd, {
    env: ctx.env,
    uses: 'profile',
    profileNamed: connection.profile !== undefined || Boolean(ctx.env.ESIGN_PROFILE),
  });
  for (const warning of lookup.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  const config = readConfigFile(dir);
  const configPath = configFilePath(dir);
  const stored = { profile: config.default_profile, configPath };
  return { profile: resolveProfileName(connection, ctx.env, lookup.project, stored), config, configPath };
}

/**
 * The token a request carries: ESIGN_TOKEN or the stored one, or what the token command prints (run
 * now, once: never while settings are only read, as `esign status` does). It is registered as a
 * secret before anything else happens. No token: the error that says how to log in.
 */
export async function obtainToken(settings: Settings, ctx: Context): Promise<string> {
  if (settings.token.value) return settings.token.value;
  if (!settings.tokenCommand) throw notLoggedIn(settings);
  const { runTokenCommand } = await import('./token-command.js');
  const token = await runTokenCommand(settings.tokenCommand, {
    env: ctx.env,
    platform: ctx.platform,
    timeoutMs: settings.timeoutMs.value,
    signal: ctx.signal,
  });
  ctx.addSecret(token);
  return token;
}

export interface ConnectOptions {
  /** Each setting and where it came from, and each exchange, traced on stderr. */
  verbose?: boolean | undefined;
  connections?: number;
  /**
   * Whether a person reads stderr (not --json, -q or CI): then a stored token 90 days old or more
   * is a reminder to rotate it, at most once a day (src/config/token-age.ts).
   */
  remindTokenAge?: boolean | undefined;
  /** Where the template id comes from, as the API's hints name it (default `--template`). */
  templateFrom?: string | undefined;
}

/** Resolves what a request needs (base URL, then token) and builds the client. */
export async function connect(
  settings: Settings,
  ctx: Context,
  { verbose = false, connections, remindTokenAge = false, templateFrom }: ConnectOptions = {},
): Promise<ApiClient> {
  const trace = verbose ? (line: string) => ctx.stderr.write(`${line}\n`) : undefined;
  if (trace) traceSettings(settings, trace);
  const baseUrl = requireBaseUrl(settings);
  const token = await obtainToken(settings, ctx);
  if (settings.tokenOverridesProfile) {
    ctx.stderr.write(
      `note: using the token from ${describeSource(settings.token.source)}; it overrides the token stored in profile '${settings.profile.value}'.\n`,
    );
  }
  if (remindTokenAge && settings.tokenStoredAt) {
    remindOfTokenAge(settings, ctx);
  }
  const { ApiClient } = await import('../api/client.js');
  return new ApiClient({
    baseUrl,
    token,
    tokenSource: settings.token.source,
    timeoutMs: settings.timeoutMs.value,
    env: ctx.env,
    userAgent: `esign/${ctx.version}`,
    now: () => ctx.now(),
    trace,
    ...(connections === undefined ? {} : { connections }),
    ...(templateFrom === undefined ? {} : { templateFrom }),
    ...(settings.tokenCommand ? { refreshToken: () => tokenOnceMore(settings, ctx, trace) } : {}),
  });
}

/** After a 401: the token command run once more; its failure leaves the 401 as the answer. */
async function tokenOnceMore(
  settings: Settings,
  ctx: Context,
  trace: ((line: string) => void) | undefined,
): Promise<string | undefined> {
  try {
    return await obtainToken(settings, ctx);
  } catch (error) {
    trace?.(`  401: running the token command again failed: ${(error as Error).message}`);
    return undefined;
  }
}
