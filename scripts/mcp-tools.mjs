// What `esign mcp` lists, asked the way a client asks (initialize, then tools/list, over stdio): the
// release writes server.json's tool names from it and checks them against it again
// (scripts/release.mjs), so the registry's entry says what the server really serves.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The tool names `node <esign> mcp <args>` lists, in its order, with a config folder of its own and
 * `env` added to an environment without any ESIGN_ variable of this process.
 */
export async function listedTools(esign, args, env = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'esign-mcp-tools-'));
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('ESIGN_')),
  );
  const child = spawn(process.execPath, [esign, 'mcp', ...args], {
    env: { ...inherited, ...env, ESIGN_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  try {
    const answer = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`esign mcp ${args.join(' ')} exited ${code}: ${stderr}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (message.id === 2) resolve(message.result?.tools?.map((tool) => tool.name));
      });
    });
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'esign-release', version: '1' },
      },
    });
    return await answer;
  } finally {
    child.stdin.end();
    child.kill();
    rmSync(configDir, { recursive: true, force: true });
  }
}
