// Text from a server (or any other outside source) is data: before it reaches a terminal, every
// control character in it is shown as an escape, so that it can neither move the cursor, erase a
// line, set the window title (OSC) nor reorder what follows it (bidi overrides).

// C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi embeddings,
// overrides and isolates. Also `##[`: a CI runner (GitHub Actions) takes `##[command]` anywhere in a
// log line as a workflow command, so server text could otherwise stop masking (`##[stop-commands]`);
// its second `#` is written as `\x23`. (`::command::` counts at the start of a line after white
// space, which server text reaches in an indented detail line: the process streams neutralise
// that, src/text/runner-commands.ts.)
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|(?<=#)#(?=\[)/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|##\[/;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character written as a visible escape (`\x1b`, `\r`, `\u202e`). */
export function escapeControl(text: string): string {
  // The common case (no control character at all) costs one scan and no allocation.
  return HAS_CONTROL.test(text) ? text.replace(CONTROL, escapeOne) : text;
}

/** True when `text` holds a character escapeControl would escape. */
export function hasControl(text: string): boolean {
  return HAS_CONTROL.test(text);
}

/**
 * `text` cut to its first `maxChars` characters (with `…` when cut), then escaped: for text of any
 * length from a client or a server shown in one log line (a path, a header).
 */
export function escapedExcerpt(text: string, maxChars = 200): string {
  if (text.length <= maxChars) return escapeControl(text);
  // Never cut a surrogate pair in two: half of one would print as a replacement character.
  const end = /[\ud800-\udbff]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${escapeControl(text.slice(0, end))}…`;
}

/** escapedExcerpt in double quotes, a quote inside written `\"`: a value quoted in a message. */
export function quotedExcerpt(text: string, maxChars = 200): string {
  return `"${escapedExcerpt(text, maxChars).replace(/"/g, '\\"')}"`;
}
