// What the state file needs from the program that runs the sandbox: a lock (one writer per file, the
// lock of a dead owner taken over) and folder sync (fsync of a folder after a rename). Both are
// esign's decisions, made once outside the sandbox, so they come in through the options
// (src/commands/sandbox.ts passes esign's) instead of being imported: the sandbox imports only the
// wire schemas and the text helpers.

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
  /** Makes a folder's new entries (a rename) durable. */
  syncFolder(folder: string): void;
}
