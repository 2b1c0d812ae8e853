// The command-line surface as a new user meets it: help pages and topics, messages that say what to
// do next, standard input on a terminal, and outputs that cannot be written.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandTree } from '../../src/command-types.js';
import { commandTree } from '../../src/commands/table.js';
import { createTestContext, runCli } from '../helpers/context.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir } from '../helpers/spawn.js';
import { hasTmux, openTerminal } from '../helpers/tmux.js';

const TOKEN = 'tok_surface_5f1c9a7e3b2d4c6a8e0f';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer({ resetAfterEach: false });

function allCommands(tree: CommandTree, path: string[] = []): string[][] {
  return tree.subcommands.flatMap((c) => [[...path, c.name], ...allCommands(c, [...path, c.name])]);
}

describe('help', () => {
  const _ctx = createTestContext();
  const tree = commandTree();

  it('every command has examples in its help, capitalised descriptions and no numbers shown as strings', async () => {
    for (const path of [[], ...allCommands(tree)]) {
      const help = await runCli([...path, '--help']);
      expect(help.code, path.join(' ')).toBe(0);
      expect(help.stdout, path.join(' ')).toContain('Examples:');
      expect(help.stdout, path.join(' ')).not.toMatch(/\(default: "\d+"\)/);
      for (const line of help.stdout.split('\n')) {
        // "  --flag <x>   Description": the description starts with a capital letter.
        const match = /^ {2}(-\S.*?| ?[a-z][\w|[\]<>. -]*?) {2,}(\S)/.exec(line);
        if (match) expect(match[2], `${path.join(' ')}: ${line}`).toMatch(/[A-Z0-9"'`]/);
      }
    }
    const batch = await runCli(['envelope', 'batch', '--help']);
    expect(batch.stdout).toContain('(default: 4)');
  });

  it('`esign help`, `esign help <command>` and the topics work, on stdout with exit 0', async () => {
    const top = await runCli(['help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toBe((await runCli([])).stdout);
    const create = await runCli(['help', 'envelope', 'create']);
    expect(create.code).toBe(0);
    expect(create.stdout).toBe((await runCli(['envelope', 'create', '--help'])).stdout);
    const environment = await runCli(['help', 'environment']);
    expect(environment.code).toBe(0);
    for (const name of [
      'ESIGN_PROFILE',
      'ESIGN_BASE_URL',
      'ESIGN_TOKEN',
      'ESIGN_TIMEOUT',
      'ESIGN_CONFIG_DIR',
      'HTTPS_PROXY',
      'NO_COLOR',
    ]) {
      expect(environment.stdout).toContain(name);
    }
    expect(environment.stdout).toContain('flag > environment variable >');
    const codes = await runCli(['help', 'exit-codes']);
    for (const code of ['0', '2', '3', '6', '8', '9', '130'])
      expect(codes.stdout).toMatch(new RegExp(`^ {2}${code} `, 'm'));
    const unknown = await runCli(['help', 'envelop']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Did you mean 'envelope'?");
  });

  it('bare `esign` and bare `esign envelope` behave alike: help on stdout, exit 0', async () => {
    for (const argv of [[], ['envelope'], ['config']]) {
      const result = await runCli(argv);
      expect(result.code, argv.join(' ')).toBe(0);
      expect(result.stdout, argv.join(' ')).toMatch(/^Usage: esign/);
      expect(result.stderr).toBe('');
    }
    const typo = await runCli(['envelope', 'craete']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean 'create'?");
  });
});

describe('messages that say what to do next', () => {
  it('`login --token …` explains that tokens are never flags, and stores nothing', async () => {
    const result = await runCli(['login', '--token', 'tok_on_the_command_line_123']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('never takes a token as a flag');
    expect(result.stderr).toContain('--with-token');
    expect(result.stderr).not.toContain('tok_on_the_command_line_123');
    const listing = await runCli(['config', 'list', '--json'], { configDir: result.ctx.configDir });
    expect(JSON.parse(listing.stdout).token).toBeNull();
  });

  it('`config get` of a setting that is not set exits 1 with empty stdout', async () => {
    const result = await runCli(['config', 'get', 'base_url']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("base_url is not set for profile 'default'");
  });
});

describe('outputs that cannot be written', () => {
  // Asynchronous: the scripted server answers from this very process.
  const sh = (command: string, env: Record<string, string>) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', command], {
        env: { PATH: process.env.PATH ?? '', ESIGN_CONFIG_DIR: freshConfigDir(), ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.on('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stderr });
      });
    });

  it('`envelope create --json > /dev/full` fails with exit 9 and says so', async () => {
    server.script(ok());
    const result = await sh(
      `"${process.execPath}" "${BIN}" envelope create --template ${TEMPLATE} --name Ada --email ada@example.com --json > /dev/full`,
      { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
    );
    expect(result.status).toBe(9);
    expect(result.stderr).toContain('Could not write to standard output');
    expect(result.stderr).toContain('ENOSPC');
  });

  it('every command: `status > /dev/full` and `--help > /dev/full` are failures too', async () => {
    expect(
      (await sh(`"${process.execPath}" "${BIN}" status > /dev/full`, { ESIGN_TOKEN: TOKEN })).status,
    ).toBe(9);
    expect((await sh(`"${process.execPath}" "${BIN}" --help > /dev/full`, {})).status).toBe(9);
  });
});

describe('standard input on a terminal', () => {
  it.skipIf(!hasTmux)('says what it reads, and one Ctrl-C stops it with exit 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-stdin-'));
    const requestsBefore = server.requests.length;
    const term = openTerminal(
      'stdin',
      `"${process.execPath}" "${BIN}" envelope create --template ${TEMPLATE} --name Ada --email ada@example.com --data - ; echo "exit=$?"`,
      { env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ESIGN_CONFIG_DIR: join(dir, 'config') } },
    );
    try {
      await term.waitFor(/Reading merge data from standard input \(the terminal\); end it with Ctrl-D/);
      term.press('C-c');
      const screen = await term.waitFor(/exit=\d+/);
      expect(screen).toContain('exit=130');
      expect(screen).toContain('nothing was sent');
      expect(server.requests).toHaveLength(requestsBefore);
    } finally {
      term.close();
    }
  });
});

describe('a base URL without the /api/v1 prefix', () => {
  it('is stored, with a warning naming the likely fix, at login and at config set', async () => {
    const login = await runCli(['login', '--with-token', '--base-url', 'https://esign.example.com'], {
      stdin: 'tok_prefix_check_123456\n',
    });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(
      'warning: the base URL https://esign.example.com does not end in the API prefix /api/v1',
    );
    expect(login.stderr).toContain('https://esign.example.com/api/v1');
    const set = await runCli(['config', 'set', 'base_url', 'https://esign.example.com/v2']);
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('does not end in the API prefix /api/v1');
    const fine = await runCli(['config', 'set', 'base_url', 'https://esign.example.com/api/v1']);
    expect(fine.stderr).not.toContain('warning');
  });
});

describe("the project file's profile", () => {
  it('applies to login, config and logout as it does to every other command', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'esign-project-'));
    const nested = join(folder, 'deep', 'er');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(folder, '.esign.json'), JSON.stringify({ profile: 'team' }));
    const login = await runCli(['login', '--with-token'], {
      stdin: 'tok_team_profile_123456\n',
      cwd: nested,
    });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain("profile 'team'");
    const set = await runCli(['config', 'set', 'base_url', 'https://esign.example.com/api/v1'], {
      cwd: nested,
      configDir: login.ctx.configDir,
    });
    expect(set.stderr).toContain("profile 'team'");
    const list = await runCli(['config', 'list', '--json'], { cwd: nested, configDir: login.ctx.configDir });
    expect(JSON.parse(list.stdout)).toMatchObject({
      profile: 'team',
      base_url: 'https://esign.example.com/api/v1',
    });
    const logout = await runCli(['logout', '--profile', 'team'], { configDir: login.ctx.configDir });
    expect(logout.stderr).toContain("Removed the token of profile 'team'");
  });
});

describe('a config file readable by others', () => {
  it('is warned about where it is read (status, config list, create), never under --json on success', async () => {
    const ctx = createTestContext();
    const login = await runCli(['login', '--with-token'], {
      stdin: 'tok_readable_123456\n',
      configDir: ctx.configDir,
    });
    expect(login.code).toBe(0);
    chmodSync(join(ctx.configDir, 'config.json'), 0o644);
    const status = await runCli(['status'], { configDir: ctx.configDir });
    expect(status.stderr).toContain('is readable by group or others (mode 0644); run: chmod 600');
    const list = await runCli(['config', 'list'], { configDir: ctx.configDir });
    expect(list.stderr).toContain('readable by group or others');
    const listJson = await runCli(['config', 'list', '--json'], { configDir: ctx.configDir });
    expect(listJson.stderr).toBe('');
    // A write puts the mode back to 0600, and the warning goes.
    await runCli(['config', 'set', 'base_url', 'https://esign.example.com/api/v1'], {
      configDir: ctx.configDir,
    });
    expect((await runCli(['status'], { configDir: ctx.configDir })).stderr).not.toContain('readable');
  });
});
