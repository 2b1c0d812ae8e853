// One sandbox per state file: two writers would interleave their journals. The lock is a file
// holding the owner's process id; a lock whose process is gone (kill -9) is taken over.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { StateFileError } from './state-error.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function acquireStateLock(lockPath: string, statePath: string): Promise<void> {
  try {
    await writeFile(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new StateFileError(
        `Cannot create ${lockPath} beside the state file: ${(error as Error).message}.`,
        {
          hint: 'Check that the folder of --state exists and is writable.',
        },
      );
    }
  }
  const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
  if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
    throw new StateFileError(`The state file ${statePath} is in use by another sandbox (process ${owner}).`, {
      hint: `Stop that sandbox or use another --state file. If no sandbox is running, remove ${lockPath}.`,
    });
  }
  // Left behind by a sandbox that was killed: take it over.
  await writeFile(lockPath, `${process.pid}\n`, { mode: 0o600 });
}

export async function releaseStateLock(lockPath: string): Promise<void> {
  await rm(lockPath, { force: true });
}
