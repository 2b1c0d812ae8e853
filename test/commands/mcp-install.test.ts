// `esign mcp install|uninstall <client>` on each client's layout (Claude Code, Claude Desktop, Cursor,
// VS Code) and each platform's folders (Linux, macOS, Windows), in a temporary home: config files
// that already hold other servers, comments, tabs and CRLF line ends keep all of it; a second run
// changes nothing; --print writes nothing; the flags asked for are written, the token never.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { layoutOf, MCP_CLIENTS, type McpClient } from '../../src/mcp/client-configs.js';
import { createTestContext, runCli, type TestContext } from '../helpers/context.js';

const TOKEN = 'tok_live_9f8e7d6c5b4a39281706';
// biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's input variable, as a config file holds it
const GITHUB_INPUT = '${input:github}';

interface Home {
  root: string;
  ctx: (extra?: Record<string, string>) => TestContext;
}

/** A temporary home on `platform`'s layout (its APPDATA or XDG_CONFIG_HOME inside it), and a project folder. */
function homeOn(platform: NodeJS.Platform): Home {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `esign-install-${platform}-`)));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(project, { recursive: true });
  const env: Record<string, string> =
    platform === 'win32'
      ? { APPDATA: join(home, 'AppData', 'Roaming') }
      : platform === 'linux'
        ? { XDG_CONFIG_HOME: join(home, '.config') }
        : {};
  return {
    root,
    ctx: (extra = {}) => ({
      ...createTestContext({
        env: { ...env, ...extra },
        cwd: project,
        configDir: join(root, 'esign-config'),
      }),
      platform,
      homedir: home,
    }),
  };
}

/** Where each client's user config is on each platform, inside the temporary home. */
const USER_FILES: Record<McpClient, Record<'linux' | 'darwin' | 'win32', string>> = {
  'claude-code': { linux: '.claude.json', darwin: '.claude.json', win32: '.claude.json' },
  'claude-desktop': {
    linux: '.config/Claude/claude_desktop_config.json',
    darwin: 'Library/Application Support/Claude/claude_desktop_config.json',
    win32: 'AppData/Roaming/Claude/claude_desktop_config.json',
  },
  cursor: { linux: '.cursor/mcp.json', darwin: '.cursor/mcp.json', win32: '.cursor/mcp.json' },
  vscode: {
    linux: '.config/Code/User/mcp.json',
    darwin: 'Library/Application Support/Code/User/mcp.json',
    win32: 'AppData/Roaming/Code/User/mcp.json',
  },
};

/** A config file someone already uses: another server, comments, tabs, CRLF (as VS Code on Windows writes it). */
function existingConfig(client: McpClient): string {
  const key = layoutOf(client).key;
  return [
    '{',
    '\t// my servers: keep this comment',
    `\t"${key}": {`,
    '\t\t"github": {',
    '\t\t\t"command": "npx",',
    '\t\t\t"args": ["-y", "@modelcontextprotocol/server-github"], // pinned later',
    `\t\t\t"env": { "GITHUB_TOKEN": "${GITHUB_INPUT}" }`,
    '\t\t}',
    '\t},',
    '\t/* other settings */',
    '\t"theme": "dark"',
    '}',
    '',
  ].join('\r\n');
}

const FLAGS = [
  '--profile',
  'production',
  '--read-only',
  '--allow-domain',
  'Example.com',
  '--command',
  'esign',
  // These tests are of the file; the check that the entry starts has its own (test/e2e/mcp-install.test.ts).
  '--no-check',
];
const ARGS = ['mcp', '--profile', 'production', '--read-only', '--allow-domain', 'example.com'];

