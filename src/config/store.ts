// The config file: profiles by name, each with an optional base URL and token. Reads go straight to
// the file (a hot path: every `envelope create` reads it, and conf costs ~25 ms to load); writes go
// through conf, which writes atomically with mode 0600. A file that cannot be read as esign's config
// is reported with its path and never replaced.
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { ConfigFileError } from '../errors.js';
import { describeJsonSyntaxError } from '../io/json.js';
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

/** Reads the config (refusing a broken file), applies `change` and writes it back through conf. */
export async function updateConfigFile(
  dir: string,
  change: (config: ConfigFile) => void,
): Promise<ConfigFile> {
  const config = readConfigFile(dir);
  change(config);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const { default: Conf } = await import('conf');
  const store = new Conf<ConfigFile>({
    projectName: 'esign',
    projectSuffix: '',
    cwd: dir,
    configName: CONFIG_FILE_NAME.replace(/\.json$/, ''),
    configFileMode: 0o600,
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
  });
  store.store = config;
  chmodSync(store.path, 0o600);
  return config;
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
