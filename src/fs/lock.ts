// One writer per file: a lock file beside it naming its owner. A lock whose owner is gone is taken
// over, and taking it over is atomic:
//  - the lock is created complete in one step (written to a private file, then link()ed into place,
//    which fails if the lock exists), so nobody ever sees an empty lock of a live owner;
//  - a stale lock is removed only by the process holding its takeover guard, a lock file named
//    after that stale lock's content (taken the same way, so a guard left by a crash is itself taken
//    over), and only after reading, under the guard, that the lock still holds that stale content.
//    Nonces are never reused, so a late racer holding the guard finds newer content and leaves it.
//
// Folders are shared: by containers on one machine (each with its own process ids, its first
// process always 1), by CI jobs and by machines (a network file system). A process id names an
// owner only on its own machine and in its own PID namespace, so a lock holds, one per line:
//   4242                       the owner's process id
//   9f3c0a…                    a random nonce (24 hex digits)
//   boot 6a1e…-…               the machine's boot id (Linux: /proc/sys/kernel/random/boot_id)
//   start 183527               the owner's start time (Linux: /proc/<pid>/stat field 22)
//   host ci-7                  the owner's host name
//   ns pid:[4026531836]        the owner's PID namespace (Linux: /proc/self/ns/pid)
//   since 2026-11-27T10:42:03Z when it was taken
// and a lease: while a lock is held its owner touches it (its modification time) every
// LEASE_REFRESH_MS. A lock is stale when its lease ran out (no touch for LEASE_MS), or when its
// owner is on this machine, in this namespace, and provably gone (not running, or its id now names
// a process that started at another time, or this very process, which did not write it). An owner
// elsewhere is never judged by its process id. `ownerIsGone` decides.
//
// An owner that stood still (a stopped job, a suspended machine) may have lost its lock without
// having run a line of code since: `lockHeld` is what it asks before each step that needs the lock
// (a batch's next request, a sandbox's next write). For LOCK_SURE_MS after a renewal it answers at
// once, from two clocks (monotonic, which a stopped process still counts, and the wall clock, which
// a suspended machine still counts); past that it looks at the lock (ours? then touched), and past
// LEASE_SAFE_MS, when others may already judge the lease run out and be taking it over, it takes
// its own lock over as they would, under the same guard, with a fresh nonce; or it says the lock is
// lost.
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, link, open, rename, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { escapeControl } from '../text/terminal-text.js';
import { currentBootId, currentPidNamespace, isRunning, processStartTime } from './process-identity.js';
import { MAX_LOCK_BYTES, NotRegularFileError, readRegularFile } from './regular-file.js';

/** How long a lock stays held without its owner touching it. */
export const LEASE_MS = 60_000;
/** How often an owner touches the locks it holds. */
export const LEASE_REFRESH_MS = 10_000;
/**
 * How long after a renewal an owner counts on its lock without looking at it (`lockHeld`): far
 * inside the lease, so that nobody can have taken it over meanwhile, and short, so that a lock
 * taken away by hand is noticed within seconds of sending.
 */
export const LOCK_SURE_MS = 2_000;
/**
 * How long after a renewal nobody else can judge the lease run out, allowing for clocks up to 30 s
 * apart; past it, an owner takes its lock over again before it counts on it.
 */
const LEASE_SAFE_MS = LEASE_MS / 2;

/**
 * What a lock file says of its owner. Older locks hold only the id (and boot and start time); `ageMs`
 * is how long ago it was last touched, when that was read.
 */
export interface LockRecord {
  pid: number;
  bootId?: string | undefined;
  startTime?: string | undefined;
  host?: string | undefined;
  pidNamespace?: string | undefined;
  /** When it was taken (ISO 8601). */
  since?: string | undefined;
  ageMs?: number | undefined;
}

/** Reads a lock's text: the id on the first line, then `name value` lines where present. */
export function parseLockRecord(text: string): LockRecord {
  const lines = text.split('\n');
  const field = (name: string) =>
    lines
      .find((line) => line.startsWith(`${name} `))
      ?.slice(name.length + 1)
      .trim() || undefined;
  return {
    pid: Number.parseInt(text, 10),
    bootId: field('boot'),
    startTime: field('start'),
    host: field('host'),
    pidNamespace: field('ns'),
    since: field('since'),
  };
}

/** What the caller knows of itself and can ask of other processes (injected by tests). */
export interface ProcessView {
  pid: number;
  bootId: string | undefined;
  host?: string | undefined;
  pidNamespace?: string | undefined;
  isRunning(pid: number): boolean;
  startTime(pid: number): string | undefined;
}