describe.each(['linux', 'darwin', 'win32'] as const)('esign mcp install on %s', (platform) => {
  it.each(MCP_CLIENTS)(
    '%s: into a file with other servers, comments, tabs and CRLF, all kept; idempotent; uninstall restores it',
    async (client) => {
      const home = homeOn(platform);
      const path = join(home.root, 'home', USER_FILES[client][platform]);
      mkdirSync(dirname(path), { recursive: true });
      const original = existingConfig(client);
      writeFileSync(path, original);
      // A fresh context for each run: its stdout and stderr are that run's alone.
      const run = (argv: string[]) => runCli(argv, home.ctx({ ESIGN_TOKEN: TOKEN }));

      const first = await run(['mcp', 'install', client, ...FLAGS]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toBe('');
      expect(first.stderr).toContain(`Registered esign with ${layoutOf(client).title}, in ${path}`);
      expect(first.stderr).toContain('ESIGN_TOKEN is set here, and is not written');
      const text = readFileSync(path, 'utf8');
      expect(text).not.toContain(TOKEN);
      expect(text.replace(/\r\n/g, '')).not.toContain('\n');
      expect(text).toContain('\t// my servers: keep this comment\r\n');
      expect(text).toContain('"args": ["-y", "@modelcontextprotocol/server-github"], // pinned later\r\n');
      expect(text).toContain('\t/* other settings */\r\n');
      const key = layoutOf(client).key;
      const servers = (parse(text) as Record<string, Record<string, unknown>>)[key] ?? {};
      expect(Object.keys(servers)).toEqual(['github', 'esign']);
      expect(servers.github).toEqual({
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_TOKEN: GITHUB_INPUT },
      });
      const typed = client === 'claude-desktop' ? {} : { type: 'stdio' };
      expect(servers.esign).toEqual({
        ...typed,
        command: 'esign',
        args: ARGS,
        env: { ESIGN_CONFIG_DIR: join(home.root, 'esign-config') },
      });

      // Again: nothing to change, nothing written (the file is the same file, byte for byte).
      const inode = statSync(path).ino;
      const again = await run(['mcp', 'install', client, ...FLAGS]);
      expect(again.code).toBe(0);
      expect(again.stderr).toContain('already registered');
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(statSync(path).ino).toBe(inode);

      const removed = await run(['mcp', 'uninstall', client]);
      expect(removed.code).toBe(0);
      expect(removed.stderr).toContain(`Removed esign from ${layoutOf(client).title}`);
      expect(readFileSync(path, 'utf8')).toBe(original);
      const none = await run(['mcp', 'uninstall', client]);
      expect(none.stderr).toContain('nothing changed');
      expect(readFileSync(path, 'utf8')).toBe(original);
    },
  );
});

