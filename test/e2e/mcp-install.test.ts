// `esign mcp install` as a user runs it, then the client starting what it wrote: the built binary
// registers itself with Claude Code in a temporary home (by its full path: node and bin/esign.js),
// and the v1 SDK client starts the server exactly as the entry says, with the environment a client
// gives it. The server reads the profile's stored token: none is in the file, nor in that environment.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { BIN, runBin } from '../helpers/spawn.js';
import { startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox?.close());

it('installs into ~/.claude.json by its full path; the client starts that entry and the server uses the stored profile', async () => {
  const home = mkdtempSync(join(tmpdir(), 'esign-install-e2e-'));
  const configDir = join(home, 'esign-config');
  const env = { HOME: home, ESIGN_CONFIG_DIR: configDir };
  const token = tokenOf(sandbox);
  const login = await runBin(
    ['login', '--with-token', '--profile', 'sandbox', '--base-url', sandbox.baseUrl],
    {
      env,
      stdin: token,
    },
  );
  expect(login.code, login.stderr).toBe(0);
  const installed = await runBin(['mcp', 'install', 'claude-code', '--profile', 'sandbox', '--read-only'], {
    env,
  });
  expect(installed.code, installed.stderr).toBe(0);
  expect(installed.stderr).not.toContain('no token stored');
  const file = readFileSync(join(home, '.claude.json'), 'utf8');
  expect(file).not.toContain(token);
  const entry = JSON.parse(file).mcpServers.esign;
  expect(entry).toEqual({
    type: 'stdio',
    command: process.execPath,
    args: [BIN, 'mcp', '--profile', 'sandbox', '--read-only'],
    env: { ESIGN_CONFIG_DIR: configDir },
  });

  const client = new Client({ name: 'as-claude-code', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { PATH: process.env.PATH ?? '', HOME: home, ...entry.env },
      stderr: 'pipe',
    }),
  );
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
