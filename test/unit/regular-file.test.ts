// The files esign opens in folders others may write are decided at the open (src/fs/regular-file.ts):
// a named pipe is refused at once (with or without someone at its other end), never waited on; a
// sparse file far larger than its kind is refused without being read; a regular file is read whole.
// Every opener of such files goes through it: the results file and journal (written and read back),
// locks, the config and the project file.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/batch/journal.js';
import { inspectTail } from '../../src/batch/previous-results.js';
import { acquireLock, type LockRecord } from '../../src/fs/lock.js';
import { openOwnFile } from '../../src/fs/ownership.js';
import {
  MAX_LOCK_BYTES,
  NotRegularFileError,
  readRegularFile,
  readRegularFileSync,
} from '../../src/fs/regular-file.js';

const canMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).status === 0;

function fifo(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'esign-fifo-')), 'pipe');
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo: ${made.stderr}`);
  return path;
}

/** Every opener, on `path`: each must refuse it (not hang: the test's timeout would say so). */
const openers: [string, (path: string) => Promise<unknown>][] = [
  ['readRegularFileSync', async (path) => readRegularFileSync(path, MAX_LOCK_BYTES)],
  ['readRegularFile', (path) => readRegularFile(path, MAX_LOCK_BYTES)],
  ['openOwnFile (results, journal)', async (path) => closeSync(openOwnFile(path, { mode: 0o600, env: {} }))],
  ['inspectTail (results read back)', (path) => inspectTail(path)],
  ['readJournal', (path) => readJournal(path)],
  [
    'acquireLock',
    (path) =>
      acquireLock(path, {
        busy: (owner: LockRecord) => new Error(`busy ${owner.pid}`),
        failed: (error: unknown) => error as Error,
      }),
  ],
];

describe.runIf(canMkfifo)('a named pipe where esign opens a file', () => {
  it.each(openers)('%s refuses it at once, naming it, when nobody is at its other end', async (_, opener) => {
    const path = fifo();
    const error = await opener(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotRegularFileError);
    expect((error as Error).message).toMatch(new RegExp(`^${path} is a named pipe \\(FIFO\\)`));
    expect((error as NotRegularFileError).exitCode).toBe(2);
  });

  it.each(openers)('%s refuses it at once when someone holds its other end open', async (_, opener) => {
    const path = fifo();
    // Another process at both ends (read and write), so that an open for either would go through.
    const holder = spawn('sh', ['-c', `exec 3<>'${path}'; sleep 30`], { stdio: 'ignore' });
    try {
      // Without blocking: succeeds only once the holder has it open.
      for (let tries = 0; ; tries++) {
        try {
          closeSync(openSync(path, 'w+'));
          break;
        } catch (error) {
          if (tries > 500) throw error;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      const error = await opener(path).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(NotRegularFileError);
      expect((error as Error).message).toContain('is a named pipe (FIFO)');
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('a file far larger than its kind ever is', () => {
  it('a sparse lock of 300 MB is refused from its size, never read', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'esign-sparse-')), 'x.lock');
    writeFileSync(path, '4242\n');
    truncateSync(path, 300 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    const error = await readRegularFile(path, MAX_LOCK_BYTES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotRegularFileError);
    expect((error as Error).message).toBe(
      `${path} holds 300 MiB, more than such a file ever holds (65536 bytes), not a regular file: esign does not use it.`,
    );
    expect(() => readRegularFileSync(path, MAX_LOCK_BYTES)).toThrow(NotRegularFileError);
    await expect(
      acquireLock(path, { busy: () => new Error('busy'), failed: (e: unknown) => e as Error }),
    ).rejects.toBeInstanceOf(NotRegularFileError);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a regular file within the bound is read whole', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'esign-regular-')), 'x');
    const text = `${'é'.repeat(20_000)}\n`;
    writeFileSync(path, text);
    expect((await readRegularFile(path, MAX_LOCK_BYTES)).text).toBe(text);
    expect(readRegularFileSync(path, MAX_LOCK_BYTES).text).toBe(text);
    expect(() => readRegularFileSync(path, 1_000)).toThrow('holds 40001 bytes');
  });
});
