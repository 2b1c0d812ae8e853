// The --output lock under a race, as users meet it: a stale lock, and four batch runs on that
// --output started at once, through the built binary against a server on 127.0.0.1. The server
// holds every answer until the other three runs have exited, so a second run that got through would
// be sending at the same time: exactly one run may proceed, the other three are refused naming it,
// and no signatory gets two envelopes. That the takeover itself is atomic is raced in
// test/unit/lock.test.ts; here one round per kind of stale lock (a dead process; on Linux an id now
// naming another process, and a lock from another boot) proves the batch takes the lock before its
// first request, keeps it to the end, and names the owner.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';

const TOKEN = 'tok_race_3f9a1c7e5b2d4a6c';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const RUNS = 4;
const onLinux = process.platform === 'linux' && existsSync('/proc/self/stat');
/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
const startedAt = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19]);
const thisBoot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
/** Stale locks a run killed with kill -9 leaves, as the next runs find them. */
function staleLocks(): string[] {
  // A process id that cannot exist.
  const locks = ['2147483646\n6b1d0c9e2f7a4b3c8d5e1f0a\n'];
  if (!onLinux) return locks;
  // This test's process is running, but is not the owner: another start time, or another boot.
  const start = startedAt(process.pid);
  locks.push(
    `${process.pid}\n6b1d0c9e2f7a4b3c8d5e1f0b\nboot ${thisBoot()}\nstart ${start + 12_345}\n`,
    `${process.pid}\n6b1d0c9e2f7a4b3c8d5e1f0c\nboot 00000000-0000-4000-8000-000000000000\nstart ${start}\n`,
  );
  return locks;
}
const RECORDS = 3;
/** Only reached when the lock let two runs through (both wait for the others to exit). */
const GATE_FALLBACK_MS = 10_000;

/** Signatory emails the server received, in order, and the gate that holds its answers. */
let received: string[] = [];
let gate: { open: () => void; opened: Promise<void> };
let envelopes = 0;
let server: Server;
let baseUrl: string;

function newGate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const timer = setTimeout(open, GATE_FALLBACK_MS);
  return {
    open: () => {
      clearTimeout(timer);
      open();
    },
    opened,
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', async () => {
      if (req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not here"}');
        return;
      }
      const email = (JSON.parse(body) as { signatory: { email: string } }).signatory.email;
      received.push(email);
      await gate.opened;
      const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(++envelopes).padStart(5, '0')}`;
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${envelopes}` });
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

interface Run {
  pid: number;
  code: number | null;
  stderr: string;
}

function start(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise<Run>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ pid: child.pid ?? -1, code, stderr });
    }),
  );
  return { child, done };
}

describe('envelope batch: a stale --output lock raced by four runs', () => {
  it('never lets more than one run proceed, and creates no envelope twice (a round per kind of stale lock)', async () => {
    const people = Array.from({ length: RECORDS }, (_, i) => `p${i}@example.com`);
    for (const [round, stale] of staleLocks().entries()) {
      const dir = mkdtempSync(join(tmpdir(), 'esign-race-'));
      const file = join(dir, 'people.jsonl');
      writeFileSync(
        file,
        people.map((email, i) => JSON.stringify({ signatory: { name: `P ${i}`, email } })).join('\n'),
      );
      const output = join(dir, 'results.jsonl');
      writeFileSync(`${output}.lock`, stale);
      received = [];
      gate = newGate();
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ESIGN_TOKEN: TOKEN,
        ESIGN_BASE_URL: baseUrl,
        ESIGN_CONFIG_DIR: join(dir, 'config'),
      };
      // --resume: a run that found the output already written would go on; only the lock stops it.
      const args = ['envelope', 'batch', file, '--template', TEMPLATE, '--output', output, '--resume'];
      const runs = Array.from({ length: RUNS }, () => start(args, env));
      let exited = 0;
      for (const run of runs) {
        void run.done.then(() => {
          if (++exited === RUNS - 1) gate.open();
        });
      }
      const results = await Promise.all(runs.map((run) => run.done));
      const context = `round ${round + 1}: ${JSON.stringify(results)}`;

      const proceeded = results.filter((run) => run.code === 0);
      expect(proceeded, context).toHaveLength(1);
      const winner = proceeded[0] as Run;
      for (const run of results.filter((other) => other !== winner)) {
        expect(run.code, context).toBe(2);
        expect(run.stderr, context).toContain(
          `Another esign batch (process ${winner.pid}) is writing to --output`,
        );
      }
      // Every signatory once at the server and once in the results.
      expect([...received].sort(), context).toEqual([...people].sort());
      const lines = readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text) as { line: number; ok: boolean });
      expect(lines.map((line) => line.line).sort(), context).toEqual([1, 2, 3]);
      expect(lines.every((line) => line.ok)).toBe(true);
      expect(existsSync(`${output}.lock`), context).toBe(false);
    }
  }, 240_000);
});
