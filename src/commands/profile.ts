// esign profile list|delete: the stored profiles, and removing one with everything in it (its base
// URL and token). `login` and `config set` create profiles; `logout` forgets only a token.
import type { CommandModule } from '../command-types.js';
import { profileToChange } from '../config/connect.js';
import { configDir, configFilePath } from '../config/paths.js';
import { DEFAULT_PROFILE, maskToken } from '../config/settings.js';
import {
  deleteProfile,
  getProfile,
  profileNames,
  readConfigFile,
  updateConfigFile,
  warnIfReadableByOthers,
} from '../config/store.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { connectionOf } from '../options.js';
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';
import type { profileDelete, profileList } from './config.decl.js';
import type { Options } from './global-flags.js';
import { TOKEN_STAYS_VALID } from './logout.js';

/** `esign profile list`: every stored profile, its base URL and token (masked); the active one marked. */
export const list: CommandModule<Options<typeof profileList>> = {
  async run(options, ctx) {
    const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
    const active = profileToChange(connectionOf(options), ctx);
    warnIfReadableByOthers(dir, ctx);
    const config = readConfigFile(dir);
    const profiles = profileNames(config).map((name) => {
      const entry = getProfile(config, name) ?? {};
      return {
        name,
        active: name === active,
        base_url: entry.base_url ?? null,
        token: entry.token ? maskToken(entry.token) : null,
        token_command: entry.token_command ?? null,
      };
    });
    if (options.json) {
      ctx.stdout.write(`${JSON.stringify({ active, config_file: configFilePath(dir), profiles })}\n`);
      return ExitCode.ok;
    }
    if (profiles.length === 0) {
      ctx.stderr.write(`No profiles are stored in ${configFilePath(dir)}; \`esign login\` creates one.\n`);
      return ExitCode.ok;
    }
    const width = Math.max(...profiles.map((profile) => profile.name.length));
    for (const profile of profiles) {
      const token = profile.token
        ? `token ${profile.token}`
        : profile.token_command
          ? `token command ${escapeControl(profile.token_command)}`
          : 'no token';
      ctx.stdout.write(
        `${profile.active ? '*' : ' '} ${profile.name.padEnd(width)}  ${profile.base_url ?? '(no base URL)'}  ${token}\n`,
      );
    }
    return ExitCode.ok;
  },
};

/** The options of the commands that name a stored profile (delete, use). */
type NameOptions = Options<typeof profileDelete>;

/** `esign profile delete <name>`: the profile and all it holds; exit 2 when there is no such profile. */
export const remove: CommandModule<NameOptions> = {
  async run(options, ctx) {
    const { dir, path, known } = storedProfiles(ctx);
    const missing = { known, path, unchanged: 'nothing was deleted' };
    if (!known.includes(options.name)) throw noSuchProfile(options.name, missing);
    let token: string | undefined;
    let deleted = false;
    await updateConfigFile(dir, (config) => {
      token = getProfile(config, options.name)?.token;
      deleted = deleteProfile(config, options.name);
      // The default `esign profile use` chose goes with it.
      if (deleted && config.default_profile === options.name) delete config.default_profile;
    });
    // Another esign may have deleted it between the read and the lock.
    if (!deleted) throw noSuchProfile(options.name, missing);
    if (token) ctx.addSecret(token);
    ctx.stderr.write(`Deleted profile '${options.name}' (its base URL and token) from ${path}.\n`);
    if (token) ctx.stderr.write(TOKEN_STAYS_VALID);
    return ExitCode.ok;
  },
};

/**
 * `esign profile use <name>`: the stored profile commands use when neither --profile, ESIGN_PROFILE
 * nor the project file names one (`default_profile` in the config file). `default` goes back to
 * the profile named default.
 */
export const use: CommandModule<NameOptions> = {
  async run(options, ctx) {
    const { dir, known, path } = storedProfiles(ctx);
    const back = options.name === DEFAULT_PROFILE;
    if (!back && !known.includes(options.name)) {
      throw noSuchProfile(options.name, { known, path, unchanged: 'the default is unchanged' });
    }
    await updateConfigFile(dir, (config) => {
      if (back) delete config.default_profile;
      else config.default_profile = options.name;
    });
    ctx.stderr.write(
      `Commands now use profile '${options.name}' unless --profile, ESIGN_PROFILE or a project file's "profile" names another${back ? '' : ` (\`esign profile use ${DEFAULT_PROFILE}\` goes back)`}.\n`,
    );
    if (ctx.env.ESIGN_PROFILE) {
      ctx.stderr.write(
        `note: ESIGN_PROFILE (${ctx.env.ESIGN_PROFILE}) is set in this environment and wins over it.\n`,
      );
    }
    return ExitCode.ok;
  },
};

/** The config folder, its file, and the profiles stored there. */
function storedProfiles(ctx: Context): { dir: string; path: string; known: string[] } {
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  return { dir, path: configFilePath(dir), known: profileNames(readConfigFile(dir)) };
}

/** A profile that is not stored; `unchanged` says what that left as it was. */
function noSuchProfile(
  name: string,
  { known, path, unchanged }: { known: string[]; path: string; unchanged: string },
): UsageError {
  return new UsageError(`Profile '${name}' does not exist; ${unchanged}.${didYouMean(name, known)}`, {
    hint:
      known.length === 0
        ? `No profiles are stored in ${path}; \`esign login --profile ${name}\` creates one.`
        : `Profiles in ${path}: ${[...known].sort().join(', ')}. See them with \`esign profile list\`.`,
  });
}
