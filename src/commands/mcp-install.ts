// esign mcp install|uninstall <client>: registers `esign mcp` with Claude Code, Claude Desktop,
// Cursor or VS Code in the client's own config file (src/mcp/client-configs.ts says which, and what
// an entry looks like), or removes it. The file is edited in place with jsonc-parser: the other
// entries, comments, indentation and line ends stay as they were, and a run that changes nothing
// writes nothing. The token is never written: the server reads the profile's stored token, or
// ESIGN_TOKEN from the environment the client starts it in.
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  applyEdits,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
} from 'jsonc-parser/lib/esm/main.js';
import type { CommandModule, FlagOptions } from '../command-types.js';
import { configDir } from '../config/paths.js';
import {
  DEFAULT_PROFILE,
  holdsToken,
  isProfileName,
  PROFILE_NAME_RULE,
  profileFlag,
  tokenVariablesSet,
} from '../config/settings.js';
import { getProfile, readConfigFile } from '../config/store.js';
import type { Context } from '../context.js';
import { ConfigFileError, ExitCode, UsageError } from '../errors.js';
import {
  type ClientLayout,
  type InstallScope,
  layoutOf,
  type Machine,
  type ServerLaunch,
} from '../mcp/client-configs.js';
import { chooseTools } from '../mcp/tool-names.js';
import { formattingOf, writeFileAtomic } from '../project/write-project.js';
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
  exists: boolean;
  /** The file written: a symbolic link is followed, so the link stays. */
  writePath: string;
}

function readConfigText(path: string): ConfigText {
  if (!existsSync(path)) return { text: '', bom: false, exists: false, writePath: path };
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${escapeControl(path)}: ${(error as Error).message}.`);
  }
  const text = stripBom(raw);
  return { text, bom: text !== raw, exists: true, writePath: realpathSync(path) };
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

function write(config: ConfigText, text: string): void {
  try {
    mkdirSync(dirname(config.writePath), { recursive: true });
    writeFileAtomic(config.writePath, text);
  } catch (error) {
    throw new UsageError(`Cannot write ${escapeControl(config.writePath)}: ${(error as Error).message}.`);
  }
}

/**
 * How the client starts the server: the esign running now, by its full path (node and the script
 * for the npm install, the executable itself for the single executable), or `--command`.
 */
function launchOf(flags: InstallOptions, ctx: Context): ServerLaunch {
  const serverArgs = ['mcp'];
  if (flags.profile !== undefined) {
    if (!isProfileName(flags.profile)) {
      throw new UsageError(`--profile '${escapeControl(flags.profile)}' is not a valid profile name.`, {
        hint: PROFILE_NAME_RULE,
      });
    }
    serverArgs.push('--profile', flags.profile);
  }
  if (flags.baseUrl !== undefined) serverArgs.push('--base-url', flags.baseUrl);
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
  // Where the profiles are, when it is not where the server would look by itself.
  const env: Record<string, string> = {};
  if (ctx.env.ESIGN_CONFIG_DIR) env.ESIGN_CONFIG_DIR = ctx.env.ESIGN_CONFIG_DIR;
  if (flags.command !== undefined) return { command: flags.command, args: serverArgs, env };
  const script = process.argv[1];
  // The single executable runs its own main script: argv[1] is the executable itself.
  const runsScript = script !== undefined && script !== process.execPath && /\.[cm]?js$/.test(script);
  return runsScript
    ? { command: process.execPath, args: [script, ...serverArgs], env }
    : { command: process.execPath, args: serverArgs, env };
}

/**
 * What a person is told of the profile the server will read (--profile, else the default `esign
 * profile use` chose): whether it holds a token, or a command that prints one, yet.
 */
function profileNotes(flags: InstallOptions, ctx: Context): string[] {
  const notes: string[] = [];
  const config = readConfigFile(configDir(ctx.env, ctx.platform, ctx.homedir));
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
  return notes;
}

const commandLine = (launch: ServerLaunch) => [launch.command, ...launch.args].map(shellQuote).join(' ');

/** `esign mcp install <client>` */
export const install: CommandModule<InstallOptions> = {
  async run(flags, ctx) {
    const { layout, path, name } = targetOf(flags, ctx);
    const launch = launchOf(flags, ctx);
    const entry = layout.entry(launch);
    const config = readConfigText(path);
    const before = serversOf(config, layout, path)[name];
    const changed = JSON.stringify(before) !== JSON.stringify(entry);
    const written = changed && !flags.print;
    if (written) write(config, edited(config, [layout.key, name], entry));
    const report = {
      client: layout.client,
      file: path,
      key: `${layout.key}.${name}`,
      entry,
      changed,
      written,
    };
    if (flags.json) ctx.stdout.write(`${JSON.stringify(report)}\n`);
    else if (flags.print) {
      ctx.stdout.write(`${JSON.stringify({ [layout.key]: { [name]: entry } }, null, 2)}\n`);
      ctx.stderr.write(
        `${changed ? 'Would write this' : 'This is already'} in ${escapeControl(path)} (${layout.key}.${name}); nothing was written.\n`,
      );
    } else {
      const what = `${layout.title}, in ${escapeControl(path)} (${layout.key}.${name})`;
      ctx.stderr.write(
        !changed
          ? `esign is already registered with ${what}; nothing changed.\n`
          : `${before === undefined ? 'Registered esign with' : 'Updated esign for'} ${what}: ${escapeControl(commandLine(launch))}\n${layout.reload}\n`,
      );
    }
    if (!flags.json) for (const note of profileNotes(flags, ctx)) ctx.stderr.write(`${note}\n`);
    return ExitCode.ok;
  },
};

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
    const config = readConfigText(path);
    const servers = serversOf(config, layout, path);
    const present = Object.hasOwn(servers, name);
    const written = present && !flags.print;
    if (written) write(config, edited(config, [layout.key, name], undefined));
    if (flags.json) {
      ctx.stdout.write(
        `${JSON.stringify({ client: layout.client, file: path, key: `${layout.key}.${name}`, removed: present, written })}\n`,
      );
      return ExitCode.ok;
    }
    const where = `${escapeControl(path)} (${layout.key}.${name})`;
    if (!present) ctx.stderr.write(`No entry ${name} for ${layout.title} in ${where}; nothing changed.\n`);
    else if (flags.print) ctx.stderr.write(`Would remove ${where}; nothing was written.\n`);
    else ctx.stderr.write(`Removed esign from ${layout.title}: ${where}. ${layout.reload}\n`);
    return ExitCode.ok;
  },
};
