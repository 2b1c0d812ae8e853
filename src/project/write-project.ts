// Writing the project file, decided once: a template entry set in place with jsonc-parser (the rest
// of the file, its order, indentation and line ends stay as they were), a new file from templates,
// the write itself atomic (a temporary file beside it, then a rename), ending with a newline, and a
// change made under the file's lock, so that writers at once never lose each other's changes.
import {
  chownSync,
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser';
import { UsageError } from '../errors.js';
import { describeReadError } from '../fs/files.js';
import { MAX_SETTINGS_BYTES, readRegularFileSync } from '../fs/regular-file.js';
import type { TemplateEntry, TemplateFields } from './template-entry.js';

/** The indentation and line end a file already uses (two spaces and \n for a new one). */
export function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/**
 * `text` with the template entry `name` set to `entry`, under `templates` (or under
 * `profiles.<profile>.templates`), every other byte as it was; a trailing line end kept or added.
 */
export function withTemplateEntry(
  text: string,
  name: string,
  entry: TemplateEntry,
  profile?: string,
): string {
  const path = profile === undefined ? ['templates', name] : ['profiles', profile, 'templates', name];
  const formatting = formattingOf(text);
  const source = text.trim() === '' ? '{}' : text;
  const edited = applyEdits(source, modify(source, path, entry, { formattingOptions: formatting }));
  return edited.endsWith('\n') ? edited : `${edited}${formatting.eol}`;
}

/** A new project file naming these templates, formatted as `JSON.stringify` with two spaces. */
export function newProjectText(templates: Record<string, TemplateEntry>): string {
  return `${JSON.stringify({ templates }, null, 2)}\n`;
}

/**
 * An entry after `esign templates set`: the id given (or the one there was), and the fields there
 * were with the changes asked for. A plain id stays a plain id when no field is declared.
 */
export function updatedEntry(
  before: TemplateEntry | undefined,
  id: string,
  change: (fields: TemplateFields) => TemplateFields,
  fieldsChanged: boolean,
): TemplateEntry {
  const fields = typeof before === 'object' ? before.fields : undefined;
  if (!fieldsChanged) return fields === undefined ? id : { id, fields };
  return { id, fields: change({ ...(fields ?? {}) }) };
}

/**
 * Writes `text` to `path` atomically: a temporary file in the same folder, flushed, then renamed
 * over it (or, with `exclusive`, linked to it, which fails when a file is already there, so a
 * file made meanwhile is never replaced). A crash leaves the old file or the new one, never half.
 * A symbolic link is written through, also to a file not made yet: the file it names gets the
 * text, and the link stays. A file replaced keeps its mode, and its owner when esign can give it
 * one (run as root, by sudo: the user's file stays the user's); a new file run as root is given to
 * the owner of its folder (`sudo` with the user's HOME: the user's).
 */
export function writeFileAtomic(path: string, text: string, exclusive = false): void {
  const target = linkTarget(path);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temporary, 'wx', 0o644);
  try {
    keepOwnerAndMode(fd, target);
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (exclusive) {
      linkSync(temporary, target);
      unlinkSync(temporary);
    } else renameSync(temporary, target);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
    throw error;
  }
}

/** Symbolic links followed before a path counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * The file `path` names, through any symbolic links, also a link to a file not made yet (the file
 * it would make); `path` itself when nothing is there yet.
 */
function linkTarget(path: string): string {
  let at = path;
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    try {
      return realpathSync(at);
    } catch {
      // Not there (yet): a link to a file not made is followed by hand.
    }
    try {
      if (!lstatSync(at).isSymbolicLink()) return at;
    } catch {
      return at;
    }
    // Relative to the folder the link is in, as the system reads it (`..` from its real path).
    at = resolve(realpathSync(dirname(at)), readlinkSync(at));
  }
  return path;
}

/** Whether esign runs as root, where it can (and must) give what it makes to its rightful owner. */
const runsAsRoot = () => process.geteuid?.() === 0;

/**
 * The new file takes the mode of the one it replaces (the umask decides a new one's) and its owner;
 * a new one, the owner of its folder. Only as root: a user's files are theirs already.
 */
function keepOwnerAndMode(fd: number, path: string): void {
  let before: { mode: number; uid: number; gid: number };
  try {
    before = statSync(path);
  } catch {
    // A new file: as root, its folder's owner's.
    if (runsAsRoot()) {
      const folder = statSync(dirname(path));
      fchownSync(fd, folder.uid, folder.gid);
    }
    return;
  }
  fchmodSync(fd, before.mode & 0o7777);
  if (runsAsRoot()) fchownSync(fd, before.uid, before.gid);
}

/**
 * Makes `dir` and the folders above it that are missing; as root, each is given to the owner of
 * the folder it is made in (`sudo` with the user's HOME makes `~/.config` the user's, not root's).
 */
function makeFolders(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  while (!existsAsFolder(at)) {
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  if (!runsAsRoot()) return;
  const owner = statSync(at);
  for (const made of missing) chownSync(made, owner.uid, owner.gid);
}

function existsAsFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Changes the file at `path` under its lock (`<file>.lock`, beside the file a link names): the text
 * as it is when the lock is held (empty when there is none) goes through `change`, and what it
 * returns is written: the same text as was there writes nothing, and REMOVE_FILE removes the file.
 * Writers at once take turns (each waits up to 10 s), so none loses another's change. `change` may
 * throw: then nothing is written. With `makeFolders`, the file's missing folders are made first
 * (makeFolders). Returns whether the file changed.
 */
export async function changeFileLocked(
  path: string,
  change: (text: string, exists: boolean) => string | typeof REMOVE_FILE,
  options: { makeFolders?: boolean } = {},
): Promise<boolean> {
  const target = linkTarget(path);
  if (options.makeFolders) makeFolders(dirname(target));
  const lockPath = `${target}.lock`;
  const { acquireLock, busyLockAdvice, heldWhere, releaseLock } = await import('../fs/lock.js');
  await acquireLock(
    lockPath,
    {
      busy: (owner) =>
        new UsageError(
          `${path} is being changed by another esign process (${owner.pid})${heldWhere(owner)}; nothing was changed.`,
          { hint: `Try again in a moment. ${busyLockAdvice(lockPath)}` },
        ),
      failed: (error) =>
        new UsageError(`Cannot create ${lockPath} to change ${path}: ${describeReadError(error)}.`, {
          hint: `The folder ${dirname(target)} must be writable.`,
        }),
    },
    { waitMs: 10_000 },
  );
  try {
    const text = readIfThere(target);
    const after = change(text ?? '', text !== undefined);
    if (after === REMOVE_FILE) {
      if (text === undefined) return false;
      unlinkSync(target);
      return true;
    }
    if (after === text) return false;
    writeFileAtomic(target, after);
    return true;
  } finally {
    await releaseLock(lockPath);
  }
}

/** What `changeFileLocked`'s change returns to have the file removed. */
export const REMOVE_FILE = Symbol('remove the file');

function readIfThere(path: string): string | undefined {
  try {
    return readRegularFileSync(path, MAX_SETTINGS_BYTES).text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
