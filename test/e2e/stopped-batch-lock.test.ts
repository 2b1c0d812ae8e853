// A batch stopped past its lease (Ctrl-Z, SIGSTOP, a suspended CI job), through the built binary
// against a server on 127.0.0.1: a `--resume` run takes its --output lock, as designed, and sends
// the records nobody sent. When the stopped batch continues, it must start no new record (its
// renewal timer has not run yet: it learns the loss before its next request), finish what it had
// in flight, and stop with exit 9. Every signatory gets exactly one envelope.
//
// The lease (60 s) is not waited out: the test sets the lock's modification time back past it,
// which is all a taker reads. The stopped batch's own clocks cannot be set back, so the test lets
// them pass the lock's confirmation window (LOCK_SURE_MS, 2 s) while it stands still, as a stop
// past the lease always does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS, LOCK_SURE_MS } from '../../src/fs/lock.js';
import { BIN, gather, type SpawnResult } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_stopped_5c2e8a1f9b3d7e4a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const RECORDS = 40;
/** The first run is stopped when the server has this many of its requests. */
const STOP_AT = 5;

/** The signatory of every create the server answered, in order, and the envelope id it made. */
let created: { email: string; id: string }[] = [];
/** Called with each request's count as it arrives, before it is answered. */
let onRequest: (count: number) => void = () => {};
let server: Server;
let baseUrl: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const email = (JSON.parse(body) as { signatory: { email: string } }).signatory.email;
      const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(created.length + 1).padStart(5, '0')}`;
      created.push({ email, id });
      onRequest(created.length);
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${created.length}` });
      res.end(
        JSON.stringify({
          success: true,
          data: {
            envelope_id: id,
            signing_url: `https://sign.example.com/s/${id}`,
            status: 'ready',
            created_at: '2026-11-22T10:00:00.000Z',
            expires_at: '2026-12-22T10:00:00.000Z',
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  }
});

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { stdout: Readable; stderr: Readable };
  children.push(child);
  return { child, ...gather(child, 60_000) };
}

describe('envelope batch stopped past its lease while a --resume run takes its --output', () => {
  it('starts no new record when it continues: one envelope per record, and exit 9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-stopped-'));
    const input = join(dir, 'people.jsonl');
    const people = Array.from({ length: RECORDS }, (_, i) => `p${i}@example.com`);
    writeFileSync(
      input,
      people.map((email, i) => JSON.stringify({ signatory: { name: `P ${i}`, email } })).join('\n'),
    );
    const output = join(dir, 'results.jsonl');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      ESIGN_TOKEN: TOKEN,
      ESIGN_BASE_URL: baseUrl,
      ESIGN_CONFIG_DIR: join(dir, 'config'),
    };
    const args = ['envelope', 'batch', input, '--template', TEMPLATE, '--output', output];
    created = [];

    // The first run, stopped the moment its STOP_AT-th request arrives (before it is answered).
    let stoppedAt = 0;
    const first = start(args, env);
    onRequest = (count) => {
      if (count === STOP_AT) {
        first.child.kill('SIGSTOP');
        stoppedAt = Date.now();
      }
    };
    await waitFor(() => stoppedAt > 0, 'the first run to be stopped', 30_000);
    onRequest = () => {};

    // Its lease runs out (as after 60 s): a --resume run takes the lock and sends the rest.
    const past = new Date(Date.now() - LEASE_MS - 5_000);
    utimesSync(`${output}.lock`, past, past);
    const resumed = await start([...args, '--resume'], env).done;
    expect(resumed.stderr).not.toContain('Another esign batch');
    // The first run's requests in flight are unknown to it: never sent again by itself.
    expect(resumed.code, resumed.stderr).toBe(8);

    // The stopped run has stood still past its confirmation window (a stop past the lease always
    // has), then continues.
    await waitFor(() => Date.now() - stoppedAt > LOCK_SURE_MS + 100, 'the stop to last past the window');
    first.child.kill('SIGCONT');
    const continued: SpawnResult = await first.done;

    expect(continued.code, continued.stderr).toBe(9);
    expect(continued.stderr).toContain('Another run took over the lock on --output');
    // The continued run started no new record: what reached the server after it continued are only
    // requests it had started before it was stopped (their bytes still on their way), which the
    // resumed run left as unknown. Every signatory got exactly one envelope.
    expect(created.length, continued.stderr).toBe(RECORDS);
    expect(created.map((c) => c.email).sort()).toEqual([...people].sort());
    // Every envelope made is in the results file, whichever run wrote it.
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { ok: boolean; envelope_id?: string });
    const written = new Set(lines.flatMap((line) => (line.ok ? [line.envelope_id] : [])));
    expect(created.filter((c) => !written.has(c.id))).toEqual([]);
  }, 90_000);
});
