// Where each setting comes from, highest first: flag, environment, the project file (.esign.json),
// the active profile, default.
import type { Env } from '../context.js';
import { MissingSettingError, NotAuthenticatedError, UsageError } from '../errors.js';
import { type LoadedProject, lookUpProjectFile, type ProjectLookup } from '../project/project-file.js';
import { type TemplateNames, templateNamesFor } from '../project/templates.js';
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';
import { isLoopbackHost } from '../transport/loopback.js';
import { DEFAULT_PROFILE, DEFAULT_TIMEOUT_SECONDS } from './defaults.js';
import { configDir, configFilePath } from './paths.js';
import { type ConfigFile, getProfile, type Profile, profileNames } from './store.js';

export type SettingSource =
  | 'flag'
  | `env ${string}`
  | `project ${string}`
  | `profile ${string}`
  /** The default profile `esign profile use` stored in the config file (its path follows). */
  | `config ${string}`
  /** A token a command prints: `command env ESIGN_TOKEN_COMMAND`, `command profile <name>`. */
  | `command ${string}`
  | 'default'
  | 'none';

export interface Setting<T> {
  value: T;
  source: SettingSource;
}

export interface GlobalFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  timeout?: string | undefined;
}

/** A token command: what runs, and where it was named (ESIGN_TOKEN_COMMAND or the profile). */
export interface TokenCommand {
  command: string;
  source: SettingSource;
}

export interface Settings {
  profile: Setting<string>;
  baseUrl: Setting<string | undefined>;
  /**
   * The token, when it is known without running anything (ESIGN_TOKEN, or stored by `esign login`).
   * A token from a command has the command's source and no value: `obtainToken` runs it.
   */
  token: Setting<string | undefined>;
  /** The command that prints the token, when the token comes from one (never run to resolve settings). */
  tokenCommand: TokenCommand | undefined;
  /** When `esign login` stored the profile's token (ISO 8601), when the token is that one and esign recorded it. */
  tokenStoredAt: string | undefined;
  /** True when ESIGN_TOKEN or ESIGN_TOKEN_COMMAND hides a token (or a token command) stored in the profile. */
  tokenOverridesProfile: boolean;
  /**
   * Why the token found (ESIGN_TOKEN, or the profile's) is not used, when it cannot be one (too
   * short): a sentence for the error a request then meets. `token.value` is undefined then.
   */
  tokenRefused?: string | undefined;
  /** The profiles stored in the config file, in its order (named when the active one holds nothing). */
  storedProfiles: string[];
  timeoutMs: Setting<number>;
  configDir: string;
  configPath: string;
  /** The project file (.esign.json) in force, if one was found. */
  project: LoadedProject | undefined;
  /** The folder the project file was looked for from (and its parents); undefined when not looked for. */
  projectSearchedFrom: string | undefined;
  /** What to say on stderr before anything else (each a sentence, `warning: ` or `note: ` included). */
  notices: string[];
  /**
   * The profile that would have been used (chosen with `esign profile use`, or the project file's
   * `profile`) when --base-url or ESIGN_BASE_URL set it aside, and which of the two did.
   */
  profileSetAside: ProfileSetAside | undefined;
}

/** A profile --base-url or ESIGN_BASE_URL set aside: the one chosen, where, and by which setting. */
interface ProfileSetAside {
  profile: string;
  chosenBy: SettingSource;
  by: '--base-url' | 'ESIGN_BASE_URL';
}

export interface ResolveOptions {
  /** A profile named by a flag, ESIGN_PROFILE or the project file must be in the config (when it has any). Default true. */
  profileMustExist?: boolean;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const PROFILE_NAME_RULE =
  'Use letters, digits, and . _ - (at most 64 characters), e.g. --profile staging.';

/** Whether `name` is a name a profile can have (--profile, ESIGN_PROFILE, the file's profile). */
export function isProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}

/** The default profile `esign profile use` stored, and the config file that holds it. */
export interface StoredDefault {
  profile: string | undefined;
  configPath: string;
}

/**
 * The profile, highest first: --profile, ESIGN_PROFILE, the project file's `profile`, the default
 * `esign profile use` stored in the config file, then `default`.
 */
