// esign config get|set|unset|list: per-profile settings. The token is not one of them: it is a
// secret, stored only by `esign login`.
import type { CommandInput } from '../cli.js';
import { configDir } from '../config/paths.js';
import { maskToken, normalizeBaseUrl, resolveProfileName } from '../config/settings.js';
import {
  ensureProfile,
  getProfile,
  pruneProfile,
  readConfigFile,
  updateConfigFile,
} from '../config/store.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import type { CommonOptions } from './settings.js';

const KEYS = ['base_url'] as const;
type Key = (typeof KEYS)[number];

function checkKey(key: string): Key {
  if ((KEYS as readonly string[]).includes(key)) return key as Key;
  if (key === 'token') {
    throw new UsageError('The token is not set with `esign config`.', {
      hint: 'Run `esign login` (or `esign login --with-token` in scripts); tokens never go on the command line.',
    });
  }
  throw new UsageError(`Unknown setting '${key}'.`, { hint: `Settings: ${KEYS.join(', ')}.` });
}

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const options = input.options as CommonOptions & { json?: boolean };
  const profile = resolveProfileName(options, ctx.env).value;
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  const [rawKey = '', value = ''] = input.args;

  switch (input.command.name()) {
    case 'get': {
      const key = checkKey(rawKey);
      const stored = getProfile(readConfigFile(dir), profile)?.[key];
      if (stored === undefined) ctx.stderr.write(`${key} is not set for profile '${profile}'.\n`);
      else ctx.stdout.write(`${stored}\n`);
      return ExitCode.ok;
    }
    case 'set': {
      const key = checkKey(rawKey);
      const normalized = normalizeBaseUrl(value, `base_url '${value}'`);
      await updateConfigFile(dir, (config) => {
        ensureProfile(config, profile)[key] = normalized;
      });
      ctx.stderr.write(`Set ${key} for profile '${profile}' to ${normalized}\n`);
      return ExitCode.ok;
    }
    case 'unset': {
      const key = checkKey(rawKey);
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
    }
    default: {
      const config = readConfigFile(dir);
      const entry = getProfile(config, profile) ?? {};
      const listing = {
        profile,
        base_url: entry.base_url ?? null,
        token: entry.token ? maskToken(entry.token) : null,
        profiles: Object.keys(config.profiles ?? {}),
      };
      if (options.json) ctx.stdout.write(`${JSON.stringify(listing)}\n`);
      else {
        ctx.stdout.write(
          `profile=${listing.profile}\nbase_url=${listing.base_url ?? ''}\ntoken=${listing.token ?? ''}\nprofiles=${listing.profiles.join(',')}\n`,
        );
      }
      return ExitCode.ok;
    }
  }
}
