// A lock left by a crash whose process id is alive again, through the built binary: after a reboot
// or in a container the id names another process, or the caller itself (a container's process 1,
// restarted). Such a lock is stale: `batch --resume` proceeds, and `login` neither waits nor fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_LOCK_WAIT_MS } from '../../src/config/store.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { BIN, freshConfigDir, gather, runBin, type SpawnResult } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const onLinux = process.platform === 'linux' && existsSync('/proc/self/stat');

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
const startedAt = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19];
const thisBoot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

/**
 * A lock naming this test process (running, so an id check alone calls it busy) as it would read
 * had its id been reused: this boot, another start time.
 */
const reusedIdLock = () =>
  `${process.pid}\n6b1d0c9e2f7a4b3c8d5e1f0a\nboot ${thisBoot()}\nstart ${Number(startedAt(process.pid)) + 12_345}\n`;

/**
 * Runs the binary so that a lock naming the binary's own process is left at `lockPath` first: a
 * shell writes the lock with its id, then exec()s node, which keeps that id. What a container's
 * process 1 meets when it restarts after a crash.
 */
function runAsOwnLockOwner(
  lockPath: string,
  args: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<SpawnResult & { pid: number }> {
  const script = 'printf "%s\\n0123456789abcdef01234567\\n" "$$" > "$LOCK_PATH" && exec "$@"';
  const child = spawn('/bin/sh', ['-c', script, 'sh', process.execPath, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), LOCK_PATH: lockPath, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcess & { stdout: Readable; stderr: Readable; stdin: NodeJS.WritableStream };
  child.stdin.end(stdin);
  return gather(child, 30_000).done.then((result) => ({ ...result, pid: child.pid ?? -1 }));
}

const runBinary = (args: string[], env: Record<string, string>, stdin = '') =>
  runBin(args, { env, stdin, timeoutMs: 30_000 });

function batchFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-stale-lock-'));
  const input = join(dir, 'people.jsonl');
  const emails = ['a@example.com', 'b@example.com', 'c@example.com'];
  writeFileSync(
    input,
    emails
      .map((email) =>
        JSON.stringify({
          merge_data: { company: 'Acme Corp', role: 'Engineer' },
          signatory: { name: 'A', email },
        }),
      )
      .join('\n'),
  );
  return { dir, input, output: join(dir, 'r.jsonl'), emails };
}

const batchEnv = () => ({
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ESIGN_BASE_URL: sandbox.baseUrl,
  ESIGN_TOKEN: tokenOf(sandbox),
});

/** The batch ran to its end: every record created once, results written, the lock released. */
function expectCompleted(run: SpawnResult, files: ReturnType<typeof batchFiles>, from: number) {
  expect(run.stderr).not.toContain('Another esign batch');
  expect(run.code, run.stderr).toBe(0);
  const sent = sandbox
    .requests()
    .slice(from)
    .map((request) => (JSON.parse(request.body) as { signatory: { email: string } }).signatory.email);
  expect(sent.sort()).toEqual(files.emails);
  const lines = readFileSync(files.output, 'utf8').trim().split('\n');
  expect(lines.map((line) => (JSON.parse(line) as { ok: boolean }).ok)).toEqual([true, true, true]);
  expect(existsSync(`${files.output}.lock`)).toBe(false);
}

/** The batch that resumes into `files.output`, whose lock the test left behind. */
function resumeArgs(files: { input: string; output: string }): string[] {
  return ['envelope', 'batch', files.input, '--template', ACME_OFFER, '--output', files.output, '--resume'];
}

describe.runIf(onLinux)('a stale lock whose process id is alive', () => {
  it('envelope batch --output --resume takes over a lock naming the caller itself, and proceeds', async () => {
    const files = batchFiles();
    const from = sandbox.requests().length;
    const args = resumeArgs(files);
    const run = await runAsOwnLockOwner(`${files.output}.lock`, args, batchEnv());
    expect(run.stderr).not.toContain(`(process ${run.pid})`);
    expectCompleted(run, files, from);
  });

  it('envelope batch --output --resume takes over a lock whose id now names another process', async () => {
    const files = batchFiles();
    writeFileSync(`${files.output}.lock`, reusedIdLock());
    const from = sandbox.requests().length;
    const args = resumeArgs(files);
    const run = await runBinary(args, batchEnv());
    expectCompleted(run, files, from);
  });

  it.each([
    ['naming the caller itself', 'own'],
    ['whose id now names another process', 'reused'],
  ])(
    'login --with-token with a config lock %s neither waits nor fails',
    async (_, kind) => {
      const dir = freshConfigDir();
      mkdirSync(dir, { recursive: true });
      const lockPath = join(dir, 'config.json.lock');
      const args = ['login', '--with-token', '--profile', 'ci'];
      const env = { ESIGN_CONFIG_DIR: dir };
      const started = Date.now();
      let run: SpawnResult;
      if (kind === 'own') {
        run = await runAsOwnLockOwner(lockPath, args, env, 'tok_ci_0123456789abcdef');
      } else {
        writeFileSync(lockPath, reusedIdLock());
        run = await runBinary(args, env, 'tok_ci_0123456789abcdef');
      }
      const took = Date.now() - started;
      expect(run.stderr).toContain('Token stored');
      expect(run.code).toBe(0);
      expect(took).toBeLessThan(CONFIG_LOCK_WAIT_MS);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({
        profiles: { ci: { token: 'tok_ci_0123456789abcdef', token_stored_at: expect.any(String) } },
      });
      expect(existsSync(lockPath)).toBe(false);
    },
    30_000,
  );
});
