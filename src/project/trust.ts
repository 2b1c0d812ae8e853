// Whether a project file found on the way up from the current folder may be used: git's rule for a
// repository (safe.directory), applied to the one file esign reads. A `.esign.json` picks the
// profile and maps template names to ids, so one that another user wrote (another user's
// `/tmp/.esign.json` on a shared machine) must never be used silently.
//
// The rule, decided here and nowhere else:
// - the file (and a symbolic link to it, as git looks at the link with lstat) is owned by the user;
//   running as root, a root-owned file is the user's, and so is one owned by the user sudo was run
//   by (SUDO_UID), as git does;
// - no other user can change it: the file is not writable by others;
// - no other user can replace it: the folder that holds it (the link's and the target's) is not
//   writable by others, unless it has the sticky bit, as /tmp does, where only a file's owner may
//   remove or rename it, so the ownership check above decides.
// Group write is allowed for both, as git allows it: a umask of 002 (a group of one's own, as
// Debian and Fedora make for every user) makes files 0664 and folders 0775.
// Windows has no POSIX owners here (process.geteuid is undefined): every file is used, as before.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CurrentUser, octal, ownedByUser } from '../fs/ownership.js';

/** The owner and mode of a file or folder, as stat gives them. */
interface Owned {
  readonly uid: number;
  readonly mode: number;
}

/** What stat found about a project file: the link (when it is one), the file, and their folders. */
export interface FoundFile {
  readonly link?: Owned | undefined;
  readonly file: Owned;
  /** Each folder that holds the link or the file, with its path. */
  readonly folders: ReadonlyArray<Owned & { readonly path: string }>;
}

const STICKY = 0o1000;
const OTHERS_WRITE = 0o002;

/** Why the file must not be used, in words that follow "it", or undefined when it may be used. */
export function distrustReason(found: FoundFile, user: CurrentUser): string | undefined {
  if (found.link && !ownedByUser(found.link.uid, user)) {
    return `is a symbolic link owned by another user (uid ${found.link.uid})`;
  }
  if (!ownedByUser(found.file.uid, user)) return `is owned by another user (uid ${found.file.uid})`;
  if (found.file.mode & OTHERS_WRITE) {
    return `can be changed by any user (mode ${octal(found.file.mode)})`;
  }
  const open = found.folders.find((folder) => folder.mode & OTHERS_WRITE && !(folder.mode & STICKY));
  if (open) {
    return `can be replaced by any user: its folder ${open.path} is writable by all and has no sticky bit (mode ${octal(open.mode)})`;
  }
  return undefined;
}

/** Stats the file at `path` (which exists) for distrustReason. */
export function inspect(path: string): FoundFile {
  const entry = lstatSync(path);
  const isLink = entry.isSymbolicLink();
  const file = isLink ? statSync(path) : entry;
  const folders = [dirname(path)];
  if (isLink) {
    const target = dirname(realpathSync(path));
    if (target !== folders[0]) folders.push(target);
  }
  return {
    link: isLink ? { uid: entry.uid, mode: entry.mode } : undefined,
    file: { uid: file.uid, mode: file.mode },
    folders: folders.map((folder) => {
      const stats = statSync(folder);
      return { path: folder, uid: stats.uid, mode: stats.mode };
    }),
  };
}
