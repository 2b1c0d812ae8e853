// The built binary, spawned as a user runs it: no TTY, a fresh ESIGN_CONFIG_DIR.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoSecret } from '../helpers/context.js';
import { json, ok, type Reply, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, runBin } from '../helpers/spawn.js';
import { hasTmux, openTerminal } from '../helpers/tmux.js';

const TOKEN = 'tok_e2e_91b3c5d7e9f1a3b5';
const ESC = String.fromCharCode(27);
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

const server = useScriptedServer({ resetAfterEach: false });

describe('a fresh checkout after `npm ci && npm run demo`', () => {
  it('the README says how to type `esign` before it first does, and `npx esign` runs the checkout', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const told = readme.indexOf('`npx esign …`');
    expect(told).toBeGreaterThan(0);
    expect(readme.indexOf('`npm install -g .`')).toBeGreaterThan(0);
    // …before the first command typed as `esign` (the one under the README's first lines).
    expect(told).toBeLessThan(readme.indexOf('\nesign login'));
    const version = execFileSync('npx', ['--no-install', 'esign', '--version'], {
      cwd: new URL('../..', import.meta.url),
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    });
    expect(version).toBe(`${pkg.version}\n`);
  });
});

describe('messages', () => {
  it('help lists only the global options that mean something to the command', async () => {
    const globals = async (args: string[]) => {
      const help = (await runBin([...args, '--help'])).stdout;
      return help.slice(help.indexOf('Global flags:'), help.indexOf('Examples:'));
    };
    for (const command of [['sandbox'], ['completion'], ['logout']]) {
      const listed = await globals(command);
      for (const flag of ['--base-url', '--timeout', '--version'])
        expect(listed, command.join(' ')).not.toContain(flag);
      expect(listed).toContain('--verbose');
    }
    expect(await globals(['sandbox'])).not.toContain('--profile');
    expect(await globals(['logout'])).toContain('--profile');
    const create = await globals(['envelope', 'create']);
    for (const flag of ['--profile', '--base-url', '--timeout', '--verbose', '--ci-output'])
      expect(create).toContain(flag);
  });

  it('an unknown command is told one way at every level: quoted, with "did you mean" and the commands there are', async () => {
    const top = await runBin(['envelop']);
    expect(top.code).toBe(2);
    expect(top.stderr).toBe(
      "error: Unknown command 'envelop' for 'esign'. Did you mean 'envelope'?\nhint: Commands: help, login, logout, status, templates, init, config, profile, envelope, sandbox, mcp, completion. See `esign --help`.\n",
    );
    const nested = await runBin(['envelope', 'crate']);
    expect(nested.stderr).toBe(
      "error: Unknown command 'crate' for 'esign envelope'. Did you mean 'create'?\nhint: Commands: create, batch. See `esign envelope --help`.\n",
    );
  });

  it.skipIf(!hasTmux)(
    'error:, warning: and hint: are coloured at a terminal, and plain with NO_COLOR',
    async () => {
      for (const [name, env, coloured] of [
        ['esign-labels-colour', {}, true],
        ['esign-labels-plain', { NO_COLOR: '1' }, false],
      ] as const) {
        const terminal = openTerminal(
          name,
          `${process.execPath} ${BIN} envelope create --template nope --name A --email a@example.com; echo "exit=$?"`,
          {
            env: { ESIGN_CONFIG_DIR: freshConfigDir(), TERM: 'xterm-256color', CI: 'false', ...env },
            escapes: true,
          },
        );
        try {
          const screen = await terminal.waitFor(/exit=\d+/);
          expect(screen).toContain('exit=2');
          // tmux writes a colour as SGR again: red (31) for error:, cyan (36) for hint:.
          const sgr = (code: number, label: string) =>
            new RegExp(`${ESC}\\[[0-9;]*${code}m(${ESC}\\[[0-9;]*m)*${label}:`).test(screen);
          expect(sgr(31, 'error'), name).toBe(coloured);
          expect(sgr(36, 'hint'), name).toBe(coloured);
          expect(screen).toMatch(/error:/);
        } finally {
          terminal.close();
        }
      }
    },
  );
});

