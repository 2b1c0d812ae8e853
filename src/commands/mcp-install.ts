// esign mcp install|uninstall <client>: registers `esign mcp` with Claude Code, Claude Desktop,
// Cursor or VS Code in the client's own config file (src/mcp/client-configs.ts says which, and what
// an entry looks like), or removes it. The file is edited in place with jsonc-parser: the other
// entries, comments, indentation and line ends stay as they were, and a run that changes nothing
// writes nothing. The file is changed as templates set changes the project file
// (src/project/write-project.ts): under its lock, atomically, through a symbolic link, and as root
// keeping its owner (and giving what it makes to the folder's owner). Before anything is written,
// the entry is started as the client will start it, and must answer `initialize`
// (src/mcp/entry-check.ts). The token is never written: the server reads the profile's stored
// token, or ESIGN_TOKEN from the environment the client starts it in.
import { existsSync, realpathSync } from 'node:fs';
import { applyEdits, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import type { CommandModule, FlagOptions } from '../command-types.js';
import { configDir, configFilePath } from '../config/paths.js';
import {
  baseUrlWarning,
  checkProfileExists,
  DEFAULT_PROFILE,
  holdsToken,
  isProfileName,
  normalizeBaseUrl,
  PROFILE_NAME_RULE,
  profileFlag,
  tokenVariablesSet,
} from '../config/settings.js';
import { type ConfigFile, getProfile, readConfigFile } from '../config/store.js';
import type { Context } from '../context.js';
import { CliError, ConfigFileError, ExitCode, UsageError } from '../errors.js';
import { MAX_SETTINGS_BYTES, NotRegularFileError, readRegularFileSync } from '../fs/regular-file.js';
import {
  type ClientLayout,
  clientEnvironment,
  type InstallScope,
  layoutOf,
  type Machine,
  type ServerLaunch,
} from '../mcp/client-configs.js';
import { thisEsign } from '../mcp/launch.js';
import { chooseTools } from '../mcp/tool-names.js';
import { changeFileLocked, formattingOf, REMOVE_FILE } from '../project/write-project.js';
import { describeAllowedDomain, parseAllowedDomain } from '../request/signatory-domains.js';
import { lineAndColumn, stripBom } from '../text/json.js';
import { isPlainObject } from '../text/plain-object.js';
import { shellQuote } from '../text/shell.js';
import { escapeControl } from '../text/terminal-text.js';
import type { Options } from './global-flags.js';
import type { mcp, mcpInstall, mcpUninstall } from './mcp.decl.js';

type InstallOptions = Options<typeof mcpInstall>;
/** `esign mcp`'s own flags reach uninstall too (commander reads a parent's flags after its subcommand). */
type UninstallOptions = Options<typeof mcpUninstall> & FlagOptions<typeof mcp.flags>;

const ENTRY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const DEFAULT_NAME = 'esign';

/** The client, the file and the entry's name a command works on. */
interface Target {
  layout: ClientLayout;
  path: string;
  name: string;
}

function targetOf(flags: InstallOptions | UninstallOptions, ctx: Context): Target {
  const name = flags.name ?? DEFAULT_NAME;
  if (!ENTRY_NAME.test(name)) {
    throw new UsageError(`--name '${escapeControl(name)}' is not a name an entry can have.`, {
      hint: 'Use letters, digits and . _ - (at most 64 characters), e.g. --name esign-sandbox.',
    });
  }
  const layout = layoutOf(flags.client);
  const machine: Machine = { platform: ctx.platform, homedir: ctx.homedir, env: ctx.env, cwd: ctx.cwd };
  const path = flags.configFile ?? layout.file((flags.scope ?? 'user') as InstallScope, machine);
  return { layout, path, name };
}

/** A client's config file as it is: its text (without a byte-order mark), and whether it has one. */
interface ConfigText {
  text: string;
  bom: boolean;
}

function configText(raw: string): ConfigText {
  const text = stripBom(raw);
  return { text, bom: text !== raw };
}

/**
 * The file as it is now, for --print and the check before writing (which take no lock and write
 * nothing): read as the locked change reads it (fs/regular-file.ts), so that a named pipe or a huge
 * file planted in a project folder is refused, not waited on.
 */
function readConfigText(path: string): ConfigText {
  if (!existsSync(path)) return configText('');
  try {
    return configText(readRegularFileSync(realpathSync(path), MAX_SETTINGS_BYTES).text);
  } catch (error) {
    if (error instanceof NotRegularFileError) throw error;
    throw new UsageError(`Cannot read ${escapeControl(path)}: ${(error as Error).message}.`);
  }
}

/** The servers object of the file (JSON with comments and trailing commas, as the clients read it). */
function serversOf(config: ConfigText, layout: ClientLayout, path: string): Record<string, unknown> {
  if (config.text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(config.text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const at = lineAndColumn(config.text, first.offset);
    throw new ConfigFileError(
      `${escapeControl(path)} is not valid JSON (line ${at.line}, column ${at.column}: ${printParseErrorCode(first.error)}); nothing was changed.`,
      { hint: `Fix the file (${layout.title} cannot read it either), then run this again.` },
    );
  }
  if (!isPlainObject(value)) {
    throw new ConfigFileError(`${escapeControl(path)} does not hold a JSON object; nothing was changed.`);
  }
  const servers = value[layout.key];
  if (servers === undefined) return {};
  if (!isPlainObject(servers)) {
    throw new ConfigFileError(
      `${escapeControl(path)}: "${layout.key}" is not an object; nothing was changed.`,
      { hint: `Fix the file (${layout.title} cannot read it either), then run this again.` },
    );
  }
  return servers;
}

/** `text` with the entry set (or removed, with undefined), every other byte as it was. */
function edited(config: ConfigText, path: (string | number)[], value: unknown): string {
  if (config.text.trim() === '') {
    const [key, name] = path as [string, string];
    return `${JSON.stringify({ [key]: { [name]: value } }, null, 2)}\n`;
  }
  const formattingOptions = formattingOf(config.text);
  const text = applyEdits(config.text, modify(config.text, path, value, { formattingOptions }));
  return config.bom ? `\ufeff${text}` : text;
}

/**
 * Changes the client's file under its lock (src/project/write-project.ts), its folders made when
 * missing: `change` gets the file as it is then. Returns whether the file changed.
 */
async function changeConfig(
  path: string,
  change: (config: ConfigText, exists: boolean) => string | typeof REMOVE_FILE,
  makeFolders: boolean,
): Promise<boolean> {
  try {
    return await changeFileLocked(path, (raw, exists) => change(configText(raw), exists), { makeFolders });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new UsageError(`Cannot write ${escapeControl(path)}: ${(error as Error).message}.`);
  }
}

/**
 * Whether a file's text holds nothing but the empty servers object (white space aside): what a
 * file esign made holds once its entry is removed, and what no client needs a file for.
 */
const holdsNothing = (text: string, key: string) => text.replace(/\s+/g, '') === `{"${key}":{}}`;

/**
 * The profile the entry names, checked as every command checks one: a valid name, and one of the
 * stored profiles when there are any (a typo is told with "did you mean").
 */
function checkedProfile(flags: InstallOptions, config: ConfigFile, ctx: Context): string | undefined {
  if (flags.profile === undefined) return undefined;
  if (!isProfileName(flags.profile)) {
    throw new UsageError(`--profile '${escapeControl(flags.profile)}' is not a valid profile name.`, {
      hint: PROFILE_NAME_RULE,
    });
  }
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  checkProfileExists({ value: flags.profile, source: 'flag' }, config, configFilePath(dir));
  return flags.profile;
}

/**
 * How the client starts the server: this esign, as src/mcp/launch.ts says it starts from anywhere,
 * or `--command`; with the server's flags, each checked as the server will check it.
 */
function launchOf(flags: InstallOptions, profile: string | undefined, ctx: Context): ServerLaunch {
  const serverArgs = ['mcp'];
  if (profile !== undefined) serverArgs.push('--profile', profile);
  // Checked as every command checks it (https, or http for loopback; no user name or password):
  // the server would refuse it at every start, and the file may be one meant for version control.
  if (flags.baseUrl !== undefined)
    serverArgs.push('--base-url', normalizeBaseUrl(flags.baseUrl, '--base-url'));
  if (flags.readOnly) serverArgs.push('--read-only');
  if (flags.tools !== undefined)
    serverArgs.push('--tools', chooseTools({ readOnly: flags.readOnly, tools: flags.tools }).join(','));
  if (flags.confirm === 'never') serverArgs.push('--confirm', 'never');
  for (const domain of flags.allowDomain) {
    const parsed = parseAllowedDomain(domain);
    if (!('domain' in parsed))
      throw new UsageError(`--allow-domain ${parsed.problem} (got ${JSON.stringify(domain)}).`);
    serverArgs.push('--allow-domain', describeAllowedDomain(parsed));
  }
  // Where the profiles are, when it is not where the server would look by itself in the client's
  // environment (ESIGN_CONFIG_DIR, or XDG_CONFIG_HOME, which the client does not pass on).
  const env: Record<string, string> = {};
  const dir = configDir(ctx.env, ctx.platform, ctx.homedir);
  const client = clientEnvironment(ctx.env, ctx.platform);
  if (ctx.env.ESIGN_CONFIG_DIR || dir !== configDir(client, ctx.platform, ctx.homedir))
    env.ESIGN_CONFIG_DIR = dir;
  if (flags.command !== undefined) return { command: flags.command, args: serverArgs, env };
  const esign = thisEsign(ctx.platform);
  if (!esign) {
    throw new UsageError('Cannot tell how this esign was started, so no entry can name it.', {
      hint: 'Name the command the client should run with --command, e.g. --command esign (with esign on the PATH the client sees).',
    });
  }
  return { command: esign.command, args: [...esign.args, ...serverArgs], env };
}

/** How long the entry may take to answer `initialize`: npx may first have to fetch the package. */
const checkTimeoutMs = (launch: ServerLaunch) =>
  launch.args.includes('-y') && /npx/.test([launch.command, ...launch.args].join(' ')) ? 120_000 : 20_000;

/**
 * Starts the entry as the client will and sees it answer `initialize`; otherwise says why, and that
 * nothing was written (exit 2 for a --command of the person's, 1 for esign's own command).
 */
async function checkStarts(
  launch: ServerLaunch,
  flags: InstallOptions,
  ctx: Context,
  already: boolean,
): Promise<string> {
  const { checkEntry } = await import('../mcp/entry-check.js');
  const checked = await checkEntry(launch, {
    env: clientEnvironment(ctx.env, ctx.platform),
    timeoutMs: checkTimeoutMs(launch),
    version: ctx.version,
  });
  if (checked.ok) return checked.server;
  const message = `The entry ${already ? 'already in the file ' : ''}does not start an MCP server: \`${escapeControl(commandLine(launch))}\` ${escapeControl(checked.why)}. ${already ? 'The file was left as it was.' : 'Nothing was written.'}`;
  const check = 'or write it anyway with --no-check (when only the client can run it)';
  if (flags.command !== undefined)
    throw new UsageError(message, { hint: `Give --command a program the client can start, ${check}.` });
  throw new EntryCheckError(message, {
    hint: `Name the command with --command (e.g. --command esign, with esign on the PATH the client sees), ${check}; and please report this.`,
  });
}

/** esign's own entry did not start: a fault of esign's (or of this install), not of the flags. */
class EntryCheckError extends CliError {
  constructor(message: string, options: { hint: string }) {
    super(message, ExitCode.internal, 'entry_check_failed', options);
  }
}

/**
 * What a person is told of the profile the server will read (--profile, else the default `esign
 * profile use` chose): whether it holds a token, or a command that prints one, yet.
 */
function profileNotes(flags: InstallOptions, config: ConfigFile, ctx: Context): string[] {
  const notes: string[] = [];
  const profile = flags.profile ?? config.default_profile ?? DEFAULT_PROFILE;
  if (!holdsToken(getProfile(config, profile))) {
    const flag = flags.profile === undefined ? '' : profileFlag(profile);
    notes.push(
      `note: profile '${escapeControl(profile)}' has no token stored yet: run \`esign login${flag}\` before the assistant uses it (or let the client start the server with ESIGN_TOKEN set).`,
    );
  }
  for (const variable of tokenVariablesSet(ctx.env)) {
    notes.push(
      `note: ${variable} is set here, and is not written to the client's config: the server reads the profile's stored token, or ${variable} from the environment the client starts it in.`,
    );
  }
  if (flags.baseUrl !== undefined) {
    const warning = baseUrlWarning(normalizeBaseUrl(flags.baseUrl, '--base-url'));
    if (warning) notes.push(warning);
  }
  return notes;
}

const commandLine = (launch: ServerLaunch) => [launch.command, ...launch.args].map(shellQuote).join(' ');

/** `esign mcp install <client>` */
export const install: CommandModule<InstallOptions> = {
  async run(flags, ctx) {
    const { layout, path, name } = targetOf(flags, ctx);
    const profiles = readConfigFile(configDir(ctx.env, ctx.platform, ctx.homedir));
    const launch = launchOf(flags, checkedProfile(flags, profiles, ctx), ctx);
    const entry = layout.entry(launch);
    const key = `${layout.key}.${name}`;
    const notes = profileNotes(flags, profiles, ctx);
    if (flags.print) {
      const changed = !sameEntry(serversOf(readConfigText(path), layout, path)[name], entry);
      if (flags.json) {
        ctx.stdout.write(
          `${JSON.stringify({ client: layout.client, file: path, key, entry, changed, written: false, checked: null })}\n`,
        );
        return ExitCode.ok;
      }
      ctx.stdout.write(`${JSON.stringify({ [layout.key]: { [name]: entry } }, null, 2)}\n`);
      ctx.stderr.write(
        `${changed ? 'Would write this' : 'This is already'} in ${escapeControl(path)} (${key}); nothing was written.\n`,
      );
      for (const note of notes) ctx.stderr.write(`${note}\n`);
      return ExitCode.ok;
    }
    // Checked before the file is touched: an entry that cannot start is never written.
    let server: string | undefined;
    if (flags.check !== false) {
      const already = sameEntry(serversOf(readConfigText(path), layout, path)[name], entry);
      server = await checkStarts(launch, flags, ctx, already);
    }
    let before: unknown;
    const written = await changeConfig(
      path,
      (config) => {
        before = serversOf(config, layout, path)[name];
        return sameEntry(before, entry) ? serialized(config) : edited(config, [layout.key, name], entry);
      },
      true,
    );
    if (flags.json) {
      ctx.stdout.write(
        `${JSON.stringify({ client: layout.client, file: path, key, entry, changed: written, written, checked: server !== undefined })}\n`,
      );
      return ExitCode.ok;
    }
    const what = `${layout.title}, in ${escapeControl(path)} (${key})`;
    ctx.stderr.write(
      !written
        ? `esign is already registered with ${what}; nothing changed.\n`
        : `${before === undefined ? 'Registered esign with' : 'Updated esign for'} ${what}: ${escapeControl(commandLine(launch))}\n${layout.reload}\n`,
    );
    ctx.stderr.write(
      server === undefined
        ? 'note: not started to check it (--no-check).\n'
        : `Checked: it starts and answers as an MCP server (${escapeControl(server)}).\n`,
    );
    for (const note of notes) ctx.stderr.write(`${note}\n`);
    return ExitCode.ok;
  },
};

/** Whether an entry in the file is the one that would be written. */
const sameEntry = (before: unknown, entry: Record<string, unknown>) =>
  JSON.stringify(before) === JSON.stringify(entry);

/** The file's text as it was read (its byte-order mark given back): written, it changes nothing. */
const serialized = (config: ConfigText) => (config.bom ? `\ufeff${config.text}` : config.text);

/** `esign mcp uninstall <client>` */
export const uninstall: CommandModule<UninstallOptions> = {
  async run(flags, ctx) {
    const given = [
      flags.confirm && '--confirm',
      flags.allowDomain.length > 0 && '--allow-domain',
      flags.readOnly && '--read-only',
      flags.tools !== undefined && '--tools',
    ].filter(Boolean);
    if (given.length > 0) {
      throw new UsageError(
        `esign mcp uninstall removes the entry whatever it holds: ${given.join(', ')} means nothing here.`,
        {
          hint: 'Name the client (and --name, --scope or --config-file, when the entry was installed with them).',
        },
      );
    }
    const { layout, path, name } = targetOf(flags, ctx);
    const where = `${escapeControl(path)} (${layout.key}.${name})`;
    let present: boolean;
    let removedFile = false;
    let written = false;
    // No file, nothing to remove (and no folder made for a lock).
    if (flags.print || !existsSync(path))
      present = Object.hasOwn(serversOf(readConfigText(path), layout, path), name);
    else {
      present = false;
      written = await changeConfig(
        path,
        (config, exists) => {
          present = Object.hasOwn(serversOf(config, layout, path), name);
          if (!present) return serialized(config);
          const after = edited(config, [layout.key, name], undefined);
          // Nothing else is left (as in a file esign made): the file goes, as if never installed.
          removedFile = exists && holdsNothing(after, layout.key);
          return removedFile ? REMOVE_FILE : after;
        },
        false,
      );
    }
    if (flags.json) {
      ctx.stdout.write(
        `${JSON.stringify({ client: layout.client, file: path, key: `${layout.key}.${name}`, removed: present, written, file_removed: removedFile })}\n`,
      );
      return ExitCode.ok;
    }
    if (!present) ctx.stderr.write(`No entry ${name} for ${layout.title} in ${where}; nothing changed.\n`);
    else if (flags.print) ctx.stderr.write(`Would remove ${where}; nothing was written.\n`);
    else {
      const gone = removedFile ? ` Nothing else was in the file, so it is removed.` : '';
      ctx.stderr.write(`Removed esign from ${layout.title}: ${where}.${gone} ${layout.reload}\n`);
    }
    return ExitCode.ok;
  },
};
