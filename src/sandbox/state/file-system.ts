// What the state file needs from the program that runs the sandbox: a lock (one writer per file, the
// lock of a dead owner taken over, and whether it is still held) and folder sync (fsync of a folder after a rename). Both are
// esign's decisions, made once outside the sandbox, so they come in through the options
// (src/commands/sandbox.ts passes esign's) instead of being imported: the sandbox imports only the
// wire schemas and the text helpers.

import type { FileHandle } from 'node:fs/promises';

interface LockErrors {
  /** The lock is held by process `owner`; `where` says where and since when (" on ci-7 since …"), when the lock says. */
  busy(owner: number, where?: string): Error;
  /** The lock file cannot be created (no such folder, not writable). */
  failed(error: unknown): Error;
}

export interface StateFileSystem {
  /** Takes the lock at `lockPath` for this process: throws `errors.busy` or `errors.failed`. */
  acquireLock(lockPath: string, errors: LockErrors): Promise<void>;
  /** Gives back a lock this process holds (never another process's). */
  releaseLock(lockPath: string): Promise<void>;
  /**
   * Whether this process holds the lock at this moment: true at once while it was renewed a moment
   * ago, else after a look at the lock; false once it was taken over (this process stood still past
   * its lease). Asked before every write of the state.
   */
  lockHeld(lockPath: string): boolean | Promise<boolean>;
  /** Aborted when the lock was taken over by another process; undefined when it is not held. */
  lockLost(lockPath: string): AbortSignal | undefined;
  /** Makes a folder's new entries (a rename) durable. */
  syncFolder(folder: string): void;
  /**
   * Opens a file of the state (`read`; `append`, created 0600 when missing; `write`, created 0600
   * and emptied) without blocking, and only when it is a regular file: a named pipe planted where a
   * state file goes is refused at the open, never waited on. ENOENT as it is.
   */
  openFile(path: string, how: 'read' | 'append' | 'write'): Promise<FileHandle>;
}
