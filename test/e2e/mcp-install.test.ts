// `esign mcp install` as a user runs it, then the client starting what it wrote: from the checkout
// and from a real global npm install of the packed tarball (`npm pack`, then `npm install -g
// --prefix`, as .ci/run does; packed once for this file), esign registers itself by a command that
// starts from anywhere (node and the package's bin/esign.js, never npm's bin link), checks that the
// entry answers `initialize` before writing it, and the v1 SDK client starts that entry exactly as
// it says, with the environment a client gives it. An entry that cannot start is never written
// (exit 1 for esign's own, 2 for a --command). Run with npx (from a registry on loopback, serving the
// package), the entry is `npx -y esign@<version> mcp`, and it starts. Ten installs at once keep ten
// entries; run as root for a user (sudo with the user's HOME), everything made in that home is the
// user's.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { BIN, gather, runBin } from '../helpers/spawn.js';
import { startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');

let sandbox: RunningSandbox;
/** The global npm install's folder (`--prefix`), its bin link, and the package's real bin/esign.js. */
let prefix: string;
let npmBin: string;
let installedScript: string;
/** The folder `npm pack` wrote to, and the tarball in it. */
let work: string;
let tarball: string;

beforeAll(async () => {
  sandbox = await startQuietSandbox();
  // The tarball as published (dist/ is built before the tests: npm test's pretest), installed
  // globally from npm's cache alone (its dependencies are bundled in dist/; nothing is fetched).
  work = mkdtempSync(join(tmpdir(), 'esign-npm-global-'));
  tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop() as string;
  prefix = join(work, 'prefix');
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      join(work, tarball),
    ],
    { cwd: work, stdio: 'pipe' },
  );
  npmBin = join(prefix, 'bin', 'esign');
  installedScript = realpathSync(join(prefix, 'lib', 'node_modules', 'esign', 'bin', 'esign.js'));
}, 120_000);
afterAll(() => sandbox?.close());

/** A temporary home, a config folder in it, and a sandbox profile logged in there. */
async function loggedInHome(): Promise<{ home: string; configDir: string; env: Record<string, string> }> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'esign-install-e2e-')));
  const configDir = join(home, 'esign-config');
  const env = { HOME: home, ESIGN_CONFIG_DIR: configDir };
  const login = await runBin(
    ['login', '--with-token', '--profile', 'sandbox', '--base-url', sandbox.baseUrl],
    { env, stdin: tokenOf(sandbox) },
  );
  expect(login.code, login.stderr).toBe(0);
  return { home, configDir, env };
}

/** The v1 SDK client on an entry, started as the entry says, with the environment a client gives it. */
async function startAsClient(
  entry: { command: string; args: string[]; env: Record<string, string> },
  home: string,
) {
  const client = new Client({ name: 'as-claude-code', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { PATH: process.env.PATH ?? '', HOME: home, ...entry.env },
      // Not this checkout: npx would take the package here (named esign too) for the one asked.
      cwd: home,
      stderr: 'pipe',
    }),
  );
  return client;
}

const claudeEntry = (home: string) =>
  JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.esign;

it('installs into ~/.claude.json by its full path; the client starts that entry and the server uses the stored profile', async () => {
  const { home, configDir, env } = await loggedInHome();
  const token = tokenOf(sandbox);
  const installed = await runBin(['mcp', 'install', 'claude-code', '--profile', 'sandbox', '--read-only'], {
    env,
  });
  expect(installed.code, installed.stderr).toBe(0);
  expect(installed.stderr).not.toContain('no token stored');
  expect(installed.stderr).toContain('Checked: it starts and answers as an MCP server (esign ');
  const file = readFileSync(join(home, '.claude.json'), 'utf8');
  expect(file).not.toContain(token);
  const entry = claudeEntry(home);
  expect(entry).toEqual({
    type: 'stdio',
    command: process.execPath,
    args: [BIN, 'mcp', '--profile', 'sandbox', '--read-only'],
    env: { ESIGN_CONFIG_DIR: configDir },
  });

  const client = await startAsClient(entry, home);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['validate_envelope', 'list_templates', 'get_status']);
    const status = (await client.callTool({ name: 'get_status', arguments: {} })).structuredContent as Record<
      string,
      { value: unknown; source: unknown }
    >;
    expect(status.profile?.value).toBe('sandbox');
    expect(status.base_url?.value).toBe(sandbox.baseUrl);
    expect(status.token).toMatchObject({ value: `****${token.slice(-4)}`, source: 'profile sandbox' });
  } finally {
    await client.close();
  }
});

