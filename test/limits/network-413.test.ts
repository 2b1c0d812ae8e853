// A server that refuses a large body with 413 before reading it, then closes the connection: the
// answer is a 413 (exit 5, nothing created), not a broken pipe with an unknown outcome (issue 10).
// The built binary is spawned, as the race is between its own socket's reading and writing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_live_5f1c9a7e3b2d4c6a8e0f';

let server: Server;
let baseUrl: string;
let dataFile: string;
beforeAll(async () => {
  // As the sandbox and most servers do: answer 413 from the headers alone, with Connection:
  // close, and never read the body (closing with it unread makes the kernel reset the upload).
  server = createServer((_req, res) => {
    const body = JSON.stringify({ message: 'The request body is too large.' });
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  dataFile = join(mkdtempSync(join(tmpdir(), 'esign-413-')), 'big.json');
  writeFileSync(dataFile, JSON.stringify({ notes: 'x'.repeat(48 * 1024 * 1024) }));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('413 and close', () => {
  it('is a 413 every time: exit 5, nothing created', { timeout: 120_000 }, async () => {
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const result = await runBin([...CREATE_ARGS, '--data', dataFile], {
        env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: baseUrl, ESIGN_CONFIG_DIR: freshConfigDir() },
        timeoutMs: 30_000,
      });
      outcomes.push(`${result.code} ${result.stderr.split('\n')[0]}`);
    }
    for (const outcome of outcomes) {
      expect(outcome).toMatch(/^5 error: The API refused the request as too large \(413/);
    }
  });
});
