// The config file: profiles by name, each with an optional base URL and token. Reads go straight to
// the file (a hot path: every `envelope create` reads it, and conf costs ~25 ms to load); writes go
// through conf, which writes atomically with mode 0600, under a lock beside the file so that
// concurrent writers (two `login`s at once) never lose each other's profiles. A file that cannot be
// read as esign's config is reported with its path and never replaced.
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import * as z from 'zod/mini';
import { ConfigFileError } from '../errors.js';
import { describeJsonSyntaxError } from '../io/json.js';
import { acquireLock, releaseLock } from '../io/lock.js';
import { CONFIG_FILE_NAME, configFilePath } from './paths.js';

export const Profile = z.looseObject({
  base_url: z.optional(z.string()),
  token: z.optional(z.string()),
});
export type Profile = z.infer<typeof Profile>;

export const ConfigFile = z.looseObject({
  profiles: z.optional(z.record(z.string(), Profile)),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

export function readConfigFile(dir: string): ConfigFile {
  const path = configFilePath(dir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(`Cannot read the config file ${path}: ${(error as Error).message}`, {
      hint: 'Check the permissions of the file and its folder.',
      cause: error,
    });
  }
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(
      `The config file ${path} is not valid JSON: ${describeJsonSyntaxError(error, text)}.`,
      {
        hint: 'Fix the file by hand, or move it away to start afresh. esign never overwrites it.',
        cause: error,
      },
    );
  }
  const parsed = ConfigFile.safeParse(data);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.map(String).join('.') || '(top level)';
    throw new ConfigFileError(
      `The config file ${path} is not an esign config: unexpected value at ${where}.`,
      {
        hint: 'Fix the file by hand, or move it away to start afresh. esign never overwrites it.',
      },
    );
  }
  return parsed.data;
}

/** How long a write waits for another esign process that is writing the config. */
export const CONFIG_LOCK_WAIT_MS = 10_000;

/**
 * Reads the config (refusing a broken file), applies `change` and writes it back through conf, all
 * under the lock `config.json.lock` beside the file: a concurrent writer is waited for (up to
 * CONFIG_LOCK_WAIT_MS), never overwritten. A folder that does not exist is created 0700; an
 * existing one keeps its mode (a shared 1777 folder keeps its sticky bit).
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
  const { default: Conf } = await import('conf');
  await acquireLock(
    lockPath,
    {
      busy: (owner) =>
        new ConfigFileError(
          `The config file ${path} is being changed by another esign process (${owner}); nothing was changed.`,
          { hint: `Try again. If no esign is running, remove ${lockPath}.` },
        ),
      failed: (error) =>
        new ConfigFileError(
          `Cannot create ${lockPath} to change the config file: ${(error as Error).message}`,
          {
            hint: 'Check the permissions of the config folder.',
            cause: error,
          },
        ),
    },
    { waitMs: CONFIG_LOCK_WAIT_MS },
  );
  try {
    const config = readConfigFile(dir);
    change(config);
    const store = new Conf<ConfigFile>({
      projectName: 'esign',
      projectSuffix: '',
      cwd: dir,
      configName: CONFIG_FILE_NAME.replace(/\.json$/, ''),
      configFileMode: 0o600,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
      // An empty or whitespace-only file is an empty config, as readConfigFile says.
      deserialize: (text: string) => (text.trim() === '' ? {} : JSON.parse(text)),
    });
    store.store = config;
    chmodSync(store.path, 0o600);
    return config;
  } finally {
    await releaseLock(lockPath);
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

export function getProfile(config: ConfigFile, name: string): Profile | undefined {
  return config.profiles?.[name];
}

/** Returns the named profile, creating it in the config. */
export function ensureProfile(config: ConfigFile, name: string): Profile {
  config.profiles ??= {};
  config.profiles[name] ??= {};
  return config.profiles[name] as Profile;
}

/** Drops profiles left with no settings, so logout leaves no empty shells behind. */
export function pruneProfile(config: ConfigFile, name: string): void {
  const profile = config.profiles?.[name];
  if (profile && Object.keys(profile).length === 0 && config.profiles) delete config.profiles[name];
}
