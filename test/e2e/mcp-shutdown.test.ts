// `esign mcp` stopping while a create is on the wire, through the built binary and a raw JSON-RPC
// client on its stdio (as any client is): a first SIGTERM, or the client closing standard input,
// stops the server, but the create in flight finishes and its answer is written before the server
// exits. Only a second signal aborts it, and then its outcome is reported as unknown, to the
// client and on stderr. The API is a server on 127.0.0.1 that holds its answer until told.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, freshConfigDir, gather } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_mcp_shutdown_2b4d6f8a0c';
const ENVELOPE_ID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

let received = 0;
let release = () => {};
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      release = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            success: true,
            data: {
              envelope_id: ENVELOPE_ID,
              signing_url: `https://sign.example.com/s/${ENVELOPE_ID}`,
              status: 'ready',
              created_at: '2026-11-27T10:00:00.000Z',
              expires_at: '2026-12-27T10:00:00.000Z',
            },
          }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = 0;
});

type Child = ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };

/** `esign mcp --confirm never`, initialised, with a create_envelope call on its way. */
async function serveAndCreate() {
  const child = spawn(process.execPath, [BIN, 'mcp', '--confirm', 'never'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ESIGN_CONFIG_DIR: freshConfigDir(),
      ESIGN_BASE_URL: baseUrl,
      ESIGN_TOKEN: TOKEN,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as Child;
  const run = gather(child, 30_000);
  const send = (message: Record<string, unknown>) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await waitFor(() => run.output.stdout.includes('"id":1'), 'the server to answer initialize');
  send({ method: 'notifications/initialized' });
  send({
    id: 2,
    method: 'tools/call',
    params: {
      name: 'create_envelope',
      arguments: {
        template: ENVELOPE_ID,
        signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
        merge_data: { company: 'Acme' },
      },
    },
  });
  await waitFor(() => received === 1, 'the create to reach the API', 15_000);
  /** The answer to the create, as the client reads it. */
  const answer = () => {
    const line = run.output.stdout.split('\n').find((text) => text.includes('"id":2'));
    return line === undefined ? undefined : (JSON.parse(line) as { result: Record<string, unknown> }).result;
  };
  return { child, run, answer };
}

describe('esign mcp stopping with a create on the wire', () => {
  it('a first SIGTERM: the create finishes, its answer is written, then the server exits', async () => {
    const { child, run, answer } = await serveAndCreate();
    child.kill('SIGTERM');
    await waitFor(() => run.output.stderr.includes('stopping'), 'the server to say it is stopping');
    expect(answer()).toBeUndefined();
    release();
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(answer()?.isError).not.toBe(true);
    expect(JSON.stringify(answer())).toContain(ENVELOPE_ID);
    expect(received).toBe(1);
  });

  it('the client closes standard input: the create finishes and its answer is still written', async () => {
    const { child, run, answer } = await serveAndCreate();
    child.stdin.end();
    release();
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.stringify(answer())).toContain(ENVELOPE_ID);
  });

  it('a second signal aborts it: the client and stderr are told its outcome is unknown', async () => {
    const { child, run, answer } = await serveAndCreate();
    child.kill('SIGTERM');
    await waitFor(() => run.output.stderr.includes('stopping'), 'the server to say it is stopping');
    child.kill('SIGTERM');
    const done = await run.done;
    release();
    expect(answer()?.isError).toBe(true);
    expect(JSON.stringify(answer())).toContain('outcome_unknown');
    expect(done.stderr).toContain('esign mcp: create_envelope: outcome_unknown: ');
    expect(done.stderr).toContain('the envelope may have been created');
  });
});
