// Replaces a file so that a reader (or a restart after kill -9 or a power cut) sees either the old
// content or the new, never a mix: write a temporary file beside it, fsync, rename over, fsync the folder.
import { rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StateFileSystem } from './file-system.js';

/** `files` is the host's (state/file-system.ts): its folder sync, and its open of a regular file. */
export async function writeFileAtomic(
  path: string,
  data: string,
  files: Pick<StateFileSystem, 'syncFolder' | 'openFile'>,
): Promise<void> {
  // One writer per file (the state lock), so a fixed temporary name is enough and leaves no litter.
  const temporary = `${path}.tmp`;
  const file = await files.openFile(temporary, 'write');
  try {
    await file.writeFile(data, 'utf8');
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  await rename(temporary, path);
  files.syncFolder(dirname(path));
}
