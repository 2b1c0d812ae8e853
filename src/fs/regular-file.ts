// Files esign opens in folders others may write (a shared /tmp, a CI volume, a 1777 config folder):
// a batch's results and journal, locks, the project file, the config. Someone else can put a named
// pipe there (opening it waits for ever for the other end; on the main thread no signal ends that
// wait), a device, a folder, or a sparse file of hundreds of MiB that reading would take whole into
// memory. Decided once, here, at the open and never by a look before it (a file can be swapped in
// between): the file is opened without blocking (O_NONBLOCK), then what was opened is looked at
// through its descriptor (fstat). A regular file no larger than its kind's bound is kept; anything
// else is closed at once and refused, naming the file, what it is and what to do.
//
// node:fs is taken when a file is opened (process.getBuiltinModule): every command's start reads a
// preference through here, and an ES-module import of node:fs would load fs/promises and readline
// for every `--help` and Tab.
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { CliError, ExitCode } from '../errors.js';
import { sizeText } from '../text/units.js';

/** The most a lock file may hold (esign writes about 250 bytes). */
export const MAX_LOCK_BYTES = 64 * 1024;
/** The most a config file or project file may hold: far beyond any real one. */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** A file in esign's way that is not a regular file it can use: exit 2, nothing was sent or changed. */
export class NotRegularFileError extends CliError {
  constructor(
    readonly path: string,
    /** What it is, in words that follow its path: "is a named pipe (FIFO)". */
    readonly what: string,
  ) {
    super(
      `${path} ${what}, not a regular file: esign does not use it.`,
      ExitCode.usage,
      'not_a_regular_file',
      {
        hint: 'Someone or something put it there. Remove it if it is yours to remove; otherwise use a folder that only you can write (for --output, ESIGN_CONFIG_DIR or the project file).',
      },
    );
  }
}

const tooLarge = (size: number, maxBytes: number) =>
  `holds ${sizeText(size)}, more than such a file ever holds (${sizeText(maxBytes)})`;

/** What `stats` is, when it is no regular file of at most `maxBytes`; undefined when it is one. */
function refusalOf(stats: Stats, maxBytes: number): string | undefined {
  if (stats.isFile()) {
    return stats.size <= maxBytes ? undefined : tooLarge(stats.size, maxBytes);
  }
  if (stats.isFIFO()) return 'is a named pipe (FIFO)';
  if (stats.isSocket()) return 'is a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'is a device';
  if (stats.isDirectory()) return 'is a folder';
  return 'is not a regular file';
}

export interface RegularFileOptions {
  /** The largest file of this kind that is kept (default: no bound, for files read as a stream). */
  maxBytes?: number;
  /** Never through a symbolic link (O_NOFOLLOW): a link is refused. */
  noFollow?: boolean;
  /** The mode of a file created by the open (with O_CREAT). */
  mode?: number;
  /** Opened without blocking all the same, but kept whatever it is (the caller looks at `stats`). */
  anyKind?: boolean;
}

const fs = () => process.getBuiltinModule('node:fs');

function flagsOf(flags: number, options: RegularFileOptions): number {
  const { O_NONBLOCK = 0, O_NOFOLLOW = 0 } = fs().constants;
  return flags | O_NONBLOCK | (options.noFollow ? O_NOFOLLOW : 0);
}

/** An open error that says what the file is: a link under O_NOFOLLOW, a pipe nobody reads (ENXIO). */
function openError(path: string, error: unknown, options: RegularFileOptions): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  // O_NOFOLLOW on a symbolic link: ELOOP (Linux, macOS), EMLINK (FreeBSD).
  if (options.noFollow && (code === 'ELOOP' || code === 'EMLINK'))
    return new NotRegularFileError(path, 'is a symbolic link');
  // A named pipe opened for writing without blocking, with nobody reading it.
  if (code === 'ENXIO') return new NotRegularFileError(path, 'is a named pipe (FIFO) or a device');
  return error;
}

/**
 * Opens `path` with `flags` (fs.constants: O_RDONLY, O_WRONLY | O_APPEND | O_CREAT, …) without
 * blocking, and keeps the descriptor only when it is a regular file within `maxBytes`; otherwise a
 * NotRegularFileError. Other open errors (ENOENT, EACCES) are thrown as they are.
 */
export function openRegularFileSync(
  path: string,
  flags: number,
  options: RegularFileOptions = {},
): { fd: number; stats: Stats } {
  const { closeSync, fstatSync, openSync } = fs();
  let fd: number;
  try {
    fd = openSync(path, flagsOf(flags, options), options.mode);
  } catch (error) {
    throw openError(path, error, options);
  }
  try {
    const stats = fstatSync(fd);
    const refusal = options.anyKind
      ? undefined
      : refusalOf(stats, options.maxBytes ?? Number.POSITIVE_INFINITY);
    if (refusal !== undefined) throw new NotRegularFileError(path, refusal);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** openRegularFileSync, off the main thread: a FileHandle. */
export async function openRegularFile(
  path: string,
  flags: number,
  options: RegularFileOptions = {},
): Promise<{ handle: FileHandle; stats: Stats }> {
  const { open } = process.getBuiltinModule('node:fs/promises');
  let handle: FileHandle;
  try {
    handle = await open(path, flagsOf(flags, options), options.mode);
  } catch (error) {
    throw openError(path, error, options);
  }
  try {
    const stats = await handle.stat();
    const refusal = refusalOf(stats, options.maxBytes ?? Number.POSITIVE_INFINITY);
    if (refusal !== undefined) throw new NotRegularFileError(path, refusal);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The text of the regular file at `path`, of at most `maxBytes`, and what fstat said of it (ENOENT as it is). */
export function readRegularFileSync(path: string, maxBytes: number): { text: string; stats: Stats } {
  const { closeSync, constants, readSync } = fs();
  const { fd, stats } = openRegularFileSync(path, constants.O_RDONLY, { maxBytes });
  try {
    const chunks: Buffer[] = [];
    let length = 0;
    // To the end, never past the bound: a file that grew since fstat is refused all the same.
    for (;;) {
      const chunk = Buffer.alloc(chunkSize(stats.size, length, maxBytes));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      length += read;
      if (length > maxBytes) throw new NotRegularFileError(path, tooLarge(length, maxBytes));
    }
    return { text: Buffer.concat(chunks, length).toString('utf8'), stats };
  } finally {
    closeSync(fd);
  }
}

/** readRegularFileSync, off the main thread. */
export async function readRegularFile(
  path: string,
  maxBytes: number,
): Promise<{ text: string; stats: Stats }> {
  const { handle, stats } = await openRegularFile(path, fs().constants.O_RDONLY, { maxBytes });
  try {
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(chunkSize(stats.size, length, maxBytes));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) throw new NotRegularFileError(path, tooLarge(length, maxBytes));
    }
    return { text: Buffer.concat(chunks, length).toString('utf8'), stats };
  } finally {
    await handle.close();
  }
}

/** The next read: what fstat said is left, and one byte more (to see the end, or a file that grew). */
const chunkSize = (size: number, read: number, maxBytes: number) =>
  Math.max(4096, Math.min(size - read, maxBytes - read) + 1);