const thisProcess: ProcessView = {
  pid: process.pid,
  get bootId() {
    return currentBootId();
  },
  get host() {
    return hostname();
  },
  get pidNamespace() {
    return currentPidNamespace();
  },
  isRunning,
  startTime: processStartTime,
};

/**
 * " on ci-7 since 2026-11-27 10:42:03 UTC": where and since when a lock is held, for the message
 * that follows its process id; empty for a lock that does not say (an earlier esign's).
 */
export function heldWhere(owner: Pick<LockRecord, 'host' | 'since'>): string {
  const host = owner.host === undefined ? '' : ` on ${escapeControl(owner.host)}`;
  const since =
    owner.since === undefined
      ? ''
      : ` since ${escapeControl(owner.since.replace('T', ' ').replace(/Z$/, ' UTC'))}`;
  return `${host}${since}`;
}

/**
 * What to know of a held lock: where it is, and that one whose owner stopped without letting go is
 * free once its lease ran out.
 */
export function busyLockAdvice(lockPath: string): string {
  return `Its lock is ${lockPath}: it is free once its owner has not renewed it for ${LEASE_MS / 1000} s. An owner on another machine or in another container is out of esign's sight: remove the lock by hand only when you are sure it has stopped.`;
}

/**
 * Whether the owner a lock names is gone, so that the lock may be taken over. `ours` is whether
 * this process wrote the lock (and has not released it). Gone when:
 *  - the lock names no process id (empty or junk);
 *  - its lease ran out: nobody touched it for LEASE_MS (an owner anywhere, crashed or cut off);
 *  - its owner is on this machine and in this PID namespace (same host, boot and namespace), and:
 *    it names the caller's own id but the caller did not write it (a lock left by an earlier
 *    process that had this id: a container's process 1 after a crash and a restart); or its
 *    process is not running; or it is running but started at another time (the id was reused).
 * An owner on another host, in another boot or in another namespace is held until its lease runs
 * out: there its process id names nothing here. A lock of an earlier esign (no host) is judged as
 * then: by boot, then by its id's liveness and start time.
 */
export function ownerIsGone(lock: LockRecord, ours: boolean, view: ProcessView): boolean {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0) return true;
  if (!ours && lock.ageMs !== undefined && lock.ageMs > LEASE_MS) return true;
  if (lock.host !== undefined && !sameMachineAndNamespace(lock, view)) return false;
  if (lock.pid === view.pid) return !ours;
  const bootId = view.bootId;
  if (lock.bootId !== undefined && bootId !== undefined && lock.bootId !== bootId) return true;
  if (!view.isRunning(lock.pid)) return true;
  if (lock.startTime === undefined) return false;
  const startTime = view.startTime(lock.pid);
  return startTime !== undefined && startTime !== lock.startTime;
}

/** Whether the lock's owner ran where this process runs: its ids name processes here. */
function sameMachineAndNamespace(lock: LockRecord, view: ProcessView): boolean {
  const same = (theirs: string | undefined, ours: string | undefined) => theirs === ours;
  return (
    same(lock.host, view.host) && same(lock.bootId, view.bootId) && same(lock.pidNamespace, view.pidNamespace)
  );
}

/** The text of a new lock for this process: a fresh nonce, and where and since when it is held. */
function lockText(view: ProcessView): string {
  const lines = [String(view.pid), randomBytes(12).toString('hex')];
  const bootId = view.bootId;
  const startTime = view.startTime(view.pid);
  if (bootId !== undefined) lines.push(`boot ${bootId}`);
  if (startTime !== undefined) lines.push(`start ${startTime}`);
  lines.push(`host ${(view.host ?? 'unknown').replace(/\s/g, '_')}`);
  if (view.pidNamespace !== undefined) lines.push(`ns ${view.pidNamespace}`);
  lines.push(`since ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`);
  return `${lines.join('\n')}\n`;
}

export interface LockErrors {
  /** The lock is held: by a running process, or one whose lease has not run out (heldWhere says where). */
  busy(owner: LockRecord): Error;
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

/** When a lock was last known to be this process's with a fresh lease, on both clocks. */
interface Moment {
  /** performance.now(): monotonic, counts while the process is stopped (not while the machine sleeps). */
  mono: number;
  /** Date.now(): counts while the machine sleeps; may be set back. */
  wall: number;
}

const momentNow = (): Moment => ({ mono: performance.now(), wall: Date.now() });

/** How long ago `then` was, by the clock that says longer (a wall clock set back: forever). */
function since(then: Moment, now: Moment): number {
  const wall = now.wall - then.wall;
  return Math.max(now.mono - then.mono, wall < 0 ? Number.POSITIVE_INFINITY : wall);
}

/** What this process wrote into each lock it holds (so that it releases only its own), and its lease. */
interface Holding {
  content: string;
  lease: NodeJS.Timeout | undefined;
  lost: AbortController;
  /** When the lease was last renewed by this process (or the lock taken): nobody took it since. */
  renewed: Moment;
  /** The look at the lock under way, which every caller of lockHeld shares. */
  confirming: Promise<boolean> | undefined;
}
const held = new Map<string, Holding>();
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
  return (await readLock(path))?.text;
}

