// Makes changes to a folder's entries (a new file, a rename) durable: fsync on the folder itself.
import { closeSync, fsyncSync, openSync } from 'node:fs';

/**
 * Some platforms cannot open or sync a folder (Windows; EINVAL on some file systems); that only
 * weakens power-cut safety, and passes. A failing disk (EIO) must not pass unseen.
 */
export function syncFolder(folder: string): void {
  let fd: number;
  try {
    fd = openSync(folder, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EIO') throw error;
  } finally {
    closeSync(fd);
  }
}
