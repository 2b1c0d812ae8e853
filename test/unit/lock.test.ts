// The lock beside a file: taking over a stale lock is atomic (racing processes never both proceed),
// a live owner is busy or waited for, and a process releases only its own lock.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  acquireLock,
  heldWhere,
  LEASE_MS,
  LEASE_REFRESH_MS,
  LOCK_SURE_MS,
  LockLostError,
  type LockRecord,
  lockHeld,
  lockLost,
  ownerIsGone,
  type ProcessView,
  parseLockRecord,
  releaseLock,
} from '../../src/fs/lock.js';
import { processStartTime, startTimeFromStat } from '../../src/fs/process-identity.js';
import { bundleHelper } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const errors = {
  busy: (owner: LockRecord) => new Error(`busy ${owner.pid}`),
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

// What the system says of a process, read here without the module under test.
const onLinux = process.platform === 'linux' && existsSync('/proc/self/stat');
const thisBoot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
/** Field 22 of /proc/<pid>/stat; the name in field 2 is `(node)` or similar, without spaces. */
const startedAt = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19];
const OTHER_BOOT = '00000000-0000-4000-8000-000000000000';

/** Locks left behind, one of each kind a takeover must be atomic for (a racer is not the test). */
function staleLocks(): Array<[kind: string, text: string]> {
  const kinds: Array<[string, string]> = [['a dead process', `${deadPid()}\n`]];
  if (!onLinux) return kinds;
  const start = Number(startedAt(process.pid));
  kinds.push(
    ['a reused id', `${process.pid}\nleft\nboot ${thisBoot()}\nstart ${start + 12_345}\n`],
    ['another boot', `${process.pid}\nleft\nboot ${OTHER_BOOT}\nstart ${start}\n`],
  );
  return kinds;
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

/** One race of 4 processes for the stale lock `stale`; how many of them found it before trying. */
async function raceOnce(stale: string, round: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'esign-lock-race-'));
  const lockPath = join(dir, 'out.jsonl.lock');
  writeFileSync(lockPath, stale);
  const racers = Array.from({ length: 4 }, () => startRacer(lockPath, 0));
  for (const racer of racers) expect(await racer.next()).toBe('ready');
  for (const racer of racers) racer.child.stdin.write('go\n');
  const seen = await Promise.all(racers.map((racer) => racer.next()));
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
  const stalePid = stale.split('\n')[0];
  return seen.filter((line) => line === `saw ${stalePid}`).length;
}

