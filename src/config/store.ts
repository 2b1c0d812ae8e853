// The config file: profiles by name, each with an optional base URL and token. conf is its store
// of record: every change is read and written through conf (which writes atomically, mode 0600),
// under esign's own lock beside the file, so that concurrent writers (two `login`s at once) never
// lose each other's profiles. conf reads the file through parseConfigText, the one decoder of its
// text (a byte-order mark, JSON with line and column, the schema with the key's position).
// Commands that only read the config (every `envelope create`) call readConfigFile, which reads the
// same file through the same decoder without loading conf, which brings ajv with it and costs more
// to load than the rest of a create's start-up. A file that cannot be read as esign's config is
// reported with its path and never replaced.
import { chmodSync, closeSync, constants, mkdirSync, statSync } from 'node:fs';
import * as z from 'zod/mini';
import { ConfigFileError } from '../errors.js';
import { describeReadError, isDiskFull } from '../fs/files.js';
import {
  MAX_SETTINGS_BYTES,
  NotRegularFileError,
  openRegularFileSync,
  readRegularFileSync,
} from '../fs/regular-file.js';
import { describeIssue, issuePath } from '../text/issues.js';
import { locate, readBoundedJson } from '../text/json.js';
import { escapeControl } from '../text/terminal-text.js';
import { CONFIG_FILE_NAME, configFilePath } from './paths.js';

export const Profile = z.looseObject({
  base_url: z.optional(z.string()),
  token: z.optional(z.string()),
  /** When `esign login` stored the token (ISO 8601), for its age in `status` and the reminder to rotate it. */
  token_stored_at: z.optional(z.string()),
  /** A command that prints the token (`esign login --token-command`), run when a command needs it; never with `token`. */
  token_command: z.optional(z.string()),
});
export type Profile = z.infer<typeof Profile>;