describe('from a global npm install of the packed tarball', () => {
  it('the entry is node and the package’s bin/esign.js (not npm’s bin link); it was checked, and the client starts it', async () => {
    const { home, configDir, env } = await loggedInHome();
    // Run by npm's bin link, as a user's shell runs `esign`.
    const installed = await runBin(['mcp', 'install', 'claude-code', '--profile', 'sandbox'], {
      bin: npmBin,
      env,
    });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(`Registered esign with Claude Code, in ${join(home, '.claude.json')}`);
    expect(installed.stderr).toContain('Checked: it starts and answers as an MCP server (esign ');
    const entry = claudeEntry(home);
    expect(entry).toEqual({
      type: 'stdio',
      command: process.execPath,
      args: [installedScript, 'mcp', '--profile', 'sandbox'],
      env: { ESIGN_CONFIG_DIR: configDir },
    });
    const client = await startAsClient(entry, home);
    try {
      const status = (await client.callTool({ name: 'get_status', arguments: {} }))
        .structuredContent as Record<string, { value: unknown }>;
      expect(status.profile?.value).toBe('sandbox');
      expect(status.base_url?.value).toBe(sandbox.baseUrl);
    } finally {
      await client.close();
    }
  });

  it('an install whose own entry cannot start writes nothing and says why (exit 1); a --command that cannot start, exit 2', async () => {
    // The installed package with the `esign mcp` command's code gone: esign mcp cannot start.
    const broken = join(mkdtempSync(join(tmpdir(), 'esign-broken-')), 'esign');
    cpSync(join(prefix, 'lib', 'node_modules', 'esign'), broken, { recursive: true });
    const chunks = join(broken, 'dist', 'chunks');
    const removed = readdirSync(chunks).filter((name) => /^mcp-[A-Z0-9]+\.js$/.test(name));
    expect(removed).toHaveLength(1);
    for (const name of removed) rmSync(join(chunks, name));
    const { home, env } = await loggedInHome();
    const failed = await runBin(['mcp', 'install', 'cursor', '--profile', 'sandbox'], {
      bin: join(broken, 'bin', 'esign.js'),
      env,
    });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain(
      `error: The entry does not start an MCP server: \`${process.execPath} ${join(realpathSync(broken), 'bin', 'esign.js')} mcp --profile sandbox\` exited with status 1 before it answered \`initialize\``,
    );
    expect(failed.stderr).toContain('Nothing was written.');
    expect(failed.stderr).toContain('--no-check');
    expect(existsSync(join(home, '.cursor'))).toBe(false);

    const json = await runBin(['mcp', 'install', 'cursor', '--command', 'no-such-esign', '--json'], {
      bin: npmBin,
      env,
    });
    expect(json.code).toBe(2);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'usage',
      message: expect.stringContaining(
        '`no-such-esign mcp` could not be started: no-such-esign was not found',
      ),
    });
    expect(existsSync(join(home, '.cursor'))).toBe(false);
  });
});

/**
 * A registry on loopback serving one package: the packed tarball with its dependencies left out
 * of its package.json (they are bundled in dist/), so that npx needs nothing else.
 */
