// esign login: store a token (and the base URL, when given) in a profile. Nothing is sent.
import { profileToChange } from '../config/connect.js';
import { configDir, configFilePath } from '../config/paths.js';
import {
  baseUrlWarning,
  maskToken,
  normalizeBaseUrl,
  profileFlag,
  tokenProblem,
  tokenVariablesSet,
} from '../config/settings.js';
import { type ConfigFile, ensureProfile, getProfile, updateConfigFile } from '../config/store.js';
import type { Context } from '../context.js';
import { ExitCode, UsageError } from '../errors.js';
import { drawable, themeFor } from '../io/theme.js';
import { connectionOf } from '../options.js';
import { escapeControl } from '../text/terminal-text.js';
import type { login } from './account.decl.js';
import type { Options } from './global-flags.js';

const WHERE_TOKENS_ARE_MADE = 'Create a token in the dashboard: Settings → API Tokens → Create New Token.';

/** Trims the trailing newline of piped input; any other whitespace makes the token invalid. */
export function checkToken(raw: string): string {
  const token = raw.replace(/\r?\n$/, '');
  if (token === '') {
    throw new UsageError('The token is empty; nothing was stored.', { hint: WHERE_TOKENS_ARE_MADE });
  }
  if (/\s/.test(token)) {
    throw new UsageError('The token contains whitespace; nothing was stored.', {
      hint: 'Paste the token exactly as the dashboard showed it, on one line.',
    });
  }
  // It goes in an Authorization header: only visible ASCII can be sent as it is.
  const bad = /[^\x21-\x7e]/u.exec(token);
  if (bad) {
    const code = (bad[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
    const what = /[\p{Cc}]/u.test(bad[0]) ? 'a control character' : 'a character outside visible ASCII';
    throw new UsageError(
      `The token contains ${what} (U+${code} at position ${bad.index + 1}) and cannot be sent; nothing was stored.`,
      { hint: 'Paste the token exactly as the dashboard showed it; tokens are plain ASCII.' },
    );
  }
  const problem = tokenProblem(token);
  if (problem) {
    throw new UsageError(`The token ${problem}; nothing was stored.`, {
      hint: `Paste the whole token the dashboard showed. ${WHERE_TOKENS_ARE_MADE}`,
    });
  }
  return token;
}

/** What logging in again did to the token stored before: the user learns it was replaced, and which one. */
export function replacedNotice(profile: string, before: string, after: string): string {
  if (before === after) return `note: profile '${profile}' already had this token.`;
  return `note: this replaced the token stored before for profile '${profile}' (${maskToken(before)}).`;
}

type LoginOptions = Options<typeof login>;

/** The token as typed at a hidden prompt or piped in with --with-token (not yet checked). */
async function readToken(options: LoginOptions, ctx: Context, profile: string): Promise<string> {
  if (options.withToken) {
    if (ctx.stdin.isTTY) ctx.stderr.write('Paste the token, then press Enter and Ctrl-D:\n');
    return ctx.stdin.readAll();
  }
  if (ctx.stdin.isTTY && ctx.stderr.isTTY) {
    ctx.stderr.write(`${WHERE_TOKENS_ARE_MADE}\n`);
    return ctx.promptSecret(`Paste your API token for profile '${profile}' (input is hidden): `);
  }
  throw new UsageError('No terminal to ask for the token on.', {
    hint: 'Pipe the token in with --with-token, e.g. printf %s "$ESIGN_TOKEN_SECRET" | esign login --with-token',
  });
}

export async function run(options: LoginOptions, ctx: Context): Promise<number> {
  if (options.token !== undefined) {
    if (typeof options.token === 'string') ctx.addSecret(options.token);
    throw new UsageError('esign never takes a token as a flag; nothing was stored.', {
      hint: 'A flag shows up in `ps` and in your shell history. Run `esign login` to paste it at a hidden prompt, or pipe it in: printf %s "$ESIGN_TOKEN_SECRET" | esign login --with-token',
    });
  }
  // Reads the config: a broken config file is reported before the user types a secret.
  const profile = profileToChange(connectionOf(options), ctx);
  const baseUrl = options.baseUrl === undefined ? undefined : normalizeBaseUrl(options.baseUrl, '--base-url');
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  if (options.tokenCommand !== undefined) return storeTokenCommand(options, { profile, baseUrl, dir }, ctx);

  const token = checkToken(await readToken(options, ctx, profile));
  ctx.addSecret(token);

  let replaced: string | undefined;
  let commandReplaced: string | undefined;
  const config = await updateConfigFile(dir, (config) => {
    const entry = ensureProfile(config, profile);
    replaced = entry.token;
    commandReplaced = entry.token_command;
    entry.token = token;
    // When it was stored, for its age in `esign status` and the reminder to rotate it.
    entry.token_stored_at = ctx.now().toISOString();
    // A profile holds a token or a token command, never both.
    delete entry.token_command;
    if (baseUrl) entry.base_url = baseUrl;
  });
  if (replaced) ctx.addSecret(replaced);

  ctx.stderr.write(
    `${await doneMark(ctx)}Token stored for profile '${profile}' in ${configFilePath(dir)} (readable only by you).\n`,
  );
  if (replaced !== undefined) ctx.stderr.write(`${replacedNotice(profile, replaced, token)}\n`);
  if (commandReplaced !== undefined) {
    ctx.stderr.write(
      `note: this replaced the token command of profile '${profile}' (${escapeControl(commandReplaced)}).\n`,
    );
  }
  // The API has one call, and it creates an envelope: there is nothing to check a token with that
  // creates nothing, so login says plainly that it did not check it.
  ctx.stderr.write(
    `note: the token was not checked (the API has no call that checks a token without creating something); the first command that sends will say if it is refused (exit 3).\n`,
  );
  await afterStoring(profile, { baseUrl, config }, ctx);
  return ExitCode.ok;
}

/** `✓ ` in green before what was stored, at a terminal; in accessible mode it goes (io/terminal.ts): the words say it. */
async function doneMark(ctx: Context): Promise<string> {
  const check = drawable(ctx.terminal, '✓ ').trim();
  return ctx.terminal.stderrIsTTY && check ? `${(await themeFor(ctx.terminal, 'stderr')).green(check)} ` : '';
}

/** What every login says after storing: the base URL, what is still missing, what overrides it. */
async function afterStoring(
  profile: string,
  { baseUrl, config }: { baseUrl: string | undefined; config: ConfigFile },
  ctx: Context,
): Promise<void> {
  if (baseUrl) {
    ctx.stderr.write(`${await doneMark(ctx)}Base URL for profile '${profile}': ${baseUrl}\n`);
    const warning = baseUrlWarning(baseUrl);
    if (warning) ctx.stderr.write(`warning: ${warning}\n`);
  }
  if (!getProfile(config, profile)?.base_url && !ctx.env.ESIGN_BASE_URL) {
    ctx.stderr.write(
      `hint: no base URL is set yet: esign config set base_url https://…/api/v1${profileFlag(profile)}\n`,
    );
  }
  for (const variable of tokenVariablesSet(ctx.env)) {
    ctx.stderr.write(
      `note: ${variable} is set in this environment and takes precedence over what is stored.\n`,
    );
  }
}

/**
 * `esign login --token-command '<command>'`: the profile names a command that prints the token,
 * instead of holding the token. Nothing is run now (it may ask for a password or a fingerprint); the
 * first command that needs the token runs it.
 */
async function storeTokenCommand(
  options: LoginOptions,
  target: { profile: string; baseUrl: string | undefined; dir: string },
  ctx: Context,
): Promise<number> {
  const command = options.tokenCommand?.trim() ?? '';
  if (options.withToken) {
    throw new UsageError('--token-command and --with-token do not go together; nothing was stored.', {
      hint: 'Store a token (--with-token) or the command that prints it (--token-command), not both.',
    });
  }
  if (command === '' || /[\r\n]/.test(command)) {
    throw new UsageError('--token-command needs a command on one line; nothing was stored.', {
      hint: "For example: esign login --token-command 'op read op://Private/esign/token'",
    });
  }
  const { profile, baseUrl, dir } = target;
  let replaced: string | undefined;
  const config = await updateConfigFile(dir, (config) => {
    const entry = ensureProfile(config, profile);
    replaced = entry.token;
    entry.token_command = command;
    delete entry.token;
    delete entry.token_stored_at;
    if (baseUrl) entry.base_url = baseUrl;
  });
  if (replaced) ctx.addSecret(replaced);
  ctx.stderr.write(
    `Token command stored for profile '${profile}' in ${configFilePath(dir)}: ${escapeControl(command)}\n` +
      'note: it was not run now; a command that needs the token runs it (and once more after a 401) and reads the first line it prints. The token is never stored.\n',
  );
  if (replaced !== undefined) {
    ctx.stderr.write(
      `note: this removed the token stored before for profile '${profile}' (${maskToken(replaced)}).\n`,
    );
  }
  await afterStoring(profile, { baseUrl, config }, ctx);
  return ExitCode.ok;
}
