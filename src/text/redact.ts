// What never reaches an output or a file esign writes: each registered secret (the token) is
// replaced by [redacted] wherever any 16-character slice of it appears, in any of the forms it can
// take on the way out:
// - as written;
// - JSON-escaped, as `--json` output and JSON error bodies carry it (a token holding `"` or `\`),
//   and with `/` written `\/` as PHP's json_encode writes it;
// - URL-encoded, as a server may echo it inside a link or a query: encodeURIComponent, encodeURI
//   and form encoding (`+` for a space), each with upper- and lower-case hex digits;
// - with `%` written `%25`, as a workflow command's data carries a URL-encoded form.
// A slice, not only the whole: a server echoing the first 16 characters (a log line that quotes the
// header) or the secret part without its public `tok_live_` prefix gives away most of it.
// Secrets shorter than 4 characters are not looked for (they would mask ordinary text); a secret
// shorter than 16 characters is masked only whole.
//
// It runs on every line esign writes, so the common case (no secret in the text) costs a few
// native substring searches: every 16-character slice of a form holds one of a few of its
// 9-character blocks (one every 8 characters), so only those blocks are searched for, and a hit is
// then extended both ways along the form.

export const REDACTED = '[redacted]';
/** The shortest part of a secret that is masked on its own. */
const MIN_SLICE = 16;
const MIN_SECRET = 4;
/** Blocks start every STRIDE characters; BLOCK + STRIDE - 1 = MIN_SLICE, so every slice holds one. */
const STRIDE = 8;
const BLOCK = MIN_SLICE - STRIDE + 1;

/** What the search needs of one form of a secret. */
interface Form {
  text: string;
  /** Its blocks (one every STRIDE characters), each with its offset in the form. */
  blocks: { at: number; block: string }[];
}

/** The forms of each secret seen (a run has one or two secrets; every output line asks). */
const formsOf = new Map<string, Form[]>();

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

/** Each encoding of `secret` that differs from the others. */
export function encodingsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const found = new Set([secret, json, json.replaceAll('/', '\\/')]);
  try {
    for (const encoded of [
      encodeURIComponent(secret),
      encodeURI(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ]) {
      found.add(encoded);
      found.add(lowerHex(encoded));
    }
  } catch {
    // A lone surrogate has no URL encoding; the other forms still count.
  }
  // A workflow command's data escapes `%` as `%25` (src/ci/github-actions.ts): a URL-encoded form
  // inside an annotation or a mask.
  for (const form of [...found]) if (form.includes('%')) found.add(form.replaceAll('%', '%25'));
  return [...found];
}

function formsFor(secret: string): Form[] {
  let found = formsOf.get(secret);
  if (!found) {
    found = encodingsOf(secret).map((text) => {
      const blocks: Form['blocks'] = [];
      // The block at `at` lies inside every slice that starts from STRIDE - 1 characters before it
      // up to `at` itself: the fewest blocks that leave no slice out.
      for (let next = 0; next <= text.length - MIN_SLICE; ) {
        const at = Math.min(next + STRIDE - 1, text.length - BLOCK);
        blocks.push({ at, block: text.slice(at, at + BLOCK) });
        next = at + 1;
      }
      return { text, blocks };
    });
    if (formsOf.size > 16) formsOf.clear();
    formsOf.set(secret, found);
  }
  return found;
}

type Range = [start: number, end: number];

/** Every occurrence of a form shorter than MIN_SLICE, whole. */
function findWhole(text: string, form: string, ranges: Range[]): void {
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + form.length)) {
    ranges.push([at, at + form.length]);
  }
}

/** Every run of MIN_SLICE+ characters of `form` in `text`, each as long as it goes. */
function findSlices(text: string, form: Form, ranges: Range[]): void {
  const chars = form.text;
  for (const { at: offset, block } of form.blocks) {
    for (let at = text.indexOf(block); at !== -1; at = text.indexOf(block, at + 1)) {
      let start = at;
      let from = offset;
      while (start > 0 && from > 0 && text[start - 1] === chars[from - 1]) {
        start--;
        from--;
      }
      let end = at + BLOCK;
      let to = offset + BLOCK;
      while (end < text.length && to < chars.length && text[end] === chars[to]) {
        end++;
        to++;
      }
      if (end - start >= MIN_SLICE) ranges.push([start, end]);
    }
  }
}

/** `text` with each range (overlapping ones merged) replaced by REDACTED. */
function replaceRanges(text: string, ranges: Range[]): string {
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  let [start, end] = ranges[0] as Range;
  for (const [nextStart, nextEnd] of ranges) {
    if (nextStart < end) {
      end = Math.max(end, nextEnd);
      continue;
    }
    out += text.slice(from, start) + REDACTED;
    from = end;
    [start, end] = [nextStart, nextEnd];
  }
  return out + text.slice(from, start) + REDACTED + text.slice(end);
}

/** `text` with every registered secret masked. Costs nothing when there is none. */
export function redact(text: string, secrets: ReadonlySet<string>): string {
  if (secrets.size === 0) return text;
  const ranges: Range[] = [];
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    for (const form of formsFor(secret)) {
      if (form.text.length < MIN_SLICE) findWhole(text, form.text, ranges);
      else findSlices(text, form, ranges);
    }
  }
  return ranges.length === 0 ? text : replaceRanges(text, ranges);
}

/**
 * `value` with every string in it (object values and array items, however deep) passed through
 * `redactText`: a report or an envelope redacted once, before any of it is formatted or escaped.
 */
export function redactStrings<T>(value: T, redactText: (text: string) => string): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redactText)) as T;
  if (value !== null && typeof value === 'object' && isPlain(value)) {
    // fromEntries defines each key, `__proto__` included, as a plain property.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactStrings(item, redactText)]),
    ) as T;
  }
  return value;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
