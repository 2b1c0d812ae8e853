// One writer per file: a lock file beside it naming its owner. A lock whose owner is gone is taken
// over, and taking it over is atomic:
//  - the lock is created complete in one step (written to a private file, then link()ed into place,
//    which fails if the lock exists), so nobody ever sees an empty lock of a live owner;
//  - a stale lock is removed only by the process holding its takeover guard, a lock file named
//    after that stale lock's content (taken the same way, so a guard left by a crash is itself taken
//    over), and only after reading, under the guard, that the lock still holds that stale content.
//    Nonces are never reused, so a late racer holding the guard finds newer content and leaves it.
//
// A process id alone does not name an owner: the system hands ids out again, after a reboot and in
// every container (whose first process is always 1). So a lock holds, one per line, the owner's id,
// a random nonce, and where the system tells them (Linux) the boot id and the owner's start time:
//   4242
//   9f3c0a…                 (24 hex digits)
//   boot 6a1e…-…            (/proc/sys/kernel/random/boot_id)
//   start 183527            (/proc/<pid>/stat field 22, clock ticks since boot)
// The id stays the first line, so a lock written by an older esign (id and nonce only) reads as
// before, and an older esign reads ours. `ownerIsGone` decides when a lock is stale.
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, link, open, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { currentBootId, isRunning, processStartTime } from './process-identity.js';

/** What a lock file says of its owner; bootId and startTime are missing from older locks. */
export interface LockRecord {
  pid: number;
  bootId?: string | undefined;
  startTime?: string | undefined;
}

/** Reads a lock's text: the id on the first line, then `boot …` and `start …` lines if present. */
export function parseLockRecord(text: string): LockRecord {
  const lines = text.split('\n');
  const field = (name: string) =>
    lines
      .find((line) => line.startsWith(`${name} `))
      ?.slice(name.length + 1)
      .trim() || undefined;
  return { pid: Number.parseInt(text, 10), bootId: field('boot'), startTime: field('start') };
}

/** What the caller knows of itself and can ask of other processes (injected by tests). */
export interface ProcessView {
  pid: number;
  bootId: string | undefined;
  isRunning(pid: number): boolean;
  startTime(pid: number): string | undefined;
}

const thisProcess: ProcessView = {
  pid: process.pid,
  get bootId() {
    return currentBootId();
  },
  isRunning,
  startTime: processStartTime,
};

/**
 * Whether the owner a lock names is gone, so that the lock may be taken over. `ours` is whether
 * this process wrote the lock (and has not released it). Gone when:
 *  - the lock names no process id (empty or junk);
 *  - it names the caller's own id but the caller did not write it: a lock left by an earlier
 *    process that had this id (every container's process 1, after a crash and a restart);
 *  - it was written in another boot;
 *  - its process is not running;
 *  - its process is running but started at another time than the owner did: the id was reused.
 * Where boot id or start time are unknown (an older lock, or not Linux), liveness of the id decides.
 */
export function ownerIsGone(lock: LockRecord, ours: boolean, view: ProcessView): boolean {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0) return true;
  if (lock.pid === view.pid) return !ours;
  const bootId = view.bootId;
  if (lock.bootId !== undefined && bootId !== undefined && lock.bootId !== bootId) return true;
  if (!view.isRunning(lock.pid)) return true;
  if (lock.startTime === undefined) return false;
  const startTime = view.startTime(lock.pid);
  return startTime !== undefined && startTime !== lock.startTime;
}

/** The text of a new lock for this process: a fresh nonce, and boot and start time where known. */
function lockText(view: ProcessView): string {
  const lines = [String(view.pid), randomBytes(12).toString('hex')];
  const bootId = view.bootId;
  const startTime = view.startTime(view.pid);
  if (bootId !== undefined) lines.push(`boot ${bootId}`);
  if (startTime !== undefined) lines.push(`start ${startTime}`);
  return `${lines.join('\n')}\n`;
}

export interface LockErrors {
  /** The lock is held by a running process. */
  busy(owner: number): Error;
  /** The lock file cannot be created (no such folder, not writable). */
  failed(error: unknown): Error;
}

export interface LockOptions {
  /**
   * How long to wait for a live owner to release the lock, in milliseconds, polling with backoff
   * (10 ms doubling up to 200 ms). 0 (the default): a live owner is `busy` at once.
   */
  waitMs?: number;
}