export const ConfigFile = z.looseObject({
  /** The profile `esign profile use` made the default, below --profile, ESIGN_PROFILE and the project file. */
  default_profile: z.optional(z.string()),
  /** Preferences of the person, for every profile (src/config/preferences.ts). */
  accessible: z.optional(z.boolean()),
  token_age_reminder: z.optional(z.boolean()),
  profiles: z.optional(z.record(z.string(), Profile)),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

/** Far deeper than esign's config (profiles.<name>.<key>) nests, and well within what is safe to walk. */
const MAX_CONFIG_DEPTH = 64;

const FIX_HINT = 'Fix the file by hand, or move it away to start afresh. esign never overwrites it.';

/**
 * The text of the config file at `path` as esign's config. An empty or whitespace-only file is an
 * empty config; a byte-order mark (PowerShell 5 writes one) is fine. A problem names the file, a
 * line and a column, and says what to do.
 */
function parseConfigText(text: string, path: string): ConfigFile {
  if (text.trim() === '') return {}; // trim() removes a byte-order mark too
  // A file nested deeper than any config is refused before anything recursive (a key's position) meets it.
  const read = readBoundedJson(text, MAX_CONFIG_DEPTH);
  if (read.ok === false) {
    const { deep } = read;
    throw new ConfigFileError(
      deep
        ? `${path}:${deep.line}:${deep.column}: the config file nests objects or arrays more than ${MAX_CONFIG_DEPTH} levels deep; it is not an esign config.`
        : `${path}:${read.at.line}:${read.at.column}: the config file is not valid JSON: ${read.at.reason}.`,
      { hint: FIX_HINT },
    );
  }
  const parsed = ConfigFile.safeParse(read.value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  const at = locate(text, issue.path.map(String));
  // Keys are the file's text: escaped, so that a control character in one cannot act on the terminal.
  const where = issue.path.length > 0 ? `'${escapeControl(issuePath(issue))}'` : 'the top level';
  throw new ConfigFileError(
    `${path}:${at.line}:${at.column}: the config file is not an esign config: ${where} ${describeIssue(issue, read.value)}.`,
    { hint: FIX_HINT },
  );
}

function cannotRead(path: string, error: unknown): ConfigFileError {
  return new ConfigFileError(`Cannot read the config file ${path}: ${(error as Error).message}`, {
    hint: 'Check the permissions of the file and its folder.',
    cause: error,
  });
}

/** The config in `dir`, for commands that only read it; an absent file is an empty config. */
export function readConfigFile(dir: string): ConfigFile {
  const path = configFilePath(dir);
  let text: string;
  try {
    // A regular file of a sane size, decided at the open: a named pipe is refused, never waited on.
    text = readRegularFileSync(path, MAX_SETTINGS_BYTES).text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    if (error instanceof NotRegularFileError) throw error;
    throw cannotRead(path, error);
  }
  return parseConfigText(text, path);
}

/** How long a write waits for another esign process that is writing the config. */
export const CONFIG_LOCK_WAIT_MS = 10_000;

/**
 * Reads the config through conf (refusing a broken file), applies `change` and writes it back
 * through conf, all under the lock `config.json.lock` beside the file: a concurrent writer is
 * waited for (up to CONFIG_LOCK_WAIT_MS), never overwritten. A folder that does not exist is
 * created 0700; an existing one keeps its mode (a shared 1777 folder keeps its sticky bit).
 */
export async function updateConfigFile(
  dir: string,
  change: (config: ConfigFile) => void,
): Promise<ConfigFile> {
  const path = configFilePath(dir);
  const lockPath = `${path}.lock`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigFileError(`Cannot create the config folder ${dir}: ${(error as Error).message}`, {
      hint: 'Check the permissions of its parent folder, or set ESIGN_CONFIG_DIR to a writable folder.',
      cause: error,
    });
  }
  // Loaded here, to change the file: every command reads the config, few change it (conf, and the
  // lock with node:crypto and node:fs/promises).
  const [{ default: Conf }, { acquireLock, busyLockAdvice, heldWhere, releaseLock }] = await Promise.all([
    import('conf'),
    import('../fs/lock.js'),
  ]);
  await acquireLock(
    lockPath,
    {
      busy: (owner) =>
        new ConfigFileError(
          `The config file ${path} is being changed by another esign process (${owner.pid})${heldWhere(owner)}; nothing was changed.`,
          { hint: `Try again in a moment. ${busyLockAdvice(lockPath)}` },
        ),
      failed: (error) =>
        new ConfigFileError(
          `Cannot create ${lockPath} to change the config file: ${describeReadError(error)}.`,
          {
            hint: isDiskFull(error)
              ? 'Free some space on the disk that holds the config folder, or set ESIGN_CONFIG_DIR to a folder on another disk.'
              : 'Check the permissions of the config folder.',
            cause: error,
          },
        ),
    },
    { waitMs: CONFIG_LOCK_WAIT_MS },
  );
  try {
    // conf reads the file by its name: it is made sure of first, under the lock. In a shared folder
    // (sticky, as /tmp) a file that is the user's (created here when missing) cannot be swapped by
    // others afterwards; anything else there is refused at this open.
    const { fd } = openRegularFileSync(path, constants.O_RDONLY | constants.O_CREAT, {
      mode: 0o600,
      maxBytes: MAX_SETTINGS_BYTES,
    });
    closeSync(fd);
    const store = openStore(Conf, dir, path);
    const config = store.store;
    change(config);
    store.store = config;
    chmodSync(store.path, 0o600);
    return config;
  } finally {
    await releaseLock(lockPath);
  }
}

type ConfClass = typeof import('conf').default;

/** conf over `dir`/config.json, reading through parseConfigText; a read error is a ConfigFileError. */
function openStore(Conf: ConfClass, dir: string, path: string) {
  try {
    return new Conf<ConfigFile>({
      projectName: 'esign',
      projectSuffix: '',
      cwd: dir,
      configName: CONFIG_FILE_NAME.replace(/\.json$/, ''),
      configFileMode: 0o600,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
      deserialize: (text: string) => parseConfigText(text, path),
    });
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    throw cannotRead(path, error);
  }
}

/**
 * A one-line warning when the config file (which holds tokens) can be read by group or others, or
 * undefined. Never throws: a missing file or a platform without POSIX modes gives undefined.
 */
/** Prints configPermissionWarning, if any, on stderr (under --json, main holds it for the error object). */
export function warnIfReadableByOthers(dir: string, ctx: { stderr: { write(text: string): unknown } }): void {
  const warning = configPermissionWarning(dir);
  if (warning) ctx.stderr.write(`${warning}\n`);
}

export function configPermissionWarning(dir: string, platform: NodeJS.Platform = process.platform) {
  if (platform === 'win32') return undefined;
  const path = configFilePath(dir);
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o044) === 0) return undefined;
    return `warning: the config file ${path} holds tokens and is readable by group or others (mode ${mode.toString(8).padStart(4, '0')}); run: chmod 600 ${path}`;
  } catch {
    return undefined;
  }
}

// Profiles are looked up as own keys only: a profile named `constructor` or `toString` is a profile
// like any other, never Object.prototype's function of that name.
export function getProfile(config: ConfigFile, name: string): Profile | undefined {
  const profiles = config.profiles;
  return profiles && Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

/** The names of the stored profiles, in the config's order. */
export function profileNames(config: ConfigFile): string[] {
  return Object.keys(config.profiles ?? {});
}

/** Returns the named profile, creating it in the config. */
export function ensureProfile(config: ConfigFile, name: string): Profile {
  config.profiles ??= {};
  const existing = getProfile(config, name);
  if (existing) return existing;
  const created: Profile = {};
  config.profiles[name] = created;
  return created;
}

/** Drops profiles left with no settings, so logout leaves no empty shells behind. */
export function pruneProfile(config: ConfigFile, name: string): void {
  const profile = getProfile(config, name);
  if (profile && Object.keys(profile).length === 0 && config.profiles) delete config.profiles[name];
}

/** Removes a profile and everything stored in it; false when there was none. */
export function deleteProfile(config: ConfigFile, name: string): boolean {
  if (!getProfile(config, name) || !config.profiles) return false;
  delete config.profiles[name];
  return true;
}
