// esign logout: forget a profile's token. The token stays valid on the server until it is revoked.
import { storedProfileToChange } from '../config/connect.js';
import { configDir, configFilePath } from '../config/paths.js';
import { tokenVariablesSet } from '../config/settings.js';
import { getProfile, pruneProfile, readConfigFile, updateConfigFile } from '../config/store.js';
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { connectionOf } from '../options.js';
import type { GlobalOptions } from './global-flags.js';

/** Said whenever a stored token is forgotten (logout, profile delete). */
export const TOKEN_STAYS_VALID =
  'note: the token stays valid on the server until you revoke it in the dashboard (Settings → API Tokens).\n';

export async function run(options: GlobalOptions, ctx: Context): Promise<number> {
  const profile = profileToForget(options, ctx);
  if (profile === undefined) return ExitCode.ok;
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  const stored = getProfile(readConfigFile(dir), profile);
  if (stored?.token === undefined && stored?.token_command === undefined) {
    ctx.stderr.write(`No token is stored for profile '${profile}'; nothing to do.\n`);
  } else {
    await updateConfigFile(dir, (config) => {
      const entry = getProfile(config, profile);
      if (entry) {
        delete entry.token;
        delete entry.token_stored_at;
        delete entry.token_command;
      }
      pruneProfile(config, profile);
    });
    const what = stored.token === undefined ? 'token command' : 'token';
    ctx.stderr.write(`Removed the ${what} of profile '${profile}' from ${configFilePath(dir)}.\n`);
    ctx.stderr.write(TOKEN_STAYS_VALID);
  }
  for (const variable of tokenVariablesSet(ctx.env)) {
    ctx.stderr.write(`note: ${variable} is still set in this environment and will be used.\n`);
  }
  return ExitCode.ok;
}

/**
 * The profile whose token goes. One that is not stored while others are is told as every command
 * tells it ("did you mean"), but as a warning: the contract makes logout exit 0 whenever there was
 * no token to remove, so that a cleanup step in a script never fails for it. Undefined: nothing to do.
 */
function profileToForget(options: GlobalOptions, ctx: Context): string | undefined {
  try {
    return storedProfileToChange(connectionOf(options), ctx);
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'usage' || !/does not exist/.test(error.message))
      throw error;
    ctx.stderr.write(`warning: ${error.message} Nothing was removed.\n`);
    if (error.hint) ctx.stderr.write(`hint: ${error.hint}\n`);
    return undefined;
  }
}
