// The MCP Bundle as a desktop app meets it: `npm run build:mcpb`'s script packs what the npm package
// ships with a manifest, and the official tooling (@anthropic-ai/mcpb) validates it (`mcpb
// validate`) and unpacks it. The token is a sensitive user setting, never a file in the bundle.
// The app's own code (getMcpConfigForManifest) turns the manifest and the person's settings into the
// command it starts; the v1 SDK client starts that, from the unpacked bundle, and the server works:
// a person confirms, the allowed domains hold, read-only lists only the read-only tools.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { getMcpConfigForManifest, unpackExtension } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { errorOf } from '../helpers/mcp-results.js';
import { startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MCPB_CLI = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');

let sandbox: RunningSandbox;
let unpacked: string;
let manifest: Record<string, unknown> & { user_config: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  sandbox = await startQuietSandbox();
  const dir = mkdtempSync(join(tmpdir(), 'esign-mcpb-'));
  const bundle = join(dir, 'esign.mcpb');
  // dist/ is built before the tests (npm test's pretest): the script packs it as it is.
  execFileSync(process.execPath, ['scripts/build-mcpb.mjs', '--out', bundle], { cwd: ROOT, stdio: 'pipe' });
  unpacked = join(dir, 'unpacked');
  expect(await unpackExtension({ mcpbPath: bundle, outputDir: unpacked, silent: true })).toBe(true);
  manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
}, 60_000);
afterAll(() => sandbox?.close());

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

it('the manifest validates with `mcpb validate`; the token is a sensitive setting; the bundle is the package and its manifest', () => {
  const validated = execFileSync(process.execPath, [MCPB_CLI, 'validate', join(unpacked, 'manifest.json')], {
    encoding: 'utf8',
  });
  expect(validated).toContain('Manifest schema validation passes!');
  expect(manifest.user_config.api_token).toMatchObject({ type: 'string', sensitive: true, required: true });
  for (const [name, setting] of Object.entries(manifest.user_config))
    if (name !== 'api_token') expect(setting.sensitive, name).toBeUndefined();
  // The token reaches the server only from that setting; the bundle is the npm package's files and the manifest.
  const server = manifest.server as { mcp_config: { env: Record<string, string> } };
  expect(server.mcp_config.env.ESIGN_TOKEN).toBe(['$', '{user_config.api_token}'].join(''));
  const files = filesUnder(unpacked).map((path) => path.slice(unpacked.length + 1));
  expect(files).toEqual(
    expect.arrayContaining(['manifest.json', 'bin/esign.js', 'dist/main.js', 'package.json']),
  );
  // The bundled libraries' licences travel with the bundle, as with the npm package.
  expect([...new Set(files.map((file) => file.split('/')[0]))].sort()).toEqual([
    'README.md',
    'THIRD-PARTY-LICENSES.txt',
    'bin',
    'dist',
    'docs',
    'man',
    'manifest.json',
    'package.json',
    'skills',
  ]);
});

/** The command the desktop app starts for these settings, and a v1 client on it (answering yes when asked). */
async function startAsTheApp(userConfig: Record<string, string | boolean>) {
  const config = await getMcpConfigForManifest({
    manifest: manifest as never,
    extensionPath: unpacked,
    systemDirs: {},
    userConfig,
    pathSeparator: '/',
  });
  if (!config) throw new Error('the app would not start the server: a required setting is missing');
  const asked: string[] = [];
  const client = new Client(
    { name: 'as-claude-desktop', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { send: true } };
  });
  let stderr = '';
  const transport = new StdioClientTransport({
    // The app runs its own Node for `node`.
    command: config.command === 'node' ? process.execPath : config.command,
    args: config.args ?? [],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: mkdtempSync(join(tmpdir(), 'esign-mcpb-home-')),
      ...config.env,
    },
    cwd: tmpdir(),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  return { client, config, asked, stderr: () => stderr };
}

it('started as the app starts it: the token from the setting, a person confirms, the allowed domains hold', async () => {
  const token = tokenOf(sandbox);
  const app = await startAsTheApp({
    api_token: token,
    base_url: sandbox.baseUrl,
    allowed_domains: 'example.com',
  });
  try {
    expect(app.config.env?.ESIGN_TOKEN).toBe(token);
    const { tools } = await app.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'create_envelope',
      'validate_envelope',
      'list_templates',
      'get_status',
    ]);
    const args = {
      template: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
      merge_data: { company: 'Acme Corp' },
    };
    const before = sandbox.requests().length;
    const refused = await app.client.callTool({
      name: 'create_envelope',
      arguments: { ...args, signatory: { name: 'Eve', email: 'eve@elsewhere.test' } },
    });
    expect(errorOf(refused).code).toBe('usage');
    expect(sandbox.requests()).toHaveLength(before);
    const created = await app.client.callTool({ name: 'create_envelope', arguments: args });
    expect(created.isError).toBeFalsy();
    expect(app.asked).toHaveLength(1);
    expect(sandbox.requests()).toHaveLength(before + 1);
    expect(app.stderr()).not.toContain(token);
    expect(JSON.stringify(created)).not.toContain(token);
  } finally {
    await app.client.close();
  }
});

it('the read-only setting lists only the tools that send nothing; a missing token is told, not guessed', async () => {
  const app = await startAsTheApp({
    api_token: 'unused_token_value',
    base_url: sandbox.baseUrl,
    read_only: true,
  });
  try {
    const { tools } = await app.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['validate_envelope', 'list_templates', 'get_status']);
  } finally {
    await app.client.close();
  }
  await expect(startAsTheApp({ base_url: sandbox.baseUrl })).rejects.toThrow('a required setting is missing');
});
