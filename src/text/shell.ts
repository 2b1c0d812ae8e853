// Words as a POSIX shell reads them back, for every command line esign prints for a user to paste
// (the next batch command, the sandbox's first steps).

/**
 * A control character that acts on the terminal showing the command (ESC, BEL, CR, C1, bidi
 * overrides…): a tab or a line break only moves the text, and single quotes keep them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ACTING_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ESCAPED_IN_DOLLAR_QUOTES = /[\\'\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `char` as `$'…'` writes it: `\\`, `\'`, `\x1b` below 0x80, `\u009b` above (a character, not a byte). */
function dollarQuoteEscape(char: string): string {
  if (char === '\\' || char === "'") return `\\${char}`;
  const code = char.charCodeAt(0);
  return code < 0x80
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A word as a POSIX shell reads it back: bare when that is safe, else in single quotes. A word with
 * a control character that would act on the terminal (a folder whose name holds `ESC ] 0;…` sets
 * the window title when printed) is written in `$'…'` with escapes (`\x1b`), which bash, zsh, ksh
 * and POSIX.1-2024 shells read back as the same word.
 */
export function shellQuote(word: string): string {
  if (ACTING_CONTROL.test(word)) return `$'${word.replace(ESCAPED_IN_DOLLAR_QUOTES, dollarQuoteEscape)}'`;
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
