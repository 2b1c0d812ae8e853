// Whose a file is, decided once: the project file's trust (src/project/trust.ts, git's rule) and the
// files a batch writes (results, journal) ask here. Folders are shared (a world-writable /tmp, a
// group's folder, a CI volume): a file there may be another user's, planted before esign ran, or a
// symbolic link to somewhere else. Windows has no POSIX owners here (process.geteuid is undefined):
// every file counts as the user's there.
import { type BigIntStats, closeSync, constants, ftruncateSync, type Stats } from 'node:fs';
import type { Env } from '../context.js';
import { openRegularFileSync } from './regular-file.js';

/** Who is running esign: the effective uid, and under sudo the uid that ran sudo. */
export interface CurrentUser {
  readonly uid: number;
  readonly sudoUid: number | undefined;
}

/** The user running esign, or undefined where there are no POSIX owners (Windows). */
export function currentUser(env: Env): CurrentUser | undefined {
  const uid = process.geteuid?.();
  if (uid === undefined) return undefined;
  const sudo = env.SUDO_UID === undefined ? Number.NaN : Number(env.SUDO_UID);
  return { uid, sudoUid: Number.isInteger(sudo) && sudo >= 0 ? sudo : undefined };
}

/** git's ownership rule: the user's own, or as root, root's own or the sudo user's. */
export function ownedByUser(uid: number, user: CurrentUser): boolean {
  if (uid === user.uid) return true;
  return user.uid === 0 && user.sudoUid !== undefined && uid === user.sudoUid;
}

/** A mode as `ls` and chmod write it: 0664. */
export const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

const GROUP_OR_OTHERS_WRITE = 0o022;

/**
 * Why a file that will hold bearer links (a batch's results, its journal) is not this user's to
 * write, in words that follow "it"; undefined when it is. Not followed through a link, a regular
 * file, owned by the user, and writable by nobody else.
 */
export function notOwnReason(stats: Stats | BigIntStats, user: CurrentUser | undefined): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isFile()) return 'is not a regular file';
  if (user === undefined) return undefined;
  if (!ownedByUser(Number(stats.uid), user)) return `is owned by another user (uid ${stats.uid})`;
  const mode = Number(stats.mode);
  if (mode & GROUP_OR_OTHERS_WRITE) return `can be written by other users (mode ${octal(mode)})`;
  return undefined;
}

/** A file that is not the user's to write: its path and why. */
class NotOwnFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} ${reason}`);
    this.name = 'NotOwnFileError';
  }
}

/**
 * Opens `path` for appending (or, with `truncate`, to be written afresh), created with `mode` when
 * missing, never through a symbolic link and without blocking (a named pipe with nobody reading is
 * refused at once, never waited on). With `env`, only a regular file (src/fs/regular-file.ts decides,
 * at the open) that is the user's own (notOwnReason); every file esign writes signing URLs to is
 * opened so. Otherwise a NotRegularFileError or a NotOwnFileError, and nothing was written. A file
 * found is emptied only once it is known to be the user's. Without `env` (the appender's own tests
 * write to /dev/full and to a pipe) what is there is not looked at.
 */
export function openOwnFile(
  path: string,
  { mode, truncate = false, env }: { mode: number; truncate?: boolean; env: Env | undefined },
): number {
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;
  const { fd, stats } = openRegularFileSync(path, flags, {
    mode,
    noFollow: true,
    anyKind: env === undefined,
  });
  try {
    const reason = env === undefined ? undefined : notOwnReason(stats, currentUser(env));
    if (reason !== undefined) throw new NotOwnFileError(path, reason);
    // Emptied through the descriptor that was checked: never a file swapped in since.
    if (truncate) ftruncateSync(fd, 0);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}
