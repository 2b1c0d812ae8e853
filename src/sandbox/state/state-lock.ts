// One sandbox per state file: two writers would interleave their journals.
import { acquireLock, releaseLock } from '../../io/lock.js';
import { StateFileError } from './state-error.js';

export function acquireStateLock(lockPath: string, statePath: string): Promise<void> {
  return acquireLock(lockPath, {
    busy: (owner) =>
      new StateFileError(`The state file ${statePath} is in use by another sandbox (process ${owner}).`, {
        hint: `Stop that sandbox or use another --state file. If no sandbox is running, remove ${lockPath}.`,
      }),
    failed: (error) =>
      new StateFileError(`Cannot create ${lockPath} beside the state file: ${(error as Error).message}.`, {
        hint: 'Check that the folder of --state exists and is writable.',
      }),
  });
}

export const releaseStateLock = releaseLock;
