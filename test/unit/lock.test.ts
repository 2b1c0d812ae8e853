// The lock beside a file: taking over a stale lock is atomic (racing processes never both proceed),
// a live owner is busy or waited for, and a process releases only its own lock.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, releaseLock } from '../../src/io/lock.js';
import { bundleHelper } from '../helpers/spawn.js';

const errors = {
  busy: (owner: number) => new Error(`busy ${owner}`),
  failed: (error: unknown) => new Error(`failed: ${(error as Error).message}`),
};

let childScript = '';

beforeAll(async () => {
  childScript = await bundleHelper('lock-child', mkdtempSync(join(tmpdir(), 'esign-lock-')));
});

/** The id of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

interface Racer {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  exit: Promise<number | null>;
  next(): Promise<string>;
}

function startRacer(lockPath: string, waitMs: number, log = ''): Racer {
  const child = spawn(process.execPath, [childScript, lockPath, String(waitMs), log]);
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      lines.push(line);
      waiters.shift()?.(line);
    }
  });
  let read = 0;
  return {
    child,
    lines,
    exit: new Promise((done) => child.on('close', (code) => done(code))),
    next: () => {
      const line = lines[read];
      if (line !== undefined) {
        read++;
        return Promise.resolve(line);
      }
      return new Promise((done) =>
        waiters.push((line) => {
          read++;
          done(line);
        }),
      );
    },
  };
}

describe('acquireLock', () => {
  it('a stale lock raced by 4 processes, 30 times: exactly one takes it over, the others are busy with its id', async () => {
    for (let round = 0; round < 30; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'esign-lock-race-'));
      const lockPath = join(dir, 'out.jsonl.lock');
      writeFileSync(lockPath, `${deadPid()}\n`);
      const racers = Array.from({ length: 4 }, () => startRacer(lockPath, 0));
      for (const racer of racers) expect(await racer.next()).toBe('ready');
      for (const racer of racers) racer.child.stdin.write('go\n');
      const outcomes = await Promise.all(racers.map((racer) => racer.next()));
      const winners = racers.filter((_, i) => outcomes[i] === 'acquired');
      expect(
        outcomes.filter((line) => line === 'acquired'),
        `round ${round}: ${outcomes}`,
      ).toHaveLength(1);
      const winner = winners[0] as Racer;
      for (const [i, racer] of racers.entries()) {
        if (racer !== winner) expect(outcomes[i]).toBe(`busy ${winner.child.pid}`);
      }
      expect(readFileSync(lockPath, 'utf8')).toMatch(new RegExp(`^${winner.child.pid}\\n`));
      winner.child.stdin.end();
      expect(await Promise.all(racers.map((racer) => racer.exit))).toEqual(
        racers.map((racer) => (racer === winner ? 0 : 3)),
      );
      expect(readdirSync(dir)).toEqual([]); // no lock, guard or draft left behind
    }
  }, 180_000);

  it('with waitMs, 4 processes racing for a stale lock all get it in turn, never two at once', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'esign-lock-wait-'));
      const lockPath = join(dir, 'config.json.lock');
      writeFileSync(lockPath, `${deadPid()}\nleft by a crash\n`);
      const log = join(dir, 'log');
      const racers = Array.from({ length: 4 }, () => startRacer(lockPath, 20_000, log));
      for (const racer of racers) expect(await racer.next()).toBe('ready');
      for (const racer of racers) racer.child.stdin.write('go\n');
      // Each holder is let go as soon as it says it holds the lock.
      await Promise.all(
        racers.map(async (racer) => {
          expect(await racer.next()).toBe('acquired');
          racer.child.stdin.end();
        }),
      );
      expect(await Promise.all(racers.map((racer) => racer.exit))).toEqual([0, 0, 0, 0]);
      // Every process entered and left before the next one entered.
      const events = readFileSync(log, 'utf8').trim().split('\n');
      expect(events, `round ${round}`).toHaveLength(8);
      for (let i = 0; i < 8; i += 2) {
        expect(events[i]).toMatch(/^enter \d+$/);
        expect(events[i + 1]).toBe(`leave ${(events[i] as string).slice(6)}`);
      }
      expect(existsSync(lockPath)).toBe(false);
    }
  }, 180_000);

  it('a live owner is busy at once without waitMs, and waited for with it', async () => {
    const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');
    await acquireLock(lockPath, errors);
    await expect(acquireLock(lockPath, errors)).rejects.toThrow(`busy ${process.pid}`);
    await expect(acquireLock(lockPath, errors, { waitMs: 30 })).rejects.toThrow(`busy ${process.pid}`);
    const waiting = acquireLock(lockPath, errors, { waitMs: 20_000 });
    await releaseLock(lockPath);
    await waiting;
    expect(readFileSync(lockPath, 'utf8')).toMatch(new RegExp(`^${process.pid}\\n[0-9a-f]{24}\\n$`));
    await releaseLock(lockPath);
    expect(existsSync(lockPath)).toBe(false);
  });

  it('an empty or junk lock left behind is taken over', async () => {
    for (const junk of ['', 'not a pid']) {
      const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');
      writeFileSync(lockPath, junk);
      await acquireLock(lockPath, errors);
      expect(readFileSync(lockPath, 'utf8')).toMatch(new RegExp(`^${process.pid}\\n`));
      await releaseLock(lockPath);
    }
  });

  it('a lock in a missing folder is `failed`', async () => {
    const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'no', 'x.lock');
    await expect(acquireLock(lockPath, errors)).rejects.toThrow(/^failed: ENOENT/);
  });

  it('releaseLock leaves a lock this process does not hold', async () => {
    const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');
    writeFileSync(lockPath, '1\nsomeone else\n');
    await releaseLock(lockPath);
    expect(readFileSync(lockPath, 'utf8')).toBe('1\nsomeone else\n');
  });
});
