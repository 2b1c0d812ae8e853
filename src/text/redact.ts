// What never reaches stdout or stderr: each registered secret (the token) is replaced by
// [redacted] wherever it appears, in any of the forms it can take on the way out:
// - as written;
// - JSON-escaped, as `--json` output and JSON error bodies carry it (a token holding `"` or `\`);
// - cut short: a server echoing the first 16 characters or more of it (a log line, an error that
//   quotes the header) gives away most of it, so any run of 16+ leading characters goes too.
// Secrets shorter than 4 characters are not looked for (they would mask ordinary text).

export const REDACTED = '[redacted]';
/** The shortest leading part of a secret that is masked on its own. */
export const MIN_PREFIX = 16;
const MIN_SECRET = 4;

/** The forms of each secret seen (a run has one or two secrets; every output line asks). */
const formsOf = new Map<string, string[]>();

/** The forms of a secret to look for: as written, and JSON-escaped when that differs. */
function forms(secret: string): string[] {
  let found = formsOf.get(secret);
  if (!found) {
    const escaped = JSON.stringify(secret).slice(1, -1);
    found = escaped === secret ? [secret] : [secret, escaped];
    if (formsOf.size > 16) formsOf.clear();
    formsOf.set(secret, found);
  }
  return found;
}

/** Replaces every run of `MIN_PREFIX`+ leading characters of `form` in `text`. */
function maskPrefixes(text: string, form: string): string {
  if (form.length < MIN_PREFIX) return text;
  const head = form.slice(0, MIN_PREFIX);
  let at = text.indexOf(head);
  if (at === -1) return text;
  let out = '';
  let from = 0;
  while (at !== -1) {
    let end = at + MIN_PREFIX;
    while (end < text.length && end - at < form.length && text[end] === form[end - at]) end++;
    out += text.slice(from, at) + REDACTED;
    from = end;
    at = text.indexOf(head, end);
  }
  return out + text.slice(from);
}

/** `text` with every registered secret masked. Costs nothing when there is none. */
export function redact(text: string, secrets: ReadonlySet<string>): string {
  if (secrets.size === 0) return text;
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    for (const form of forms(secret)) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
      out = maskPrefixes(out, form);
    }
  }
  return out;
}