describe('esign mcp install: the rest', () => {
  it('a named pipe where the project config would be is refused at once, with --print and without', async () => {
    const home = homeOn('linux');
    const cursor = join(home.root, 'project', '.cursor');
    mkdirSync(cursor);
    execFileSync('mkfifo', [join(cursor, 'mcp.json')]);
    for (const extra of [[], ['--print']]) {
      const result = await runCli(
        ['mcp', 'install', 'cursor', '--scope', 'project', '--command', 'esign', '--no-check', ...extra],
        home.ctx(),
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${join(cursor, 'mcp.json')} is a named pipe (FIFO)`);
    }
  });

  it('--print shows the entry and the file, and writes nothing; --json says the same as one object', async () => {
    const home = homeOn('linux');
    const ctx = home.ctx();
    const printed = await runCli(['mcp', 'install', 'vscode', '--command', 'esign', '--print'], ctx);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({
      servers: {
        esign: { type: 'stdio', command: 'esign', args: ['mcp'], env: { ESIGN_CONFIG_DIR: ctx.configDir } },
      },
    });
    const path = join(home.root, 'home', '.config', 'Code', 'User', 'mcp.json');
    expect(printed.stderr).toContain(`Would write this in ${path} (servers.esign); nothing was written.`);
    expect(existsSync(path)).toBe(false);
    const json = await runCli(
      ['mcp', 'install', 'vscode', '--command', 'esign', '--print', '--json'],
      home.ctx(),
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      client: 'vscode',
      file: path,
      key: 'servers.esign',
      changed: true,
      written: false,
    });
    expect(existsSync(path)).toBe(false);
  });

  it('the profile the server will read is told of as it is: a token command is a token, `profile use` names the profile, ESIGN_TOKEN_COMMAND is noted', async () => {
    const home = homeOn('linux');
    const ctx = home.ctx({ ESIGN_TOKEN_COMMAND: 'pass show esign' });
    mkdirSync(ctx.configDir, { recursive: true });
    writeFileSync(
      join(ctx.configDir, 'config.json'),
      JSON.stringify({
        default_profile: 'work',
        profiles: { work: { token_command: 'op read op://esign/token' }, spare: {} },
      }),
    );
    const install = (extra: string[]) =>
      runCli(
        ['mcp', 'install', 'cursor', '--command', 'esign', '--print', ...extra],
        home.ctx({ ESIGN_TOKEN_COMMAND: 'pass show esign' }),
      );
    const work = await install([]);
    expect(work.code, work.stderr).toBe(0);
    expect(work.stderr).not.toContain('has no token stored yet');
    expect(work.stderr).toContain(
      "note: ESIGN_TOKEN_COMMAND is set here, and is not written to the client's config: the server reads the profile's stored token, or ESIGN_TOKEN_COMMAND from the environment the client starts it in.",
    );
    const spare = await install(['--profile', 'spare']);
    expect(spare.stderr).toContain(
      "note: profile 'spare' has no token stored yet: run `esign login --profile spare`",
    );
  });

  it('a file that is not there yet is made, with its folders; the project scope writes the project file', async () => {
    const home = homeOn('darwin');
    const ctx = home.ctx();
    const user = await runCli(
      [
        'mcp',
        'install',
        'claude-desktop',
        '--command',
        'esign',
        '--no-check',
        '--name',
        'esign-sandbox',
        '--profile',
        'sandbox',
      ],
      ctx,
    );
    expect(user.code, user.stderr).toBe(0);
    const path = join(
      home.root,
      'home',
      'Library',
      'Application Support',
      'Claude',
      'claude_desktop_config.json',
    );
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      mcpServers: {
        'esign-sandbox': {
          command: 'esign',
          args: ['mcp', '--profile', 'sandbox'],
          env: { ESIGN_CONFIG_DIR: ctx.configDir },
        },
      },
    });
    // A profile with no token yet is told how to log in (the token is never written).
    expect(user.stderr).toContain(
      "note: profile 'sandbox' has no token stored yet: run `esign login --profile sandbox`",
    );
    for (const [client, file] of [
      ['claude-code', '.mcp.json'],
      ['cursor', '.cursor/mcp.json'],
      ['vscode', '.vscode/mcp.json'],
    ] as const) {
      const result = await runCli(
        ['mcp', 'install', client, '--scope', 'project', '--command', 'esign', '--no-check'],
        home.ctx(),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(join(ctx.cwd, file)), file).toBe(true);
    }
    const desktop = await runCli(['mcp', 'install', 'claude-desktop', '--scope', 'project'], home.ctx());
    expect(desktop.code).toBe(2);
    expect(desktop.stderr).toContain('Claude Desktop has no project config');
  });

  it('CLAUDE_CONFIG_DIR moves Claude Code’s file; a symbolic link is followed and stays a link', async () => {
    const home = homeOn('linux');
    const dir = join(home.root, 'claude-config');
    const ctx = home.ctx({ CLAUDE_CONFIG_DIR: dir });
    const result = await runCli(['mcp', 'install', 'claude-code', '--command', 'esign', '--no-check'], ctx);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, '.claude.json'))).toBe(true);

    const target = join(home.root, 'dotfiles', 'mcp.json');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, '{"mcpServers": {}}\n');
    const link = join(home.root, 'home', '.cursor', 'mcp.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
    const linked = await runCli(['mcp', 'install', 'cursor', '--command', 'esign', '--no-check'], home.ctx());
    expect(linked.code, linked.stderr).toBe(0);
    expect(statSync(link, { throwIfNoEntry: true }).isFile()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('"esign"');
    expect(realpathSync(link)).toBe(target);
  });

  it('a byte-order mark (as Notepad and PowerShell 5 write one) stays', async () => {
    const home = homeOn('win32');
    const path = join(home.root, 'home', 'AppData', 'Roaming', 'Claude', 'claude_desktop_config.json');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '\ufeff{\r\n  "mcpServers": {}\r\n}\r\n');
    const result = await runCli(
      ['mcp', 'install', 'claude-desktop', '--command', 'esign', '--no-check'],
      home.ctx(),
    );
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(path, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(JSON.parse(text.slice(1)).mcpServers.esign.command).toBe('esign');
  });

  it('a file the client could not read either is left alone, with where it is wrong', async () => {
    const home = homeOn('linux');
    const path = join(home.root, 'home', '.cursor', 'mcp.json');
    mkdirSync(dirname(path), { recursive: true });
    const broken = '{\n  "mcpServers": {\n    "github": { "command": "npx" \n  }\n';
    writeFileSync(path, broken);
    const result = await runCli(['mcp', 'install', 'cursor', '--command', 'esign', '--no-check'], home.ctx());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${path} is not valid JSON (line 5`);
    expect(result.stderr).toContain('nothing was changed');
    expect(readFileSync(path, 'utf8')).toBe(broken);
    writeFileSync(path, '{"mcpServers": []}');
    const notObject = await runCli(
      ['mcp', 'install', 'cursor', '--command', 'esign', '--no-check'],
      home.ctx(),
    );
    expect(notObject.code).toBe(1);
    expect(notObject.stderr).toContain('"mcpServers" is not an object');
  });

  it('bad values are exit 2 before any file is read: a client, a name, a domain, a profile', async () => {
    const home = homeOn('linux');
    const cases: [string[], string][] = [
      [['mcp', 'install', 'emacs'], 'must be one of claude-code, claude-desktop, cursor, vscode'],
      [['mcp', 'install', 'cursor', '--name', '../x'], "--name '../x' is not a name an entry can have"],
      [
        ['mcp', 'install', 'cursor', '--allow-domain', 'ada@example.com'],
        '--allow-domain takes a domain, not an address',
      ],
      [
        ['mcp', 'install', 'cursor', '--profile', 'no good'],
        "--profile 'no good' is not a valid profile name",
      ],
      [['mcp', 'install', 'cursor', '--confirm', 'maybe'], 'maybe'],
    ];
    for (const [argv, says] of cases) {
      const result = await runCli(argv, home.ctx());
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(says);
    }
    expect(existsSync(join(home.root, 'home', '.cursor'))).toBe(false);
  });
});

describe('esign mcp install: checked as every command checks, written as templates set writes', () => {
  it('--base-url is checked as everywhere: no user name or password, https except loopback; nothing written', async () => {
    const home = homeOn('linux');
    const path = join(home.root, 'project', '.mcp.json');
    const cases: [string, string][] = [
      ['https://ada:s3cret@esign.example.com/api/v1', 'must not carry a user name or password'],
      ['http://esign.example.com/api/v1', 'plain http:// is allowed only for loopback hosts'],
      ['ftp://esign.example.com/api/v1', 'must start with https://'],
    ];
    for (const [url, says] of cases) {
      for (const extra of [[], ['--print']]) {
        const result = await runCli(
          ['mcp', 'install', 'claude-code', '--scope', 'project', '--base-url', url, '--no-check', ...extra],
          home.ctx(),
        );
        expect(result.code, url).toBe(2);
        expect(result.stderr).toContain(`--base-url: `);
        expect(result.stderr).toContain(says);
        expect(result.stderr).not.toContain('s3cret');
        expect(result.stdout).toBe('');
      }
    }
    expect(existsSync(path)).toBe(false);
    const loopback = await runCli(
      [
        'mcp',
        'install',
        'claude-code',
        '--scope',
        'project',
        '--base-url',
        'http://127.0.0.1:4010/api/v1/',
        '--command',
        'esign',
        '--no-check',
      ],
      home.ctx(),
    );
    expect(loopback.code, loopback.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8')).mcpServers.esign.args).toEqual([
      'mcp',
      '--base-url',
      'http://127.0.0.1:4010/api/v1',
    ]);
  });

  it('a profile name with a typo is told "did you mean", as every command does; nothing written', async () => {
    const home = homeOn('linux');
    const ctx = home.ctx();
    mkdirSync(ctx.configDir, { recursive: true });
    writeFileSync(
      join(ctx.configDir, 'config.json'),
      JSON.stringify({ profiles: { production: { token: TOKEN }, sandbox: {} } }),
    );
    const result = await runCli(
      ['mcp', 'install', 'cursor', '--profile', 'prodcution', '--command', 'esign', '--no-check'],
      ctx,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Profile 'prodcution' does not exist");
    expect(result.stderr).toContain("Did you mean 'production'?");
    expect(existsSync(join(home.root, 'home', '.cursor'))).toBe(false);
  });

  it('a config that is a symbolic link to a file not made yet: the file is made where the link points, and the link stays', async () => {
    const home = homeOn('linux');
    const target = join(home.root, 'dotfiles', 'cursor', 'mcp.json');
    const link = join(home.root, 'home', '.cursor', 'mcp.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
    const result = await runCli(['mcp', 'install', 'cursor', '--command', 'esign', '--no-check'], home.ctx());
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8')).mcpServers.esign.command).toBe('esign');
  });

  it('uninstall removes the file when nothing else is left in it (as after an install that made it); a file with more stays', async () => {
    const home = homeOn('linux');
    const path = join(home.root, 'home', '.cursor', 'mcp.json');
    const installed = await runCli(
      ['mcp', 'install', 'cursor', '--command', 'esign', '--no-check'],
      home.ctx(),
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(existsSync(path)).toBe(true);
    const removed = await runCli(['mcp', 'uninstall', 'cursor', '--json'], home.ctx());
    expect(JSON.parse(removed.stdout)).toMatchObject({ removed: true, written: true, file_removed: true });
    expect(existsSync(path)).toBe(false);

    const kept = '{\n  // my note\n  "mcpServers": {}\n}\n';
    writeFileSync(path, kept);
    await runCli(['mcp', 'install', 'cursor', '--command', 'esign', '--no-check'], home.ctx());
    const again = await runCli(['mcp', 'uninstall', 'cursor'], home.ctx());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Nothing else was in the file');
    const left = readFileSync(path, 'utf8');
    expect(left).toContain('// my note');
    expect(parse(left)).toEqual({ mcpServers: {} });
  });
});