export function resolveProfileName(
  flags: GlobalFlags,
  env: Env,
  project?: LoadedProject | undefined,
  stored?: StoredDefault,
): Setting<string> {
  const chosen: Setting<string> =
    flags.profile !== undefined
      ? { value: flags.profile, source: 'flag' }
      : env.ESIGN_PROFILE
        ? { value: env.ESIGN_PROFILE, source: 'env ESIGN_PROFILE' }
        : project?.content.profile
          ? { value: project.content.profile, source: `project ${project.path}` }
          : stored?.profile
            ? { value: stored.profile, source: `config ${stored.configPath}` }
            : { value: DEFAULT_PROFILE, source: 'default' };
  if (!isProfileName(chosen.value)) {
    const where =
      chosen.source === 'flag'
        ? '--profile'
        : chosen.source.startsWith('config ')
          ? `default_profile in ${chosen.source.slice(7)}`
          : 'ESIGN_PROFILE';
    throw new UsageError(`${where}: '${chosen.value}' is not a valid profile name.`, {
      hint: PROFILE_NAME_RULE,
    });
  }
  return chosen;
}

function namedBy(source: SettingSource): string {
  if (source === 'flag') return '--profile';
  if (source.startsWith('env ')) return source.slice(4);
  if (source.startsWith('config ')) return '`esign profile use`';
  return describeSource(source);
}

/**
 * A profile named by a flag, ESIGN_PROFILE or the project file that is not in the config, while
 * other profiles are: a typo, said at once (instead of a later "No API base URL is set").
 */
export function checkProfileExists(profile: Setting<string>, config: ConfigFile, configPath: string): void {
  if (profile.source === 'default') return;
  const known = Object.keys(config.profiles ?? {});
  if (known.length === 0 || known.includes(profile.value)) return;
  throw new UsageError(
    `Profile '${profile.value}' does not exist (named by ${namedBy(profile.source)}).${didYouMean(profile.value, known)}`,
    {
      hint: `Profiles in ${configPath}: ${known.sort().join(', ')}. Create one with \`esign login --profile ${profile.value}\`.`,
    },
  );
}

export function parseTimeout(flags: GlobalFlags, env: Env): Setting<number> {
  const [raw, source, name] =
    flags.timeout !== undefined
      ? [flags.timeout, 'flag' as const, '--timeout']
      : env.ESIGN_TIMEOUT
        ? [env.ESIGN_TIMEOUT, 'env ESIGN_TIMEOUT' as const, 'ESIGN_TIMEOUT']
        : [undefined, 'default' as const, ''];
  if (raw === undefined) return { value: DEFAULT_TIMEOUT_SECONDS * 1000, source };
  const seconds = Number(raw);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || !(seconds > 0) || seconds > 3600) {
    throw new UsageError(`${name}: '${raw}' is not a timeout in seconds.`, {
      hint: 'Give a number of seconds greater than 0 and at most 3600, e.g. --timeout 10.',
    });
  }
  return { value: Math.round(seconds * 1000), source };
}

/**
 * Checks a base URL: https, or http for loopback hosts only (where `esign sandbox` listens).
 * Returns it without a trailing slash. `where` names the flag, variable or profile it came from.
 */
