// One sandbox per state file: two writers would interleave their journals.
import { SandboxError } from '../sandbox-error.js';
import type { StateFileSystem } from './file-system.js';

export function acquireStateLock(files: StateFileSystem, lockPath: string, statePath: string): Promise<void> {
  return files.acquireLock(lockPath, {
    busy: (owner, where = '') =>
      new SandboxError(
        'state_in_use',
        `The state file ${statePath} is in use by another sandbox (process ${owner})${where}.`,
        {
          hint: `Stop that sandbox or use another state file (its lock is ${lockPath}).`,
          file: lockPath,
        },
      ),
    failed: (error) =>
      new SandboxError(
        'state_lock_failed',
        `Cannot create ${lockPath} beside the state file: ${(error as Error).message}.`,
        {
          hint: ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException).code ?? '')
            ? 'The disk is full: free some space on it, or put the state file on another disk.'
            : 'Check that the folder of the state file exists and is writable.',
          cause: error,
        },
      ),
  });
}