describe('a checkout without dist/', () => {
  it('says to run `npm run build`, not a stack trace', async () => {
    const { cpSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const checkout = mkdtempSync(join(tmpdir(), 'esign-unbuilt-'));
    cpSync(new URL('../../bin', import.meta.url), join(checkout, 'bin'), { recursive: true });
    cpSync(new URL('../../package.json', import.meta.url), join(checkout, 'package.json'));
    const result = await runBin(['envelope', 'create', '--help'], { bin: join(checkout, 'bin', 'esign.js') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: esign is not built: ${join(checkout, 'dist')} has no main.js.\nhint: run \`npm run build\` in ${checkout} (npm test and npm run demo build it too).\n`,
    );
  });
});

describe('the built binary', () => {
  it('--version prints the package version; --help lists the commands', async () => {
    const version = await runBin(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`${pkg.version}\n`);
    const help = await runBin(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['login', 'logout', 'status', 'config', 'envelope', 'sandbox', 'completion']) {
      expect(help.stdout).toContain(command);
    }
  });

  it('login --with-token, then envelope create in every output mode', async () => {
    const configDir = freshConfigDir();
    const env = { ESIGN_CONFIG_DIR: configDir };
    const login = await runBin(['login', '--with-token', '--base-url', server.baseUrl], {
      env,
      stdin: `${TOKEN}\n`,
    });
    assertNoSecret(login, TOKEN);
    expect(login.code).toBe(0);
    expect(statSync(join(configDir, 'config.json')).mode & 0o777).toBe(0o600);

    const args = [
      'envelope',
      'create',
      '--template',
      TEMPLATE,
      '--name',
      'Ada Lovelace',
      '--email',
      'ada@example.com',
    ];
    server.script(ok(), ok(), ok());
    const human = await runBin(args, { env });
    const asJson = await runBin([...args, '--json'], { env });
    const quiet = await runBin([...args, '-q'], { env });
    for (const result of [human, asJson, quiet]) {
      assertNoSecret(result, TOKEN);
      expect(result.code).toBe(0);
    }
    expect(human.stdout).toContain('Signing URL');
    expect(JSON.parse(asJson.stdout).envelope_id).toBe(TEMPLATE);
    expect(quiet.stdout).toBe('https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E\n');
    expect(server.requests.slice(-3).map((r) => r.headers.authorization)).toEqual(
      Array(3).fill(`Bearer ${TOKEN}`),
    );
  });

  it('exit codes reach the shell: 2 input, 3 no token, 4 forbidden, 7 server', async () => {
    const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_BASE_URL: server.baseUrl };
    const args = ['envelope', 'create', '--template', TEMPLATE, '--name', 'A', '--email', 'a@b.co'];
    expect((await runBin(['envelope', 'create'], { env })).code).toBe(2);
    expect((await runBin(args, { env })).code).toBe(3);
    server.script(json(403, { message: 'Forbidden.' }), json(502, { message: 'Bad gateway' }));
    const forbidden = await runBin([...args, '--json'], { env: { ...env, ESIGN_TOKEN: TOKEN } });
    expect(forbidden.code).toBe(4);
    assertNoSecret(forbidden, TOKEN);
    expect(JSON.parse(forbidden.stderr).error.status).toBe(403);
    expect((await runBin(args, { env: { ...env, ESIGN_TOKEN: TOKEN } })).code).toBe(7);
  });

  it('honours HTTPS_PROXY: the request goes to the proxy as a CONNECT', async () => {
    const { createServer } = await import('node:http');
    const connects: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (req, socket) => {
      connects.push(req.url ?? '');
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    const result = await runBin(
      ['envelope', 'create', '--template', TEMPLATE, '--name', 'A', '--email', 'a@b.co'],
      {
        env: {
          ESIGN_CONFIG_DIR: freshConfigDir(),
          ESIGN_TOKEN: TOKEN,
          ESIGN_BASE_URL: 'https://esign.invalid/api/v1',
          HTTPS_PROXY: `http://127.0.0.1:${port}`,
        },
      },
    );
    proxy.close();
    assertNoSecret(result, TOKEN);
    expect(connects).toEqual(['esign.invalid:443']);
    expect(result.code).toBe(6);
  });

  it('npm-style invocation from another folder works (bin resolves its bundle)', () => {
    const out = execFileSync(process.execPath, [BIN, '--version'], { cwd: '/', encoding: 'utf8' });
    expect(out.trim()).toBe(pkg.version);
  });
});

describe.skipIf(!hasTmux)('under a real terminal (tmux)', () => {
  it('login asks with a hidden prompt and stores what was typed, never echoing it', async () => {
    const configDir = freshConfigDir();
    const terminal = openTerminal(
      'esign-login',
      `env ESIGN_CONFIG_DIR=${configDir} NO_COLOR=1 ${process.execPath} ${BIN} login; echo "exit=$?"`,
    );
    try {
      await terminal.waitFor(/input is hidden/);
      terminal.typeLine(TOKEN);
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=0');
      expect(final).toContain('Settings → API Tokens → Create New Token');
      expect(terminal.screens.join('\n')).not.toContain(TOKEN);
      const stored = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
      expect(stored.profiles.default.token).toBe(TOKEN);
    } finally {
      terminal.close();
    }
  });

  it('shows a spinner and then the coloured block on a terminal, and a live progress line for a batch', async () => {
    server.fallback({ ...ok(), delayMs: 150 } as Reply);
    const dir = freshConfigDir();
    const records = join(dir, '..', 'people.jsonl');
    writeFileSync(
      records,
      Array.from({ length: 30 }, (_, i) =>
        JSON.stringify({ signatory: { name: `P ${i}`, email: `p${i}@example.com` } }),
      ).join('\n'),
    );
    const env = `env -u CI -u LC_ALL -u LC_CTYPE LANG=C.UTF-8 ESIGN_CONFIG_DIR=${dir} ESIGN_TOKEN=${TOKEN} ESIGN_BASE_URL=${server.baseUrl} TERM=xterm-256color`;
    const terminal = openTerminal(
      'esign-tty',
      `${env} ${process.execPath} ${BIN} envelope create --template ${TEMPLATE} --name Ada --email a@b.co; echo "create=$?"; ` +
        `${env} ${process.execPath} ${BIN} envelope batch ${records} --template ${TEMPLATE} --concurrency 2 > /dev/null; echo "batch=$?"`,
    );
    try {
      const final = await terminal.waitFor(/batch=\d+/);
      const all = terminal.screens.join('\n');
      expect(all).toContain('Creating envelope');
      expect(final).toContain('✓ Envelope created');
      expect(final).toContain('create=0');
      expect(all).toMatch(/\d+\/30 done · 0 failed or unknown · [\d.]+\/s · \d+ s left/);
      expect(final).toContain('Batch: 30 created, 0 failed, 0 unknown, 0 skipped of 30 records');
      expect(final).toContain('batch=0');
      expect(all).not.toContain(TOKEN);
    } finally {
      terminal.close();
      server.fallback(json(599, { message: 'unexpected' }));
    }
  });
});
