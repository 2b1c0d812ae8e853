// One writer per file: a lock file beside it holding the owner's process id. A lock whose process
// is gone (killed with kill -9, say) is taken over.
import { readFile, rm, writeFile } from 'node:fs/promises';

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

export async function acquireLock(lockPath: string, errors: LockErrors): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw errors.failed(error);
    }
    let owner = await readOwner(lockPath);
    // An empty lock may be one that its owner is writing this instant.
    if (Number.isNaN(owner))
      owner = await new Promise((r) => setTimeout(r, 20)).then(() => readOwner(lockPath));
    if (attempt > 0 || (Number.isInteger(owner) && owner > 0 && isRunning(owner))) throw errors.busy(owner);
    // Left behind by a process that is gone: remove it and race for it once more (only one `wx` wins).
    await rm(lockPath, { force: true });
  }
}

const readOwner = async (lockPath: string) =>
  Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);

export async function releaseLock(lockPath: string): Promise<void> {
  await rm(lockPath, { force: true });
}