describe('acquireLock', () => {
  // Taking over is atomic whatever made the lock stale: for each kind, rounds in which at least
  // two racers found the stale lock before trying (a real race, not racers one after another)
  // until RACES of them; each round checks one winner, the others busy with its id, nothing left.
  const RACES = 2;
  it.each(staleLocks())(
    'a stale lock (%s) raced by 4 processes: exactly one takes it over, the others are busy with its id',
    async (_, stale) => {
      let races = 0;
      for (let round = 0; round < 10 && races < RACES; round++) {
        const contenders = await raceOnce(stale, round);
        if (contenders >= 2) races++;
      }
      expect(races).toBe(RACES);
    },
    60_000,
  );

  // Waiting: after the takeover each holder hands over to one waiter at a time. Two rounds (a dead
  // owner, then a reused id where /proc tells it) make six hand-overs among four live processes.
  it('with waitMs, 4 processes racing for a stale lock all get it in turn, never two at once', async () => {
    const stale = staleLocks().slice(0, 2);
    if (stale.length === 1) stale.push(['a dead process', `${deadPid()}\nleft by a crash\n`]);
    for (const [round, [, text]] of stale.entries()) {
      const dir = mkdtempSync(join(tmpdir(), 'esign-lock-wait-'));
      const lockPath = join(dir, 'config.json.lock');
      writeFileSync(lockPath, text);
      const log = join(dir, 'log');
      const racers = Array.from({ length: 4 }, () => startRacer(lockPath, 20_000, log));
      for (const racer of racers) expect(await racer.next()).toBe('ready');
      for (const racer of racers) racer.child.stdin.write('go\n');
      // Each holder is let go as soon as it says it holds the lock.
      await Promise.all(
        racers.map(async (racer) => {
          expect(await racer.next()).toMatch(/^saw /);
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
    // The owner's id and nonce, then (where the system tells them) its boot and start time, then its
    // host, its PID namespace (Linux) and since when it holds the lock.
    expect(readFileSync(lockPath, 'utf8')).toMatch(
      new RegExp(
        `^${process.pid}\\n[0-9a-f]{24}\\n(boot [0-9a-f-]{36}\\nstart \\d+\\n)?host \\S+\\n(ns pid:\\[\\d+\\]\\n)?since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`,
      ),
    );
    await releaseLock(lockPath);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("two takers in this process at once: one gets the lock, the other finds it this process's own, busy", async () => {
    for (const left of [undefined, `${deadPid()}\n`, `${process.pid}\nleft by a crash\n`]) {
      const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');
      if (left !== undefined) writeFileSync(lockPath, left);
      const outcomes = await Promise.allSettled([
        acquireLock(lockPath, errors),
        acquireLock(lockPath, errors),
      ]);
      expect(outcomes.map((outcome) => outcome.status).sort(), String(left)).toEqual([
        'fulfilled',
        'rejected',
      ]);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect((refused.reason as Error).message).toBe(`busy ${process.pid}`);
      await releaseLock(lockPath);
      expect(existsSync(lockPath)).toBe(false);
    }
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

describe('ownerIsGone: when a lock is stale', () => {
  const view: ProcessView = {
    pid: 100,
    bootId: 'boot-now',
    isRunning: (pid) => pid === 100 || pid === 200,
    startTime: (pid) => ({ 100: '5000', 200: '7000' })[pid],
  };
  const table: Array<[string, LockRecord, boolean, boolean]> = [
    ['no process id (empty or junk)', { pid: Number.NaN }, false, true],
    ['process id 0', { pid: 0 }, false, true],
    ['the caller itself, which did not write it', { pid: 100 }, false, true],
    [
      'the caller itself, same start time, not written by it',
      { pid: 100, bootId: 'boot-now', startTime: '5000' },
      false,
      true,
    ],
    ['the caller itself, which wrote it', { pid: 100, bootId: 'boot-now', startTime: '5000' }, true, false],
    ['another boot, the id running now', { pid: 200, bootId: 'boot-before', startTime: '7000' }, false, true],
    ['not running', { pid: 300, bootId: 'boot-now', startTime: '1' }, false, true],
    [
      'running, another start time (id reused)',
      { pid: 200, bootId: 'boot-now', startTime: '6999' },
      false,
      true,
    ],
    [
      'running, same start time: the owner',
      { pid: 200, bootId: 'boot-now', startTime: '7000' },
      false,
      false,
    ],
    ['old format (id and nonce), running', { pid: 200 }, false, false],
    ['old format (id and nonce), not running', { pid: 300 }, false, true],
  ];
  it.each(table)('%s', (_, lock, ours, gone) => {
    expect(ownerIsGone(lock, ours, view)).toBe(gone);
  });

  it('an owner on another host, boot or PID namespace is held until its lease runs out, whatever its id names here', () => {
    const here: ProcessView = { ...view, host: 'ci-7', pidNamespace: 'pid:[1]' };
    const lock = (more: Partial<LockRecord>): LockRecord => ({
      pid: 100,
      bootId: 'boot-now',
      startTime: '1',
      host: 'ci-7',
      pidNamespace: 'pid:[1]',
      ageMs: 1_000,
      ...more,
    });
    // Here, in this namespace: its id is judged (this process's own id, not written by it: gone).
    expect(ownerIsGone(lock({}), false, here)).toBe(true);
    expect(ownerIsGone(lock({ pid: 300 }), false, here)).toBe(true);
    // Another container (process 1 in each), another host, another boot: its id names nothing here.
    expect(ownerIsGone(lock({ pidNamespace: 'pid:[2]' }), false, here)).toBe(false);
    expect(ownerIsGone(lock({ host: 'ci-8', pid: 300 }), false, here)).toBe(false);
    expect(ownerIsGone(lock({ bootId: 'boot-before' }), false, here)).toBe(false);
    // Not renewed for longer than the lease: gone, wherever it was.
    expect(ownerIsGone(lock({ host: 'ci-8', ageMs: LEASE_MS + 1 }), false, here)).toBe(true);
    expect(ownerIsGone(lock({ pid: 200, startTime: '7000', ageMs: LEASE_MS + 1 }), false, here)).toBe(true);
    // This process's own lock is never stale to it, however long since it was touched.
    expect(ownerIsGone(lock({ startTime: '5000', ageMs: LEASE_MS * 10 }), true, here)).toBe(false);
  });

  it('reads where a lock is held, and says so', () => {
    const text =
      '4242\n9f3c\nboot b-1\nstart 1\nhost ci-7\nns pid:[4026531836]\nsince 2026-11-27T10:42:03Z\n';
    const record = parseLockRecord(text);
    expect(record).toMatchObject({
      host: 'ci-7',
      pidNamespace: 'pid:[4026531836]',
      since: '2026-11-27T10:42:03Z',
    });
    expect(heldWhere(record)).toBe(' on ci-7 since 2026-11-27 10:42:03 UTC');
    expect(heldWhere(parseLockRecord('4242\n9f3c\n'))).toBe('');
    expect(heldWhere({ host: 'evil\u001b[2J' })).toBe(' on evil\\x1b[2J');
  });

  it('without boot id or start time (not Linux), liveness of the id decides', () => {
    const elsewhere: ProcessView = { ...view, bootId: undefined, startTime: () => undefined };
    expect(ownerIsGone({ pid: 200, bootId: 'boot-before', startTime: '1' }, false, elsewhere)).toBe(false);
    expect(ownerIsGone({ pid: 300, bootId: 'boot-before', startTime: '1' }, false, elsewhere)).toBe(true);
    expect(ownerIsGone({ pid: 100 }, false, elsewhere)).toBe(true);
  });

  it('reads old and new lock texts', () => {
    expect(parseLockRecord('4242\n9f3c\n')).toEqual({ pid: 4242, bootId: undefined, startTime: undefined });
    expect(parseLockRecord('4242\n9f3c\nboot b-1\nstart 183527\n')).toEqual({
      pid: 4242,
      bootId: 'b-1',
      startTime: '183527',
    });
    expect(parseLockRecord('not a pid').pid).toBeNaN();
  });

  it('reads the start time after the last parenthesis, whatever the process is named', () => {
    const rest = 'S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 183527 20 21';
    expect(startTimeFromStat(`4242 (node) ${rest}`)).toBe('183527');
    expect(startTimeFromStat(`4242 (a (b) ) c) ${rest}`)).toBe('183527');
    expect(startTimeFromStat('4242 (node')).toBeUndefined();
  });

  it.runIf(onLinux)("knows this process's start time as /proc says it", () => {
    expect(processStartTime(process.pid)).toBe(startedAt(process.pid));
    expect(processStartTime(deadPid())).toBeUndefined();
  });
});

describe.runIf(onLinux)('acquireLock with a lock written by hand', () => {
  const lockFile = (text: string) => {
    const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');
    writeFileSync(lockPath, text);
    return lockPath;
  };
  /** The parent of this test process: running, and another process than this one. */
  const other = process.ppid;
  const otherStart = () => startedAt(other) as string;
  const fakeStart = () => String(Number(otherStart()) + 12_345);

  it.each([
    [
      'naming this process with another start time',
      () => `${process.pid}\nleft\nboot ${thisBoot()}\nstart 1\n`,
    ],
    ['naming this process (old format), which did not take it', () => `${process.pid}\nleft by a crash\n`],
    [
      'naming a running process with another start time (its id reused)',
      () => `${other}\nleft\nboot ${thisBoot()}\nstart ${fakeStart()}\n`,
    ],
    [
      'naming a running process, written in another boot',
      () => `${other}\nleft\nboot ${OTHER_BOOT}\nstart ${otherStart()}\n`,
    ],
  ])('a lock %s is taken over at once', async (_, text) => {
    const lockPath = lockFile(text());
    await acquireLock(lockPath, errors);
    const taken = readFileSync(lockPath, 'utf8');
    expect(taken).toMatch(
      new RegExp(
        `^${process.pid}\\n${taken.split('\n')[1]}\\nboot ${thisBoot()}\\nstart ${startedAt(process.pid)}\\nhost \\S+\\nns pid:\\[\\d+\\]\\nsince \\S+\\n$`,
      ),
    );
    expect(taken.split('\n')[1]).toMatch(/^[0-9a-f]{24}$/);
    await releaseLock(lockPath);
    expect(existsSync(lockPath)).toBe(false);
  });

  it.each([
    [
      'with its start time, in this boot',
      () => `${other}\nheld\nboot ${thisBoot()}\nstart ${otherStart()}\n`,
    ],
    ['in the old format (id and nonce)', () => `${other}\nheld\n`],
  ])('a lock naming a running process %s is busy', async (_, text) => {
    const lockPath = lockFile(text());
    await expect(acquireLock(lockPath, errors)).rejects.toThrow(`busy ${other}`);
    expect(readFileSync(lockPath, 'utf8')).toBe(text());
  });
});

describe('the lease of a held lock', () => {
  it('is renewed while the lock is held; a lock taken over meanwhile is known lost and left alone', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const lockPath = join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');
      await acquireLock(lockPath, errors);
      const past = new Date(Date.now() - LEASE_MS);
      utimesSync(lockPath, past, past);
      vi.advanceTimersByTime(LEASE_REFRESH_MS);
      await waitFor(() => Date.now() - statSync(lockPath).mtimeMs < LEASE_MS / 2, 'the lease to be renewed');
      expect(lockLost(lockPath)?.aborted).toBe(false);

      // Another process took it over (this one stood still past its lease): its lock is not touched.
      writeFileSync(lockPath, '1\nsomeone else\n');
      utimesSync(lockPath, past, past);
      vi.advanceTimersByTime(LEASE_REFRESH_MS);
      await waitFor(() => lockLost(lockPath)?.aborted === true, 'the loss to be noticed');
      expect(Math.abs(statSync(lockPath).mtimeMs - past.getTime())).toBeLessThan(1);
      await releaseLock(lockPath);
      expect(readFileSync(lockPath, 'utf8')).toBe('1\nsomeone else\n');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("lockHeld: whether the lock is this process's at this moment", () => {
  /** Runs `body` with the wall clock under the test's hand (the monotonic clock stays real). */
  async function withWallClock(body: (jump: (ms: number) => void) => Promise<void>) {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    try {
      await body((ms) => vi.setSystemTime(Date.now() + ms));
    } finally {
      vi.useRealTimers();
    }
  }
  const newLock = () => join(mkdtempSync(join(tmpdir(), 'esign-lock-')), 'x.lock');

  it('answers at once after a renewal; past LOCK_SURE_MS it looks at the lock and renews it first', async () => {
    await withWallClock(async (jump) => {
      const lockPath = newLock();
      await acquireLock(lockPath, errors);
      expect(lockHeld(lockPath)).toBe(true); // not a promise: nothing was read
      jump(LOCK_SURE_MS + 500);
      const text = readFileSync(lockPath, 'utf8');
      const looked = lockHeld(lockPath);
      expect(looked).toBeInstanceOf(Promise);
      await expect(looked).resolves.toBe(true);
      expect(Math.abs(statSync(lockPath).mtimeMs - Date.now())).toBeLessThan(1_000); // touched
      expect(readFileSync(lockPath, 'utf8')).toBe(text);
      expect(lockHeld(lockPath)).toBe(true);
      // A wall clock set back is no proof of anything: looked at again.
      jump(-60_000);
      expect(lockHeld(lockPath)).toBeInstanceOf(Promise);
      await releaseLock(lockPath);
      expect(lockHeld(lockPath)).toBe(false);
    });
  });

  it('a lock taken over while this process stood still: false, lost, and left alone', async () => {
    await withWallClock(async (jump) => {
      const lockPath = newLock();
      await acquireLock(lockPath, errors);
      writeFileSync(lockPath, '1\nsomeone else\n');
      jump(LOCK_SURE_MS + 500);
      await expect(lockHeld(lockPath)).resolves.toBe(false);
      const reason = lockLost(lockPath)?.reason;
      expect(reason).toBeInstanceOf(LockLostError);
      expect((reason as LockLostError).why).toBe('taken');
      expect(lockHeld(lockPath)).toBe(false);
      await releaseLock(lockPath);
      expect(readFileSync(lockPath, 'utf8')).toBe('1\nsomeone else\n');
    });
  });

  it('past the safe part of its lease, takes its own lock over again with a fresh nonce', async () => {
    await withWallClock(async (jump) => {
      const lockPath = newLock();
      await acquireLock(lockPath, errors);
      const before = readFileSync(lockPath, 'utf8');
      jump(LEASE_MS / 2 + 1_000);
      await expect(lockHeld(lockPath)).resolves.toBe(true);
      const after = readFileSync(lockPath, 'utf8');
      expect(after.split('\n')[0]).toBe(String(process.pid));
      expect(after).not.toBe(before); // a taker that read the old text leaves this one alone
      expect(readdirSync(join(lockPath, '..'))).toEqual(['x.lock']); // no guard or draft left
      await releaseLock(lockPath);
      expect(existsSync(lockPath)).toBe(false);
    });
  });

  it('past the safe part of its lease, with another process on the takeover guard: lost', async () => {
    await withWallClock(async (jump) => {
      const lockPath = newLock();
      await acquireLock(lockPath, errors);
      const text = readFileSync(lockPath, 'utf8');
      const { createHash } = await import('node:crypto');
      const guard = `${lockPath}.takeover-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
      writeFileSync(guard, '1\n0123456789abcdef01234567\n'); // process 1 runs: a live taker
      jump(LEASE_MS / 2 + 1_000);
      await expect(lockHeld(lockPath)).resolves.toBe(false);
      expect(lockLost(lockPath)?.reason).toHaveProperty('why', 'taken');
      expect(readFileSync(guard, 'utf8')).toBe('1\n0123456789abcdef01234567\n');
      await releaseLock(lockPath);
    });
  });
});