async function loopbackRegistry(): Promise<{ url: string; version: string; server: Server }> {
  const dir = mkdtempSync(join(work, 'registry-'));
  execFileSync('tar', ['xzf', join(work, tarball), '-C', dir]);
  const manifestPath = join(dir, 'package', 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  delete manifest.dependencies;
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', './package'], {
    cwd: dir,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop() as string;
  const bytes = readFileSync(join(dir, packed));
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  const server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const file = `/${manifest.name}/-/${packed}`;
    if (request.url === `/${manifest.name}`) {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          name: manifest.name,
          'dist-tags': { latest: manifest.version },
          versions: {
            [manifest.version]: { ...manifest, dist: { tarball: `${base}${file}`, integrity } },
          },
        }),
      );
    } else if (request.url === file) response.end(bytes);
    else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, version: manifest.version, server };
}

it('run with npx: the entry is `npx -y esign@<version> mcp` (npx beside node, else on the PATH; never the npx cache folder), checked, and the client starts it', async () => {
  const registry = await loopbackRegistry();
  try {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'esign-install-npx-')));
    // npm reads the registry from the home's .npmrc: so does the npx the client starts.
    writeFileSync(join(home, '.npmrc'), `registry=${registry.url}\n`);
    // The npx esign writes (src/mcp/launch.ts): the one beside this node, else the one on the PATH
    // (a node from the npm registry's `node` package has no npx beside it).
    const beside = join(dirname(process.execPath), 'npx');
    const npx = existsSync(beside) ? beside : 'npx';
    const env = { PATH: process.env.PATH ?? '', HOME: home };
    // Started asynchronously: the registry answers from this process.
    const installed = await gather(
      spawn(npx, ['-y', `esign@${registry.version}`, 'mcp', 'install', 'claude-code'], { cwd: home, env }),
      60_000,
    ).done;
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain('Checked: it starts and answers as an MCP server (esign ');
    const entry = claudeEntry(home);
    expect(entry).toEqual({ type: 'stdio', command: npx, args: ['-y', `esign@${registry.version}`, 'mcp'] });
    const client = await startAsClient({ ...entry, env: {} }, home);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('create_envelope');
    } finally {
      await client.close();
    }
  } finally {
    registry.server.close();
  }
}, 90_000);

it('ten installs at once into one file keep ten entries (each waits its turn under the file’s lock)', async () => {
  const { home, env } = await loggedInHome();
  const names = Array.from({ length: 10 }, (_, i) => `esign-${i}`);
  const results = await Promise.all(
    names.map((name) =>
      runBin(['mcp', 'install', 'cursor', '--name', name, '--no-check'], { env, timeoutMs: 30_000 }),
    ),
  );
  for (const result of results) expect(result.code, result.stderr).toBe(0);
  const file = join(home, '.cursor', 'mcp.json');
  expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).mcpServers).sort()).toEqual(names);
  expect(readdirSync(join(home, '.cursor'))).toEqual(['mcp.json']); // no lock or temporary file left
}, 60_000);

it.runIf(process.platform === 'linux' && process.geteuid?.() === 0)(
  "run as root for a user (sudo with the user's HOME): every folder and file made in that home is the user's",
  async () => {
    const nobody = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim());
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'esign-install-sudo-')));
    chownSync(home, nobody, nobody);
    const env = { HOME: home, SUDO_UID: String(nobody), SUDO_USER: 'nobody' };
    for (const client of ['cursor', 'vscode', 'claude-code']) {
      const result = await runBin(['mcp', 'install', client], { env });
      expect(result.code, result.stderr).toBe(0);
    }
    const made = readdirSync(home, { recursive: true, encoding: 'utf8' }).map((name) => join(home, name));
    expect(made).toEqual(
      expect.arrayContaining([
        join(home, '.cursor', 'mcp.json'),
        join(home, '.config', 'Code', 'User', 'mcp.json'),
        join(home, '.claude.json'),
      ]),
    );
    for (const path of [home, ...made]) expect(`${path}: ${lstatSync(path).uid}`).toBe(`${path}: ${nobody}`);
    // Removed again: the file esign made goes.
    const removed = await runBin(['mcp', 'uninstall', 'cursor'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(home, '.cursor', 'mcp.json'))).toBe(false);
  },
);