export function normalizeBaseUrl(raw: string, where: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${where}: '${raw}' is not a URL.`, {
      hint: 'Give the full API base URL, including /api/v1, e.g. https://esign.example.com/api/v1.',
    });
  }
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname)) {
      throw new UsageError(
        `${where}: plain http:// is allowed only for loopback hosts, not ${url.hostname}.`,
        {
          hint: 'Use https:// (http:// is for localhost, 127.0.0.0/8 and [::1], where `esign sandbox` listens).',
        },
      );
    }
  } else if (url.protocol !== 'https:') {
    throw new UsageError(`${where}: the base URL must start with https://, not ${url.protocol}//.`);
  }
  if (url.username || url.password) {
    throw new UsageError(`${where}: the base URL must not carry a user name or password.`, {
      hint: 'The token is stored with `esign login`, never in the URL.',
    });
  }
  // A bare `?` or `#` leaves url.search and url.hash empty, yet `+ path` would land after it.
  if (url.search || url.hash || /[?#]/.test(raw)) {
    throw new UsageError(`${where}: the base URL must not have a query string or fragment (no ? or #).`, {
      hint: 'Give the API base URL alone, e.g. https://esign.example.com/api/v1.',
    });
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * A warning for a base URL whose path does not end in the API prefix (/api/v1 and the like), or
 * undefined when it does. `login` and `config set base_url` print it; the URL is still stored.
 */
export function baseUrlWarning(baseUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
  if (/\/api\/v\d+$/i.test(path)) return undefined;
  const suggestion = `${baseUrl.replace(/\/+$/, '')}/api/v1`;
  return `the base URL ${baseUrl} does not end in the API prefix /api/v1; requests go to <base URL>/native/envelopes/create. If the API lives under /api/v1, use ${suggestion}.`;
}

/** Where the base URL comes from when a flag or the environment gives it: the destination is not a profile's. */
function baseUrlGivenBy(flags: GlobalFlags, env: Env): ProfileSetAside['by'] | undefined {
  if (flags.baseUrl !== undefined) return '--base-url';
  return env.ESIGN_BASE_URL ? 'ESIGN_BASE_URL' : undefined;
}

/**
 * The profile, and the project file it may come from. The project file's `profile` names a stored
 * profile, whose base URL is where requests go and whose template names match that server. When
 * --base-url or ESIGN_BASE_URL gives the destination (a CI job), that profile does not describe it,
 * and its template names (sandbox ids, say) would be sent to another server: the file's profile is
 * then not used, and a note says so. --profile and ESIGN_PROFILE still choose one.
 */
function profileWithProject(
  flags: GlobalFlags,
  env: Env,
  lookup: ProjectLookup,
  stored: StoredDefault,
): { profile: Setting<string>; notices: string[]; setAside: ProfileSetAside | undefined } {
  const notices = lookup.warnings.map((warning) => `warning: ${warning}`);
  const givenBy = baseUrlGivenBy(flags, env);
  const fileProfile = lookup.project?.content.profile;
  // A base URL from a flag or the environment is where requests go: no stored profile describes
  // it, neither the project file's nor the one `esign profile use` chose.
  const profile = givenBy
    ? resolveProfileName(flags, env)
    : resolveProfileName(flags, env, lookup.project, stored);
  if (!givenBy || profile.source !== 'default') return { profile, notices, setAside: undefined };
  if (fileProfile !== undefined) {
    notices.push(
      `note: the project file's profile '${fileProfile}' is not used: ${givenBy} gives the base URL, so the profile is '${profile.value}' and so are the template names (name one with --profile or ESIGN_PROFILE).`,
    );
  }
  // The profile that would have been used, named where a failure would otherwise speak of `default`.
  const chosen = fileProfile
    ? { value: fileProfile, source: `project ${lookup.project?.path}` as const }
    : stored.profile
      ? { value: stored.profile, source: `config ${stored.configPath}` as const }
      : undefined;
  const setAside =
    chosen && chosen.value !== profile.value
      ? { profile: chosen.value, chosenBy: chosen.source, by: givenBy }
      : undefined;
  return { profile, notices, setAside };
}

/**
 * Why the profile is not the one chosen, for a failure that names the profile (no token, a template
 * name not in force) and for --verbose: which setting set it aside, and how to use it all the same.
 */
export function profileSetAsideText(
  settings: Pick<Settings, 'profileSetAside' | 'profile'>,
): { said: string; hint: string } | undefined {
  const aside = settings.profileSetAside;
  if (!aside) return undefined;
  const name = escapeControl(aside.profile);
  const chosenBy = aside.chosenBy.startsWith('project ')
    ? `the "profile" of ${describeSource(aside.chosenBy)}`
    : namedBy(aside.chosenBy);
  return {
    said: `${aside.by} gives the base URL, so profile '${name}' (chosen by ${chosenBy}) is set aside and the profile is '${settings.profile.value}'.`,
    hint: `To use profile '${name}' with this base URL, add --profile ${name} or set ESIGN_PROFILE=${name}.`,
  };
}

/**
 * The template names in force for the settings' profile (looked for from `searchedFrom`), with why
 * that profile is not the one chosen when a base URL set it aside.
 */
export function templateNamesOf(
  settings: Settings,
  searchedFrom: string | undefined = settings.projectSearchedFrom,
): TemplateNames {
  const names = templateNamesFor(settings.project, settings.profile.value, searchedFrom);
  const aside = profileSetAsideText(settings);
  return aside ? { ...names, profileNote: `${aside.said} ${aside.hint}` } : names;
}

export function resolveSettings(
  flags: GlobalFlags,
  ctx: { env: Env; platform: NodeJS.Platform; homedir: string; cwd?: string },
  read: (dir: string) => ConfigFile,
  options: ResolveOptions = {},
): Settings {
  const { env } = ctx;
  const lookup =
    ctx.cwd === undefined
      ? { project: undefined, warnings: [] }
      : lookUpProjectFile(ctx.cwd, {
          env,
          profileNamed: flags.profile !== undefined || Boolean(env.ESIGN_PROFILE),
        });
  const project = lookup.project;
  const dir = configDir(env, ctx.platform, ctx.homedir);
  const config = read(dir);
  const storedDefault = { profile: config.default_profile, configPath: configFilePath(dir) };
  const { profile, notices, setAside } = profileWithProject(flags, env, lookup, storedDefault);
  const timeoutMs = parseTimeout(flags, env);
  if (options.profileMustExist !== false) checkProfileExists(profile, config, configFilePath(dir));
  const stored = getProfile(config, profile.value);
  const fromProfile = `profile ${profile.value}` as const;

  let baseUrl: Setting<string | undefined> = { value: undefined, source: 'none' };
  if (flags.baseUrl !== undefined)
    baseUrl = { value: normalizeBaseUrl(flags.baseUrl, '--base-url'), source: 'flag' };
  else if (env.ESIGN_BASE_URL) {
    baseUrl = { value: normalizeBaseUrl(env.ESIGN_BASE_URL, 'ESIGN_BASE_URL'), source: 'env ESIGN_BASE_URL' };
  } else if (stored?.base_url) {
    baseUrl = {
      value: normalizeBaseUrl(stored.base_url, `base_url of profile '${profile.value}'`),
      source: fromProfile,
    };
  }

  const { token, tokenCommand, tokenStoredAt, tokenRefused } = resolveToken(env, stored, profile.value);

  return {
    profile,
    baseUrl,
    token,
    tokenCommand,
    tokenStoredAt,
    tokenRefused,
    tokenOverridesProfile:
      (token.source === 'env ESIGN_TOKEN' || token.source === 'command env ESIGN_TOKEN_COMMAND') &&
      holdsToken(stored),
    storedProfiles: profileNames(config),
    timeoutMs,
    configDir: dir,
    configPath: configFilePath(dir),
    project,
    projectSearchedFrom: ctx.cwd,
    notices,
    profileSetAside: setAside,
  };
}

/**
 * The fewest characters a token can have. The service's tokens (and the sandbox's, whose seed
 * file asks for 16 at least) are far longer; a shorter value is a placeholder or a slip
 * (ESIGN_TOKEN=text), never sent. 16 is also the slice the redaction masks (src/text/redact.ts):
 * a value that short would mask ordinary text wherever it appears (in `esign mcp`, the protocol's).
 */
const MIN_TOKEN_LENGTH = 16;

/** Why `token` cannot be a token (it is too short), in words that follow its subject; undefined when it can. */
export function tokenProblem(token: string): string | undefined {
  if (token.length >= MIN_TOKEN_LENGTH) return undefined;
  return `is ${token.length} character${token.length === 1 ? '' : 's'} long: too short to be a token (one has at least ${MIN_TOKEN_LENGTH})`;
}

/**
 * Where the token comes from, highest first: ESIGN_TOKEN, ESIGN_TOKEN_COMMAND, then the profile's
 * token command or its stored token (`esign login` keeps one or the other). Nothing is run here. A
 * token too short to be one is not used (tokenRefused says why): decided here, for every command.
 */
function resolveToken(
  env: Env,
  stored: Profile | undefined,
  profile: string,
): {
  token: Setting<string | undefined>;
  tokenCommand: TokenCommand | undefined;
  tokenStoredAt: string | undefined;
  tokenRefused?: string;
} {
  const fromProfile = `profile ${profile}` as const;
  const none = { tokenCommand: undefined, tokenStoredAt: undefined };
  if (env.ESIGN_TOKEN) {
    const value = env.ESIGN_TOKEN.trim();
    const problem = value === '' ? undefined : tokenProblem(value);
    if (problem) {
      return {
        ...none,
        token: { value: undefined, source: 'env ESIGN_TOKEN' },
        tokenRefused: `ESIGN_TOKEN ${problem}; it was not used.`,
      };
    }
    return { ...none, token: { value, source: 'env ESIGN_TOKEN' } };
  }
  const command = env.ESIGN_TOKEN_COMMAND?.trim()
    ? { command: env.ESIGN_TOKEN_COMMAND.trim(), source: 'command env ESIGN_TOKEN_COMMAND' as const }
    : stored?.token_command?.trim()
      ? { command: stored.token_command.trim(), source: `command ${fromProfile}` as const }
      : undefined;
  if (command) {
    return {
      token: { value: undefined, source: command.source },
      tokenCommand: command,
      tokenStoredAt: undefined,
    };
  }
  if (stored?.token) {
    const problem = tokenProblem(stored.token);
    if (problem) {
      return {
        ...none,
        token: { value: undefined, source: fromProfile },
        tokenRefused: `The token stored in profile '${profile}' ${problem}; it was not used.`,
      };
    }
    return {
      token: { value: stored.token, source: fromProfile },
      tokenCommand: undefined,
      tokenStoredAt: stored.token_stored_at,
    };
  }
  return { ...none, token: { value: undefined, source: 'none' } };
}

export function requireBaseUrl(settings: Settings): string {
  if (settings.baseUrl.value) return settings.baseUrl.value;
  throw new MissingSettingError('No API base URL is set.', {
    hint:
      otherProfilesHint(settings) ??
      `Pass --base-url <url>, set ESIGN_BASE_URL, or store one: esign config set base_url <url>${profileFlagOf(settings)}. Trying things out? Run \`esign sandbox\`.`,
  });
}

/** No token for the active profile: how to log in, or which stored profile to use instead. */
export function notLoggedIn(settings: Settings): NotAuthenticatedError {
  if (settings.tokenRefused) {
    return new NotAuthenticatedError(settings.tokenRefused, {
      hint:
        settings.token.source === 'env ESIGN_TOKEN'
          ? "Set ESIGN_TOKEN to the token the dashboard showed (Settings → API Tokens), or unset it to use the profile's."
          : `Store the token the dashboard showed: esign login${profileFlagOf(settings)}.`,
    });
  }
  const setAside = profileSetAsideText(settings);
  const login = `\`esign login${profileFlagOf(settings)}\`, or set ESIGN_TOKEN (in CI, from a secret).`;
  return new NotAuthenticatedError(
    `Not logged in: no token for profile '${settings.profile.value}'.${setAside ? ` ${setAside.said}` : ''}`,
    { hint: setAside ? `${setAside.hint} Or run ${login}` : (otherProfilesHint(settings) ?? `Run ${login}`) },
  );
}

function profileFlagOf(settings: Settings): string {
  return profileFlag(settings.profile.value);
}

/** ` --profile <name>` for a command to print, or nothing for the default profile. */
export function profileFlag(profile: string): string {
  return profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
}

/** The variables that give a token (or the command that prints one), over what a profile stores. */
const TOKEN_VARIABLES = ['ESIGN_TOKEN', 'ESIGN_TOKEN_COMMAND'] as const;

/** The token variables set (not blank) in `env`. */
export function tokenVariablesSet(env: Env): string[] {
  return TOKEN_VARIABLES.filter((variable) => env[variable]?.trim());
}

/** Whether a stored profile holds a token, or a command that prints one. */
export function holdsToken(profile: Profile | undefined): boolean {
  return Boolean(profile?.token || profile?.token_command);
}

/**
 * When the active profile holds nothing (no base URL, no token) and others are stored, the likely
 * cause is the profile, not a missing login: the stored ones are named, with how to use one.
 */
export function otherProfilesHint(settings: Settings): string | undefined {
  const active = settings.profile.value;
  const others = settings.storedProfiles.filter((name) => name !== active);
  const emptyHere = !settings.storedProfiles.includes(active);
  if (!emptyHere || others.length === 0 || settings.baseUrl.source !== 'none') return undefined;
  const [first] = others;
  const listed = others.map((name) => `'${name}'`).join(', ');
  return `Profile '${active}' is empty; ${others.length === 1 ? 'the stored profile is' : 'the stored profiles are'} ${listed}. Use one with --profile ${first}, or make it the default: esign profile use ${first}.`;
}

/** The last 4 characters of a token, the rest masked: enough to tell tokens apart, never enough to use one. */
export function maskToken(token: string): string {
  return token.length <= 8 ? '****' : `****${token.slice(-4)}`;
}

/** Where a setting came from, in words, with no brackets of its own (callers put it in brackets). */
export function describeSource(source: SettingSource): string {
  if (source === 'flag') return 'command-line flag';
  if (source === 'default') return 'default';
  if (source === 'none') return 'not set';
  if (source.startsWith('env ')) return `environment variable ${source.slice(4)}`;
  if (source.startsWith('config '))
    return `the default chosen with \`esign profile use\`, in ${source.slice(7)}`;
  if (source.startsWith('command '))
    return `the token command in ${describeSource(source.slice(8) as SettingSource)}`;
  // A path is text from the file system: escaped, as every file's text is in a message.
  if (source.startsWith('project ')) return `project file ${escapeControl(source.slice(8))}`;
  return `profile '${source.slice(8)}'`;
}

export { DEFAULT_PROFILE };
