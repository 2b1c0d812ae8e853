// The one JSON reader: every JSON text esign reads (the config, the project file, `--data` files,
// batch input, the sandbox's seeds, state and request bodies) goes through parseJsonText.
//
// JSON.parse decides what is valid and is the fast path (a batch parses each JSON Lines record with
// it). Only when it fails does jsonc-parser (what wrangler uses) walk the text again to say where and
// why: V8's messages differ between Node versions and some carry no position at all. jsonc-parser
// also finds the position of a key, so a message can point at the offending key of a file. It
// replaces two hand-written scanners; it reads JSONC, but with comments and trailing commas
// reported as errors, and JSON.parse having the last word, the format stays JSON.
// Its public entry: the bundle takes its ES-module build (`module`, scripts/bundle-options.mjs), as
// its UMD `main` holds require() calls esbuild cannot follow.
import { findNodeAtLocation, type Node, parseTree, printParseErrorCode, visit } from 'jsonc-parser';

export interface JsonSyntaxProblem {
  line: number;
  column: number;
  reason: string;
}

/** `text` without a leading UTF-8 byte-order mark (PowerShell 5 and Notepad write one). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The value, or where and why the text is not JSON. */
export type JsonReading = { ok: true; value: unknown } | { ok: false; at: JsonSyntaxProblem };

/**
 * JSON.parse that strips a byte-order mark and, on failure, finds the line, column and reason.
 * Lines and columns count from 1 and from after the byte-order mark, as an editor shows them.
 */
export function readJson(text: string): JsonReading {
  const body = stripBom(text);
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, at: describeFailure(body, error) };
  }
}

/** A file of our own read with a depth limit: the value, or why not (`deep`: it nests too deep). */
export type BoundedJsonReading =
  | { ok: true; value: unknown }
  | { ok: false; deep: { line: number; column: number } }
  | { ok: false; deep?: undefined; at: JsonSyntaxProblem };

/**
 * readJson for a file of esign's own (the config, the project file): one nested deeper than
 * `maxDepth` is refused, with where, before JSON.parse or anything recursive (a key's position, a
 * walk of the value) meets it.
 */
export function readBoundedJson(text: string, maxDepth: number): BoundedJsonReading {
  const deep = findDeepNesting(text, maxDepth);
  return deep ? { ok: false, deep } : readJson(text);
}

/** readJson with the problem as `line L, column C: reason`. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const read = readJson(text);
  if (read.ok) return read;
  return { ok: false, problem: `line ${read.at.line}, column ${read.at.column}: ${read.at.reason}` };
}

function unlocated(error: unknown): JsonSyntaxProblem {
  return { line: 1, column: 1, reason: error instanceof Error ? error.message : String(error) };
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Finds the first syntax error in `text` (after a byte-order mark), or undefined when it is valid JSON. */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const read = readJson(text);
  return read.ok ? undefined : read.at;
}

/** Where and why `body` (which JSON.parse refused with `error`) is not JSON. */
function describeFailure(body: string, error: unknown): JsonSyntaxProblem {
  const first = firstError(body);
  if (!first) return unlocated(error);
  return { ...lineAndColumn(body, first.offset), reason: first.reason };
}

// ---- Describing a failure: the first error jsonc-parser meets, in words. ----

interface Located {
  offset: number;
  reason: string;
}

type Container = 'object' | 'array';

type ErrorCode = ReturnType<typeof printParseErrorCode>;

interface ErrorSeen {
  code: ErrorCode;
  offset: number;
  length: number;
  /** The innermost object or array around it; undefined at the top level. */
  inside: Container | undefined;
  /** Whether a complete value stood at the top level before it. */
  afterValue: boolean;
}