/**
 * The lock's text and how long ago it was last touched, or undefined when there is no lock. Its
 * times are read through the open file (a network file system checks its cached times on open).
 * Anything but a regular file of a lock's size (a named pipe, a sparse file of 300 MB planted in a
 * shared folder) is refused at the open: a NotRegularFileError, never a wait or a read into memory.
 */
async function readLock(path: string): Promise<{ text: string; ageMs: number } | undefined> {
  try {
    const { text, stats } = await readRegularFile(path, MAX_LOCK_BYTES);
    return { text, ageMs: Date.now() - stats.mtimeMs };
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads the lock; an empty or unreadable lock gets a moment to fill (a writer without link()). */
async function readOwner(path: string): Promise<{ text: string; ageMs: number } | undefined> {
  const read = await readLock(path);
  if (read === undefined || /^\d+\s/.test(read.text)) return read;
  await sleep(50);
  return readLock(path);
}

type Attempt = { acquired: true } | { acquired: false; owner: LockRecord };

/** One try at `path`: created, or the live owner it is held by. Stale owners are taken over. */
async function tryLock(path: string, content: string, depth: number): Promise<Attempt> {
  for (let round = 0; ; round++) {
    if (await createExclusive(path, content)) return { acquired: true };
    const read = await readOwner(path);
    if (read === undefined) continue; // released in between: try again
    const { text } = read;
    const owner = { ...parseLockRecord(text), ageMs: read.ageMs };
    if (!ownerIsGone(owner, written.has(text), thisProcess)) return { acquired: false, owner };
    // Gone (or unreadable junk): take it over, unless a live racer is doing so this instant.
    if (depth > 8 || round > 200) return { acquired: false, owner };
    const taken = await removeStale(path, text, content, depth);
    if (!taken) await sleep(5 + Math.random() * 10);
  }
}

/** Removes the lock at `path` if it still holds `staleText`; false when another process is on it. */
/** The guard a takeover of the lock at `path` holding `staleText` takes first (one per text). */
const takeoverGuard = (path: string, staleText: string) =>
  `${path}.takeover-${createHash('sha256').update(staleText).digest('hex').slice(0, 16)}`;

async function removeStale(path: string, staleText: string, content: string, depth: number) {
  const guard = takeoverGuard(path, staleText);
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
  // The lock's lease starts when it is created, after this moment.
  const taken = momentNow();
  try {
    await takeLock(lockPath, content, errors, options.waitMs ?? 0);
  } catch (error) {
    written.delete(content);
    throw error;
  }
  // The renewal holds its own record: a lock released and taken again in this process while a
  // renewal was reading the file is another record, which that renewal never touches.
  const holding: Holding = {
    content,
    lease: undefined,
    lost: new AbortController(),
    renewed: taken,
    confirming: undefined,
  };
  holding.lease = setInterval(() => void confirmHolding(lockPath, holding), LEASE_REFRESH_MS);
  holding.lease.unref();
  held.set(lockPath, holding);
}

/** Why a lock this process held is no longer its own (the reason of lockLost's signal). */
export class LockLostError extends Error {
  constructor(
    message: string,
    /** `taken`: another process holds it now; `unconfirmed`: it could not be looked at past its lease. */
    readonly why: 'taken' | 'unconfirmed',
  ) {
    super(message);
    this.name = 'LockLostError';
  }
}

/**
 * Whether this process holds the lock at `lockPath` at this moment: true at once within LOCK_SURE_MS
 * of its last renewal (two clock readings, nothing else); otherwise a promise that looks at the lock
 * and renews it, or retakes it past LEASE_SAFE_MS. False when it is lost (lockLost's signal is
 * aborted then) or not held. Asked before each step that must not happen without the lock.
 */
export function lockHeld(lockPath: string): boolean | Promise<boolean> {
  const holding = held.get(lockPath);
  if (holding === undefined || holding.lost.signal.aborted) return false;
  const { renewed } = holding;
  const wall = Date.now() - renewed.wall;
  if (wall >= 0 && wall < LOCK_SURE_MS && performance.now() - renewed.mono < LOCK_SURE_MS) return true;
  return confirmHolding(lockPath, holding);
}

/** One look at the lock at a time: every caller meanwhile shares it. */
function confirmHolding(lockPath: string, holding: Holding): Promise<boolean> {
  holding.confirming ??= renewLease(lockPath, holding).finally(() => {
    holding.confirming = undefined;
  });
  return holding.confirming;
}

/** The lock is no longer this process's: nothing of it is touched any more, and lockLost says why. */
function lose(holding: Holding, error: LockLostError): false {
  clearInterval(holding.lease);
  if (!holding.lost.signal.aborted) holding.lost.abort(error);
  return false;
}

const takenOver = (lockPath: string) =>
  new LockLostError(`the lock ${lockPath} was taken over by another process`, 'taken');

/**
 * Renews the lease of a lock this process holds: true when it is still this process's. Within
 * LEASE_SAFE_MS of the last renewal nobody can have taken it over since, so the lock is read (ours?)
 * and touched. A lock that no longer holds what this process wrote was taken over (this process
 * stood still past the lease: a suspended laptop, a stopped job): lost. A lock that cannot be read
 * or touched this once (a network file system away) is tried again while within LEASE_SAFE_MS.
 */
async function renewLease(lockPath: string, holding: Holding): Promise<boolean> {
  const start = momentNow();
  if (since(holding.renewed, start) >= LEASE_SAFE_MS) return retakeLease(lockPath, holding);
  try {
    const text = await readText(lockPath);
    if (held.get(lockPath) !== holding) return false; // released while the file was read
    if (text !== holding.content) return lose(holding, takenOver(lockPath));
    const touched = new Date(start.wall);
    await utimes(lockPath, touched, touched);
  } catch (error) {
    if (error instanceof NotRegularFileError) return lose(holding, takenOver(lockPath));
    return since(holding.renewed, momentNow()) < LEASE_SAFE_MS;
  }
  // Stood still between the look and the touch past the safe part of the lease: the touch may have
  // met another's lock. Looked at again the careful way.
  if (since(holding.renewed, momentNow()) >= LEASE_SAFE_MS) return retakeLease(lockPath, holding);
  holding.renewed = start;
  return true;
}

/**
 * Past the safe part of its lease, others may judge this process's lock stale and be removing it:
 * it is taken over again as they would take it (the takeover guard named after its text, then a
 * look that it still holds that text), and replaced whole by a lock with a fresh nonce, so that a
 * taker who read the old text leaves the new one alone. Another process on the guard, or another
 * lock in place: lost. A lock that cannot be looked at: lost too (nothing may count on it).
 */
async function retakeLease(lockPath: string, holding: Holding): Promise<boolean> {
  const old = holding.content;
  const fresh = lockText(thisProcess);
  written.add(fresh);
  let kept = false;
  try {
    const guard = takeoverGuard(lockPath, old);
    const attempt = await tryLock(guard, fresh, 1);
    if (!attempt.acquired) return lose(holding, takenOver(lockPath));
    try {
      if ((await readText(lockPath)) !== old) return lose(holding, takenOver(lockPath));
      if (held.get(lockPath) !== holding) return false;
      const renewed = momentNow();
      await replaceWhole(lockPath, fresh);
      holding.content = fresh;
      holding.renewed = renewed;
      written.delete(old);
      kept = true;
      return true;
    } finally {
      await rm(guard, { force: true });
    }
  } catch (error) {
    return lose(
      holding,
      new LockLostError(`could not look at ${lockPath}: ${(error as Error).message}`, 'unconfirmed'),
    );
  } finally {
    if (!kept) written.delete(fresh);
  }
}

/** Puts `content` in place of the file at `path` in one step (a draft renamed over it). */
async function replaceWhole(path: string, content: string): Promise<void> {
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(draft, content, { flag: 'wx', mode: 0o600 });
    await rename(draft, path);
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/**
 * Aborted when a lock this process holds was taken over by another (its lease ran out while this
 * process stood still); undefined when this process holds no lock there.
 */
export function lockLost(lockPath: string): AbortSignal | undefined {
  return held.get(lockPath)?.lost.signal;
}

/** Tries `lockPath` until it is taken or `waitMs` has passed (then the owner is `errors.busy`). */
async function takeLock(lockPath: string, content: string, errors: LockErrors, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    let attempt: Attempt;
    try {
      attempt = await tryLock(lockPath, content, 0);
    } catch (error) {
      // Something else than a lock where the lock goes: named, with what to do, as it is.
      if (error instanceof NotRegularFileError) throw error;
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
  const holding = held.get(lockPath);
  held.delete(lockPath);
  if (holding === undefined) return;
  clearInterval(holding.lease);
  const { content } = holding;
  try {
    if ((await readText(lockPath).catch(() => undefined)) === content) await rm(lockPath, { force: true });
  } finally {
    // Only now: until the lock is gone, another acquireLock in this process must find it ours.
    written.delete(content);
  }
}
