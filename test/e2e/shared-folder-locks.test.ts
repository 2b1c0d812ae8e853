// One --output (or --state) in a folder that other containers and machines share, through the built
// binary: a live run's lock is never taken over from another PID namespace or another host (where
// its process id names nothing), and a crashed run's lock is taken over once its lease ran out. A
// second "container" is a PID namespace of its own (unshare), whose first process is 1, as every
// container's is; another host is a UTS namespace with another host name.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/fs/lock.js';
import { BIN, freshConfigDir, gather, type SpawnResult } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_shared_4c2e6a8b0d1f3e5a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

/** Whether this machine lets a test make PID and UTS namespaces (root on Linux, unshare installed). */
const canUnshare =
  process.platform === 'linux' &&
  spawnSync('unshare', ['--uts', '--pid', '--fork', '--mount-proc', 'true']).status === 0;

/** Emails received, and a gate that holds every answer until it opens. */
let received: string[] = [];
let open = () => {};
let opened = Promise.resolve();
let envelopes = 0;
let server: Server;
let baseUrl: string;

function closeGate(): void {
  opened = new Promise<void>((resolve) => {
    open = resolve;
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', async () => {
      received.push((JSON.parse(body) as { signatory: { email: string } }).signatory.email);
      await opened;
      const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(++envelopes).padStart(5, '0')}`;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          success: true,
          data: {
            envelope_id: id,
            signing_url: `https://sign.example.com/s/${id}`,
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
afterAll(() => {
  open();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  received = [];
  closeGate();
});

const EMAILS = ['a@example.com', 'b@example.com', 'c@example.com'];

function sharedFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-shared-'));
  const input = join(dir, 'people.jsonl');
  writeFileSync(
    input,
    `${EMAILS.map((email) => JSON.stringify({ signatory: { name: 'A', email } })).join('\n')}\n`,
  );
  return { dir, input, output: join(dir, 'results.jsonl') };
}

const batchArgs = (files: { input: string; output: string }, ...more: string[]) => [
  'envelope',
  'batch',
  files.input,
  '--template',
  TEMPLATE,
  '--concurrency',
  '1',
  '--output',
  files.output,
  ...more,
];

const env = () => ({
  PATH: process.env.PATH ?? '',
  HOME: tmpdir(),
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ESIGN_BASE_URL: baseUrl,
  ESIGN_TOKEN: TOKEN,
});

type Child = ChildProcess & { stdout: Readable; stderr: Readable };

/**
 * The binary as the first process of a container of its own: a new PID namespace (and with `host`,
 * a new host name). It dies with the unshare that runs it.
 */
function inContainer(args: string[], host?: string) {
  const node = [process.execPath, BIN, ...args];
  const command = host
    ? [
        '--uts',
        '--pid',
        '--fork',
        '--mount-proc',
        '--kill-child',
        'sh',
        '-c',
        `hostname ${host} && exec "$@"`,
        'sh',
        ...node,
      ]
    : ['--pid', '--fork', '--mount-proc', '--kill-child', ...node];
  const child = spawn('unshare', command, { env: env(), stdio: ['ignore', 'pipe', 'pipe'] }) as Child;
  return { child, ...gather(child, 60_000) };
}

const run = (args: string[]): Promise<SpawnResult> => inContainer(args).done;

describe.runIf(canUnshare)('a lock in a folder that containers and machines share', () => {
  it('a run in another PID namespace is in progress, not gone: with --resume or without, a second run sends nothing', async () => {
    const files = sharedFolder();
    const first = inContainer(batchArgs(files));
    await waitFor(() => received.length === 1, 'the first run to send its first record', 20_000);

    for (const more of [['--resume'], []]) {
      const second = await run(batchArgs(files, ...more));
      expect(second.code, second.stderr).toBe(2);
      // Both are process 1, each in its own namespace: the id names nothing across them.
      expect(second.stderr).toContain('Another esign batch (process 1) is writing to --output');
      expect(second.stderr).toContain('a run is in progress on ');
      expect(second.stderr).not.toContain('did not finish');
      expect(received).toEqual([EMAILS[0]]);
    }

    open();
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    expect(received.sort()).toEqual(EMAILS);
    expect(existsSync(`${files.output}.lock`)).toBe(false);
  }, 60_000);

  it('a run that crashed on another host holds its lock until its lease runs out, then a resume sends no one a second envelope', async () => {
    const files = sharedFolder();
    const first = inContainer(batchArgs(files), 'far-away');
    await waitFor(() => received.length === 1, 'the first run to send its first record', 20_000);
    first.child.kill('SIGKILL'); // the machine is gone: its lock stays, with a fresh lease
    await first.done;
    const lock = readFileSync(`${files.output}.lock`, 'utf8');
    expect(lock).toContain('host far-away\n');

    const refused = await run(batchArgs(files, '--resume'));
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('a run is in progress on far-away since ');
    expect(received).toEqual([EMAILS[0]]);

    // Nobody renewed it for longer than the lease: the run on far-away is gone.
    const past = new Date(Date.now() - LEASE_MS - 5_000);
    utimesSync(`${files.output}.lock`, past, past);
    open();
    const resumed = await run(batchArgs(files, '--resume'));
    // The record in flight when far-away died is unknown, never sent again by itself.
    expect(resumed.code, resumed.stderr).toBe(8);
    expect(resumed.stderr).toContain('1 record has an unknown outcome');
    expect(received.sort()).toEqual(EMAILS);
  }, 60_000);

  it('two sandboxes on one --state file in two containers: the second refuses to start', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'esign-shared-state-')), 'sandbox.json');
    const sandboxArgs = ['sandbox', '--port', '0', '--state', state, '--json'];
    const first = inContainer(sandboxArgs);
    await waitFor(() => first.output.stdout.includes('base_url'), 'the first sandbox to start', 20_000);
    const second = await run(sandboxArgs);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`The state file ${state} is in use by another sandbox (process 1) on `);
    first.child.kill('SIGKILL'); // unshare --fork ignores SIGTERM; --kill-child stops the sandbox with it
    await first.done;
  }, 60_000);
});
