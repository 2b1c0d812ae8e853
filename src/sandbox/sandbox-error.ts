// The sandbox's own errors: what went wrong, in its terms, with a hint for someone running it
// in-process. It speaks HTTP, not CLI: no exit codes and no flags here. The CLI words each kind for
// its users (the flag to change) and picks its exit code, in one table (src/commands/sandbox.ts).

export type SandboxErrorKind =
  /** An option given to startSandbox is not valid (the CLI checks its flags before). */
  | 'bad_option'
  /** Cannot listen: another process has the port. */
  | 'port_in_use'
  /** Cannot listen: the port needs privileges. */
  | 'port_forbidden'
  /** Cannot listen: the host is no address of this machine (`host` says which). */
  | 'no_such_address'
  /** The seed file cannot be read (`file`; `cause` is the read error). */
  | 'seed_unreadable'
  /** The seed is not JSON, or not a valid seed (`details` lists every problem). */
  | 'bad_seed'
  /** The state file or its journal is not a sandbox's state; it was left as it is. */
  | 'state_corrupt'
  /** The state file was made from another seed than the one given (`file`: the state file). */
  | 'state_seed_mismatch'
  /** Another sandbox holds the state file's lock (`file`: the lock file). */
  | 'state_in_use'
  /** The folder the state file should be in does not exist. */
  | 'state_folder_missing'
  /** The lock beside the state file cannot be created. */
  | 'state_lock_failed'
  /** The state file cannot be read or written, or the sandbox is stopping. */
  | 'state_io'
  /**
   * The state file's lock was taken over by another sandbox while this one stood still past its
   * lease (`file`: the state file): this one must stop serving, and writes nothing more.
   */
  | 'state_lock_lost';

export interface SandboxErrorOptions {
  hint?: string;
  /** Extra lines under the message: every problem of a seed. */
  details?: string[];
  cause?: unknown;
  /** The file in question, for whoever words the error anew (see the kinds). */
  file?: string;
  /** The address in question (no_such_address). */
  host?: string;
}

export class SandboxError extends Error {
  readonly hint: string | undefined;
  readonly details: string[];
  readonly file: string | undefined;
  readonly host: string | undefined;

  constructor(
    readonly kind: SandboxErrorKind,
    message: string,
    options: SandboxErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SandboxError';
    this.hint = options.hint;
    this.details = options.details ?? [];
    this.file = options.file;
    this.host = options.host;
  }
}