/** What this process wrote into each lock it holds, so that it releases only its own. */
const held = new Map<string, string>();
/** Every lock text this process wrote and still stands by (taking or holding it): its own locks. */
const written = new Set<string>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Creates `path` holding `content` if it does not exist: true when created, false when it exists.
 * Whatever fails (a full disk takes the draft's name but not its text), no draft is left behind.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let linked: boolean | undefined;
  try {
    // A folder that is not there or not writable, or a full disk, fails here: the caller's `failed`.
    await writeFile(draft, content, { flag: 'wx', mode: 0o600 });
    linked = await linkInPlace(draft, path);
  } finally {
    await unlink(draft).catch(() => undefined);
  }
  return linked ?? writeInPlace(path, content);
}

/** Links `draft` as `path`: true when linked, false when `path` exists, undefined without hard links. */
async function linkInPlace(draft: string, path: string): Promise<boolean | undefined> {
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    if (['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(code(error) ?? '')) return undefined;
    throw error;
  }
}

/**
 * No hard links on this file system: create and write in one call (an empty lock is then possible
 * for an instant; readOwner waits for it to fill). A lock created but not filled (a full disk) is
 * removed: it is this process's, and an empty lock would only be taken over later.
 */
async function writeInPlace(path: string, content: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return true;
}

/** The lock's text, or undefined when there is no lock. */
async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads the lock; an empty or unreadable lock gets a moment to fill (a writer without link()). */
async function readOwner(path: string): Promise<string | undefined> {
  const text = await readText(path);
  if (text === undefined || /^\d+\s/.test(text)) return text;
  await sleep(50);
  return readText(path);
}

type Attempt = { acquired: true } | { acquired: false; owner: number };

/** One try at `path`: created, or the live owner it is held by. Stale owners are taken over. */
async function tryLock(path: string, content: string, depth: number): Promise<Attempt> {
  for (let round = 0; ; round++) {
    if (await createExclusive(path, content)) return { acquired: true };
    const text = await readOwner(path);
    if (text === undefined) continue; // released in between: try again
    const owner = parseLockRecord(text);
    if (!ownerIsGone(owner, written.has(text), thisProcess)) return { acquired: false, owner: owner.pid };
    // Gone (or unreadable junk): take it over, unless a live racer is doing so this instant.
    if (depth > 8 || round > 200) return { acquired: false, owner: owner.pid };
    const taken = await removeStale(path, text, content, depth);
    if (!taken) await sleep(5 + Math.random() * 10);
  }
}

/** Removes the lock at `path` if it still holds `staleText`; false when another process is on it. */
async function removeStale(path: string, staleText: string, content: string, depth: number) {
  const guard = `${path}.takeover-${createHash('sha256').update(staleText).digest('hex').slice(0, 16)}`;
  const attempt = await tryLock(guard, content, depth + 1);
  if (!attempt.acquired) return false;
  try {
    if ((await readText(path)) === staleText) await rm(path, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
  return true;
}

/**
 * Takes the lock at `lockPath` for this process, taking over one whose owner is gone. A live owner
 * is `errors.busy` (after waiting up to `options.waitMs`); a lock that cannot be created is
 * `errors.failed`.
 */
export async function acquireLock(
  lockPath: string,
  errors: LockErrors,
  options: LockOptions = {},
): Promise<void> {
  const content = lockText(thisProcess);
  written.add(content);
  try {
    await takeLock(lockPath, content, errors, options.waitMs ?? 0);
  } catch (error) {
    written.delete(content);
    throw error;
  }
  held.set(lockPath, content);
}

/** Tries `lockPath` until it is taken or `waitMs` has passed (then the owner is `errors.busy`). */
async function takeLock(lockPath: string, content: string, errors: LockErrors, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    let attempt: Attempt;
    try {
      attempt = await tryLock(lockPath, content, 0);
    } catch (error) {
      throw errors.failed(error);
    }
    if (attempt.acquired) return;
    const left = deadline - Date.now();
    if (left <= 0) throw errors.busy(attempt.owner);
    await sleep(Math.min(pause, left) * (0.5 + Math.random() / 2));
  }
}

/** Removes the lock if this process holds it (never another process's). */
export async function releaseLock(lockPath: string): Promise<void> {
  const content = held.get(lockPath);
  held.delete(lockPath);
  if (content === undefined) return;
  try {
    if ((await readText(lockPath).catch(() => undefined)) === content) await rm(lockPath, { force: true });
  } finally {
    // Only now: until the lock is gone, another acquireLock in this process must find it ours.
    written.delete(content);
  }
}
