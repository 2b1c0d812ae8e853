// Text on a stream a CI runner reads, made unable to act as a workflow command. The GitHub Actions
// runner reads each line of a step's stdout and stderr (split at \n, \r and \r\n) and takes it as a
// command when (actions/runner, Runner.Common/ActionCommand.cs):
// - TryParseV2: the line, after TrimStart() (every Unicode white space), starts with `::`;
// - TryParse: `##[` occurs anywhere in it.
// Both compare with .NET's culture-aware StartsWith and IndexOf, which skip characters the Unicode
// collation ignores (a soft hyphen, a zero-width space, most control characters), so those count
// as nothing here too. Server text or a file's text (a field named `::stop-commands::x`, printed
// indented as `  ::stop-commands::x: …`) could otherwise stop the masking of every later line.
//
// The character that completes the pattern is written as a visible escape, as terminal-text.ts
// writes the controls in server text: a line-leading `::` becomes `:\x3a`, `##[` becomes `##\x5b`.
// The completing character always lies in the chunk being written, so a pattern split across two
// writes is caught as well: the state carries what the line so far could still become.

// The two classes below are [\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}] and
// [\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}] as Unicode 17 (Node 26) defines them, written out:
// V8 builds a class of Unicode properties anew for every pattern that holds one, and this module's
// dozen patterns are built by every command. A test checks, on every Node, that they hold every
// character the properties hold there (test/unit/runner-commands.test.ts).
const SKIPPED_CHARS = String.raw`\u0000-\u0020\u007f-\u00a0\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u1680\u17b4-\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}`;
const IGNORED_CHARS = String.raw`\u0000-\u001f\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u17b4-\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}`;
/** White space TrimStart removes, and what a culture-aware comparison skips. */
export const SKIPPED = `[${SKIPPED_CHARS}]`;
/** The characters a culture-aware comparison skips. */
export const IGNORED_CLASS = `[${IGNORED_CHARS}]`;
/** What a culture-aware comparison skips between the characters of `::` or `##[` (a line break ends the line). */
const IGNORED = String.raw`(?:(?![\n\r])${IGNORED_CLASS})`;
/** A line break of the runner's reader. */
const BREAK = String.raw`[\n\r]`;

// The text is scanned with a prefix that stands for the line so far (see `prefixOf`): `\n` at the
// start of a line, `\n ` after white space only, `\n :` after white space and a first colon, `x`
// after anything else, and `x#` or `x##` when the line so far ends with one or two `#`.
const LINE_START = new RegExp(`(${BREAK}${SKIPPED}*:${IGNORED}*):`, 'gu');
const ANYWHERE = new RegExp(
  String.raw`(${BREAK}${SKIPPED}*:${IGNORED}*):|(#${IGNORED}*#${IGNORED}*)\[`,
  'gu',
);
/**
 * `##[` as the runner finds it anywhere in a line (what its comparison skips may stand between),
 * with the `#`s as group 1: for text that must keep its meaning, such as a JSON line (inertJsonLine).
 */
export const RUNNER_HASH_BRACKET = new RegExp(String.raw`(#${IGNORED}*#${IGNORED}*)\[`, 'gu');
const STATE_AFTER = {
  lineStart: new RegExp(`${BREAK}${SKIPPED}*$`, 'u'),
  colon: new RegExp(`${BREAK}${SKIPPED}*:${IGNORED}*$`, 'u'),
  hashes: new RegExp(`#(?:${IGNORED}*#)?${IGNORED}*$`, 'u'),
};

export interface CommandGuardOptions {
  /** Also `##[` anywhere in a line (stderr). On stdout, data such as a URL is left exactly as is. */
  anywhere: boolean;
}

/**
 * A guard for one stream: `inert(chunk)` returns the chunk made inert, given everything written
 * through it before; `written(text)` tells it about text that went out another way (esign's own
 * workflow commands). Writes may end anywhere, mid-line included.
 */
export class CommandGuard {
  /** What the line so far stands for, as the prefix of the next scan. */
  #prefix = '\n';
  readonly #pattern: RegExp;
  readonly #anywhere: boolean;

  constructor(options: CommandGuardOptions) {
    this.#anywhere = options.anywhere;
    this.#pattern = options.anywhere ? ANYWHERE : LINE_START;
  }

  /** Whether the next character written starts a line. */
  get atLineStart(): boolean {
    return this.#prefix === '\n';
  }

  inert(chunk: string): string {
    if (chunk === '') return chunk;
    const prefix = this.#prefix;
    // With nothing carried over (a line start, or a line with text), a cheap test usually settles it.
    const settled = (prefix === '\n' || prefix === 'x') && !mayMatch(chunk, prefix === '\n', this.#anywhere);
    const out = settled
      ? chunk
      : (prefix + chunk)
          .replace(this.#pattern, (_match, colon?: string, hashes?: string) =>
            colon === undefined ? `${hashes}\\x5b` : `${colon}\\x3a`,
          )
          .slice(prefix.length);
    this.#prefix = prefixOf(prefix, out, this.#anywhere);
    return out;
  }

  written(text: string): void {
    if (text !== '') this.#prefix = prefixOf(this.#prefix, text, this.#anywhere);
  }
}

/**
 * False when `chunk` surely holds nothing to neutralise: no `#` (when `anywhere`), no `\r`, and no
 * line that starts with a `:`, a space or control, or a character that is not ASCII (every
 * character the patterns skip is one of those). Native searches only: it runs on every write.
 */
function mayMatch(chunk: string, startsLine: boolean, anywhere: boolean): boolean {
  if ((anywhere && chunk.includes('#')) || chunk.includes('\r')) return true;
  if (startsLine && mayStartCommand(chunk.charCodeAt(0))) return true;
  for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', at + 1)) {
    if (mayStartCommand(chunk.charCodeAt(at + 1))) return true;
  }
  return false;
}

/** A line starting with this character code may be a command after what the runner skips (NaN: no character). */
function mayStartCommand(code: number): boolean {
  return code === 0x3a || code <= 0x20 || code >= 0x7f;
}

/** The prefix that stands for the line so far, after `prefix` (the line before) and then `text`. */
function prefixOf(prefix: string, text: string, anywhere: boolean): string {
  const last = text.charAt(text.length - 1);
  if (last === '\n' || last === '\r') return '\n';
  // Only the current line matters: from the last break on, or all of it after the prefix (which
  // starts with a break, or with `x` for a line that has text).
  const lastBreak = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  const line = lastBreak === -1 ? prefix + text : text.slice(lastBreak);
  if (STATE_AFTER.lineStart.test(line)) return '\n ';
  if (STATE_AFTER.colon.test(line)) return '\n :';
  if (anywhere) {
    const hashes = STATE_AFTER.hashes.exec(line)?.[0];
    if (hashes !== undefined) return (hashes.match(/#/g) ?? []).length >= 2 ? 'x##' : 'x#';
  }
  return 'x';
}