/** The first error in `text` as jsonc-parser sees it, with the one after it (which sharpens some). */
function firstErrors(text: string): ErrorSeen[] {
  const seen: ErrorSeen[] = [];
  const stack: Container[] = [];
  let topLevelValues = 0;
  const enter = (container: Container) => () => {
    stack.push(container);
  };
  const leave = () => {
    stack.pop();
    if (stack.length === 0) topLevelValues++;
  };
  visit(
    text,
    {
      onObjectBegin: enter('object'),
      onArrayBegin: enter('array'),
      onObjectEnd: leave,
      onArrayEnd: leave,
      onLiteralValue: () => {
        if (stack.length === 0) topLevelValues++;
      },
      onError: (code, offset, length) => {
        if (seen.length < 2) {
          seen.push({
            code: printParseErrorCode(code),
            offset,
            length,
            inside: stack.at(-1),
            afterValue: topLevelValues > 0,
          });
        }
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return seen;
}

function firstError(text: string): Located | undefined {
  let seen: ErrorSeen[];
  try {
    seen = firstErrors(text);
  } catch {
    return undefined; // nested deeper than the stack: V8's own message says what it can
  }
  const [first, second] = seen;
  if (!first) return undefined;
  // `'a'` or `tru` is an invalid symbol followed by "value expected" or "property name expected":
  // the second error says what was wanted, at the first one's place.
  const sharpened =
    first.code === 'InvalidSymbol' &&
    second !== undefined &&
    (second.code === 'PropertyNameExpected' || second.code === 'ValueExpected')
      ? { ...second, offset: first.offset }
      : first;
  return describe(text, sharpened);
}

const STRING_ERRORS = new Set<ErrorCode>([
  'UnexpectedEndOfString',
  'InvalidCharacter',
  'InvalidEscapeCharacter',
  'InvalidUnicode',
]);

function describe(text: string, error: ErrorSeen): Located {
  if (STRING_ERRORS.has(error.code)) return describeStringError(text, error.offset);
  const at = error.offset;
  const found = foundAt(text, at);
  const after = error.inside === 'object' ? 'a property value' : 'an array element';
  const close = error.inside === 'object' ? '}' : ']';
  switch (error.code) {
    case 'ValueExpected':
      return { offset: at, reason: describeMissingValue(text, at) };
    case 'PropertyNameExpected':
      return text[at] === '}' && previousSignificant(text, at) === ','
        ? { offset: at, reason: "trailing comma before '}'" }
        : { offset: at, reason: `expected a property name in double quotes, found ${found}` };
    case 'ColonExpected':
      return { offset: at, reason: `expected ':' after a property name, found ${found}` };
    case 'CommaExpected':
    case 'CloseBraceExpected':
    case 'CloseBracketExpected':
      return { offset: at, reason: `expected ',' or '${close}' after ${after}, found ${found}` };
    case 'InvalidCommentToken':
    case 'UnexpectedEndOfComment':
      return { offset: at, reason: 'comments are not allowed in JSON' };
    case 'UnexpectedEndOfNumber':
      return { offset: at, reason: `a number cannot end like ${quote(text.slice(at, at + error.length))}` };
    default:
      return {
        offset: at,
        reason:
          error.inside === undefined && error.afterValue
            ? `unexpected ${found} after the end of the JSON value`
            : `unexpected ${found}`,
      };
  }
}

function describeMissingValue(text: string, at: number): string {
  if (at >= text.length) return 'unexpected end of input (the input is empty or cut short)';
  if (text[at] === ']' && previousSignificant(text, at) === ',') return "trailing comma before ']'";
  return `unexpected ${foundAt(text, at)}`;
}

/** Where in a string starting at `start` it goes wrong: a control character, a bad escape, or its end. */
function describeStringError(text: string, start: number): Located {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) break;
    if (c < 0x20) return { offset: i, reason: 'unescaped control character (a line break?) inside a string' };
    if (c === 92) {
      const problem = describeEscape(text, i);
      if (problem) return { offset: i, reason: problem };
      i++;
    }
  }
  return { offset: text.length, reason: 'unterminated string' };
}

function describeEscape(text: string, backslash: number): string | undefined {
  const e = text[backslash + 1];
  if (e === 'u') {
    return /^[0-9a-fA-F]{4}$/.test(text.slice(backslash + 2, backslash + 6))
      ? undefined
      : 'bad \\u escape in a string';
  }
  return e !== undefined && '"\\/bfnrt'.includes(e) ? undefined : 'bad escape in a string';
}

function previousSignificant(text: string, before: number): string | undefined {
  for (let i = before - 1; i >= 0; i--) {
    if (!' \t\n\r'.includes(text[i] as string)) return text[i];
  }
  return undefined;
}

function foundAt(text: string, at: number): string {
  return at >= text.length ? 'the end of the input' : quote(text[at] as string);
}

const quote = (text: string) => `'${text}'`;

// ---- Positions of keys ----

/**
 * Line and column of the key at `path` in valid JSON text (of its value for an array index), or of
 * the nearest enclosing key or value that exists: where a person should look.
 */
export function locate(text: string, path: readonly string[]): { line: number; column: number } {
  const body = stripBom(text);
  const root = parseTree(body, [], { disallowComments: true });
  if (!root) return { line: 1, column: 1 };
  for (let length = path.length; length > 0; length--) {
    const node = findNodeAtLocation(root, toSegments(root, path.slice(0, length)));
    if (node) return lineAndColumn(body, positionOf(node));
  }
  return lineAndColumn(body, root.offset);
}

/** Array indexes as numbers where the tree has arrays, as findNodeAtLocation wants them. */
function toSegments(root: Node, path: readonly string[]): (string | number)[] {
  const segments: (string | number)[] = [];
  let node: Node | undefined = root;
  for (const step of path) {
    const segment: string | number = node?.type === 'array' ? Number(step) : step;
    segments.push(segment);
    node = node ? findNodeAtLocation(node, [segment]) : undefined;
  }
  return segments;
}

/** A property's value → its key; an array element → itself. */
function positionOf(node: Node): number {
  const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
  return (key ?? node).offset;
}

// ---- Depth ----

/**
 * Where `text` opens its `maxDepth + 1`th nested object or array, or undefined when it nests no
 * deeper than `maxDepth`. One pass, no recursion: a file of 100,000 `[` is told where it goes too
 * deep before anything recursive (a key's position, a walk of the value) meets it.
 */
function findDeepNesting(text: string, maxDepth: number): { line: number; column: number } | undefined {
  const body = stripBom(text);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character.
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > maxDepth) return lineAndColumn(body, i);
    } else if (c === 125 || c === 93) depth--;
  }
  return undefined;
}
