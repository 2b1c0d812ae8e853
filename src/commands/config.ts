// esign config get|set|unset|list: per-profile settings (base_url), and the person's preferences
// kept for every profile (accessible, token_age_reminder). The token is not one of them: it is a
// secret, stored only by `esign login`.
import type { CommandModule } from '../command-types.js';
import { profileToChange, storedProfileToChange } from '../config/connect.js';
import { configDir } from '../config/paths.js';
import {
  PREFERENCE_DEFAULTS,
  PREFERENCE_KEYS,
  type PreferenceKey,
  preferenceValue,
} from '../config/preferences.js';
import { baseUrlWarning, maskToken, normalizeBaseUrl } from '../config/settings.js';
import {
  ensureProfile,
  getProfile,
  profileNames,
  pruneProfile,
  readConfigFile,
  updateConfigFile,
  warnIfReadableByOthers,
} from '../config/store.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { connectionOf } from '../options.js';
import { didYouMean } from '../text/suggest.js';
import {
  type configGet,
  type configList,
  type configSet,
  type PROFILE_KEYS,
  SETTING_KEYS,
} from './config.decl.js';
import type { GlobalOptions, Options } from './global-flags.js';

type ProfileKey = (typeof PROFILE_KEYS)[number];
/** Every key `esign config` knows: a profile's settings, then the preferences kept for every profile. */
const KEYS = SETTING_KEYS;
type Key = (typeof KEYS)[number];

const isPreference = (key: Key): key is PreferenceKey => (PREFERENCE_KEYS as readonly string[]).includes(key);

function checkKey(key: string): Key {
  if ((KEYS as readonly string[]).includes(key)) return key as Key;
  if (key === 'token') {
    throw new UsageError('The token is not set with `esign config`.', {
      hint: 'Run `esign login` (or `esign login --with-token` in scripts); tokens never go on the command line.',
    });
  }
  throw new UsageError(`Unknown setting '${key}'.${didYouMean(key, [...KEYS])}`, {
    hint: `Settings: ${KEYS.join(', ')}.`,
  });
}

type KeyOption = Options<typeof configGet>;

/**
 * The profile a config command works on, and the folder of the config file. `set` may name a new
 * profile (it creates it); the others work on a stored one, and a typo is told with "did you mean".
 */
function target(options: GlobalOptions, ctx: Context, creates = false): { profile: string; dir: string } {
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  return {
    profile: creates
      ? profileToChange(connectionOf(options), ctx)
      : storedProfileToChange(connectionOf(options), ctx),
    dir,
  };
}

/** `esign config get <key>`: the value on stdout; exit 1 when it is not set (as `git config` does). */
export const get: CommandModule<KeyOption> = {
  async run(options, ctx) {
    const key = checkKey(options.key);
    if (isPreference(key)) return getPreference(key, ctx);
    const { profile, dir } = target(options, ctx);
    warnIfReadableByOthers(dir, ctx);
    const stored = getProfile(readConfigFile(dir), profile)?.[key satisfies ProfileKey];
    if (stored === undefined) {
      ctx.stderr.write(`${key} is not set for profile '${profile}'.\n`);
      return ExitCode.internal;
    }
    ctx.stdout.write(`${stored}\n`);
    return ExitCode.ok;
  },
};

export const set: CommandModule<Options<typeof configSet>> = {
  async run(options, ctx) {
    const key = checkKey(options.key);
    if (isPreference(key)) return setPreference(key, options.value, ctx);
    const { profile, dir } = target(options, ctx, true);
    const normalized = normalizeBaseUrl(options.value, `base_url '${options.value}'`);
    await updateConfigFile(dir, (config) => {
      ensureProfile(config, profile)[key] = normalized;
    });
    ctx.stderr.write(`Set ${key} for profile '${profile}' to ${normalized}\n`);
    const warning = baseUrlWarning(normalized);
    if (warning) ctx.stderr.write(`warning: ${warning}\n`);
    return ExitCode.ok;
  },
};

export const unset: CommandModule<KeyOption> = {
  async run(options, ctx) {
    const key = checkKey(options.key);
    if (isPreference(key)) return unsetPreference(key, ctx);
    const { profile, dir } = target(options, ctx);
    if (getProfile(readConfigFile(dir), profile)?.[key] === undefined) {
      ctx.stderr.write(`${key} was not set for profile '${profile}'.\n`);
      return ExitCode.ok;
    }
    await updateConfigFile(dir, (config) => {
      const entry = getProfile(config, profile);
      if (entry) delete entry[key];
      pruneProfile(config, profile);
    });
    ctx.stderr.write(`Removed ${key} from profile '${profile}'.\n`);
    return ExitCode.ok;
  },
};

export const list: CommandModule<Options<typeof configList>> = {
  async run(options, ctx) {
    const { profile, dir } = target(options, ctx);
    warnIfReadableByOthers(dir, ctx);
    const config = readConfigFile(dir);
    const entry = getProfile(config, profile) ?? {};
    // A preference not set is listed with the value it has, its default, and marked so.
    const defaulted = PREFERENCE_KEYS.filter((key) => config[key] === undefined);
    const listing = {
      profile,
      base_url: entry.base_url ?? null,
      token: entry.token ? maskToken(entry.token) : null,
      profiles: profileNames(config),
      accessible: config.accessible ?? PREFERENCE_DEFAULTS.accessible,
      token_age_reminder: config.token_age_reminder ?? PREFERENCE_DEFAULTS.token_age_reminder,
      defaults: defaulted,
    };
    if (options.json) ctx.stdout.write(`${JSON.stringify(listing)}\n`);
    else {
      const preference = (key: PreferenceKey) =>
        `${key}=${listing[key]}${defaulted.includes(key) ? ' (default)' : ''}\n`;
      ctx.stdout.write(
        `profile=${listing.profile}\nbase_url=${listing.base_url ?? ''}\ntoken=${listing.token ?? ''}\nprofiles=${listing.profiles.join(',')}\n` +
          PREFERENCE_KEYS.map(preference).join(''),
      );
    }
    return ExitCode.ok;
  },
};

/** `config get <preference>`: true or false on stdout; exit 1 when it is not set. */
function getPreference(key: PreferenceKey, ctx: Context): number {
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  const value = readConfigFile(dir)[key];
  if (value === undefined) {
    ctx.stderr.write(`${key} is not set (it applies to every profile).\n`);
    return ExitCode.internal;
  }
  ctx.stdout.write(`${value}\n`);
  return ExitCode.ok;
}

async function setPreference(key: PreferenceKey, text: string, ctx: Context): Promise<number> {
  const value = preferenceValue(text);
  if (value === undefined) {
    throw new UsageError(`${key}: '${text}' is not true or false.`, {
      hint: `Give true or false (on/off, yes/no and 1/0 work too), e.g. esign config set ${key} true.`,
    });
  }
  await updateConfigFile(configDir(ctx.env, ctx.platform, ctx.homedir), (config) => {
    config[key] = value;
  });
  ctx.stderr.write(`Set ${key} to ${value} (for every profile).\n`);
  return ExitCode.ok;
}

async function unsetPreference(key: PreferenceKey, ctx: Context): Promise<number> {
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  if (readConfigFile(dir)[key] === undefined) {
    ctx.stderr.write(`${key} was not set.\n`);
    return ExitCode.ok;
  }
  await updateConfigFile(dir, (config) => {
    delete config[key];
  });
  ctx.stderr.write(`Removed ${key} (its default applies again).\n`);
  return ExitCode.ok;
}
