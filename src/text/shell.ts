// Words as a POSIX shell reads them back, for every command line esign prints for a user to paste
// (the next batch command, the sandbox's first steps).

/** A word as a POSIX shell reads it back: bare when that is safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
