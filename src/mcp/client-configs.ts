// Where each MCP client keeps its servers, and what an entry looks like there: decided here, once,
// for `esign mcp install` and `uninstall` (and the table in docs/mcp.md says the same).
//
//   client          user scope                                               project scope       key
//   claude-code     ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json)         .mcp.json           mcpServers
//   claude-desktop  macOS ~/Library/Application Support/Claude/               —                   mcpServers
//                   Windows %APPDATA%\Claude\, Linux ~/.config/Claude/
//                   (claude_desktop_config.json)
//   cursor          ~/.cursor/mcp.json                                       .cursor/mcp.json    mcpServers
//   vscode          macOS ~/Library/Application Support/Code/User/mcp.json,  .vscode/mcp.json    servers
//                   Windows %APPDATA%\Code\User\mcp.json,
//                   Linux ~/.config/Code/User/mcp.json
//
// The platform decides which folders; the paths are joined by the running system's own rules.
import { join } from 'node:path';
import type { Env } from '../context.js';
import { UsageError } from '../errors.js';

export const MCP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];
export type InstallScope = 'user' | 'project';

/** What locating a client's file needs to know of the machine. */
export interface Machine {
  readonly platform: NodeJS.Platform;
  readonly homedir: string;
  readonly env: Env;
  readonly cwd: string;
}

/** How the client runs a server: its command, arguments and environment. */
export interface ServerLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Never holds a token: only where to find the profile (ESIGN_CONFIG_DIR), when it is not the default. */
  readonly env: Readonly<Record<string, string>>;
}

export interface ClientLayout {
  readonly client: McpClient;
  readonly title: string;
  /** The object the servers are kept in, by name. */
  readonly key: 'mcpServers' | 'servers';
  /** The entry the client reads for a stdio server. */
  entry(launch: ServerLaunch): Record<string, unknown>;
  /** The config file for a scope. */
  file(scope: InstallScope, machine: Machine): string;
  /** What to do after the file changed, for the client to see it. */
  readonly reload: string;
}

/**
 * The variables of its own environment a client passes on to a server it starts, before the
 * entry's `env`: the MCP SDK's default (getDefaultEnvironment, modelled on sudo's), which the
 * clients built on it start servers with. Values that are shell functions are left out, as there.
 */
const INHERITED: Record<'posix' | 'win32', readonly string[]> = {
  posix: ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'],
  win32: [
    'APPDATA',
    'HOMEDRIVE',
    'HOMEPATH',
    'LOCALAPPDATA',
    'PATH',
    'PROCESSOR_ARCHITECTURE',
    'SYSTEMDRIVE',
    'SYSTEMROOT',
    'TEMP',
    'USERNAME',
    'USERPROFILE',
    'PROGRAMFILES',
  ],
};

/** The environment a client starts a server in, from the one esign runs in (see INHERITED). */
export function clientEnvironment(env: Env, platform: NodeJS.Platform): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const name of INHERITED[platform === 'win32' ? 'win32' : 'posix']) {
    const value = env[name];
    if (value !== undefined && !value.startsWith('()')) passed[name] = value;
  }
  return passed;
}

/** The user's application-data folder: macOS's Application Support, Windows' %APPDATA%, else XDG's config folder. */
function appData(machine: Machine): string {
  if (machine.platform === 'darwin') return join(machine.homedir, 'Library', 'Application Support');
  if (machine.platform === 'win32') return machine.env.APPDATA || join(machine.homedir, 'AppData', 'Roaming');
  return machine.env.XDG_CONFIG_HOME || join(machine.homedir, '.config');
}

/** The entry most clients read: command, args, and env when there is any. */
const plainEntry = (launch: ServerLaunch): Record<string, unknown> => ({
  command: launch.command,
  args: [...launch.args],
  ...(Object.keys(launch.env).length > 0 ? { env: { ...launch.env } } : {}),
});

/** The same, marked as a stdio server, as Claude Code, Cursor and VS Code write it. */
const stdioEntry = (launch: ServerLaunch): Record<string, unknown> => ({
  type: 'stdio',
  ...plainEntry(launch),
});

function noProjectScope(client: string): never {
  throw new UsageError(`${client} has no project config: it reads its servers from your user config only.`, {
    hint: 'Leave out --scope project (or use --scope user).',
  });
}

const LAYOUTS: Record<McpClient, ClientLayout> = {
  'claude-code': {
    client: 'claude-code',
    title: 'Claude Code',
    key: 'mcpServers',
    entry: stdioEntry,
    file: (scope, machine) =>
      scope === 'project'
        ? join(machine.cwd, '.mcp.json')
        : join(machine.env.CLAUDE_CONFIG_DIR || machine.homedir, '.claude.json'),
    reload: 'Start a new Claude Code session (or run /mcp) to see it.',
  },
  'claude-desktop': {
    client: 'claude-desktop',
    title: 'Claude Desktop',
    key: 'mcpServers',
    entry: plainEntry,
    file: (scope, machine) =>
      scope === 'project'
        ? noProjectScope('Claude Desktop')
        : join(appData(machine), 'Claude', 'claude_desktop_config.json'),
    reload: 'Quit Claude Desktop and open it again to see it.',
  },
  cursor: {
    client: 'cursor',
    title: 'Cursor',
    key: 'mcpServers',
    entry: stdioEntry,
    file: (scope, machine) =>
      join(scope === 'project' ? machine.cwd : machine.homedir, '.cursor', 'mcp.json'),
    reload: 'Cursor picks it up in Settings → MCP (reload the window if it does not).',
  },
  vscode: {
    client: 'vscode',
    title: 'VS Code',
    key: 'servers',
    entry: stdioEntry,
    file: (scope, machine) =>
      scope === 'project'
        ? join(machine.cwd, '.vscode', 'mcp.json')
        : join(appData(machine), 'Code', 'User', 'mcp.json'),
    reload: 'VS Code offers to start it from the file (or run "MCP: List Servers").',
  },
};

export function layoutOf(client: McpClient): ClientLayout {
  return LAYOUTS[client];
}
