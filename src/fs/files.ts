/** Why a file could not be read, in plain words: "no such file", "permission denied", … */
export function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  return (error as Error)?.message ?? String(error);
}
