/** Why a file could not be read, in plain words: "no such file", "permission denied", … */
export function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'ENOSPC') return 'no space left on the disk';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  if (code === 'EROFS') return 'the file system is read-only';
  return (error as Error)?.message ?? String(error);
}

/** Whether a write failed because the disk, or the user's quota on it, is full. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
