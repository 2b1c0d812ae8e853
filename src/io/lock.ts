// One writer per file: a lock file beside it holding the owner's process id and a random nonce. A
// lock whose process is gone (killed with kill -9, say) is taken over, and taking it over is atomic:
//  - the lock is created complete in one step (written to a private file, then link()ed into place,
//    which fails if the lock exists), so nobody ever sees an empty lock of a live owner;
//  - a stale lock is removed only by the process holding its takeover guard, a lock file named
//    after that stale lock's content (taken the same way, so a guard left by a crash is itself taken
//    over), and only after reading, under the guard, that the lock still holds that stale content.
//    Nonces are never reused, so a late racer holding the guard finds newer content and leaves it.
import { createHash, randomBytes } from 'node:crypto';
import { link, readFile, rm, unlink, writeFile } from 'node:fs/promises';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Creates `path` holding `content` if it does not exist: true when created, false when it exists. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  // A folder that is not there or not writable fails here: the caller's `failed`.
  await writeFile(draft, content, { flag: 'wx', mode: 0o600 });
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(code(error) ?? '')) throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
  // No hard links on this file system: create and write in one call (an empty lock is then possible
  // for an instant; readOwner waits for it to fill).
  try {
    await writeFile(path, content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
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

interface Owner {
  pid: number;
  text: string;
}

/** Reads the owner; an empty or unreadable lock gets a moment to fill (a writer without link()). */
async function readOwner(path: string): Promise<Owner | undefined> {
  let text = await readText(path);
  if (text !== undefined && !/^\d+\s/.test(text)) {
    await sleep(50);
    text = await readText(path);
  }
  if (text === undefined) return undefined;
  return { pid: Number.parseInt(text, 10), text };
}

type Attempt = { acquired: true } | { acquired: false; owner: number };

/** One try at `path`: created, or the live owner it is held by. Stale owners are taken over. */
async function tryLock(path: string, content: string, depth: number): Promise<Attempt> {
  for (let round = 0; ; round++) {
    if (await createExclusive(path, content)) return { acquired: true };
    const owner = await readOwner(path);
    if (owner === undefined) continue; // released in between: try again
    if (Number.isInteger(owner.pid) && owner.pid > 0 && isRunning(owner.pid)) {
      return { acquired: false, owner: owner.pid };
    }
    // Gone (or unreadable junk): take it over, unless a live racer is doing so this instant.
    if (depth > 8 || round > 200) return { acquired: false, owner: owner.pid };
    const taken = await removeStale(path, owner.text, content, depth);
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
  const content = `${process.pid}\n${randomBytes(12).toString('hex')}\n`;
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    let attempt: Attempt;
    try {
      attempt = await tryLock(lockPath, content, 0);
    } catch (error) {
      throw errors.failed(error);
    }
    if (attempt.acquired) {
      held.set(lockPath, content);
      return;
    }
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
  if ((await readText(lockPath).catch(() => undefined)) === content) await rm(lockPath, { force: true });
}
