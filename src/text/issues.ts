// zod issues as text, decided once: every message about a file, a flag, a record or a body that
// zod found wrong is worded here. A schema's own message ("must be an email address, like …") is
// kept as it is; zod/mini's default, a bare "Invalid input", is put in plain words from the issue
// itself: "is required" for a missing field, "must be a JSON object", "must be true or false",
// "unknown field 'x'".

/** The parts of a zod issue that the wording reads (zod's issue types are all assignable to it). */
export interface IssueLike {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: string;
  readonly keys?: readonly string[];
  readonly values?: readonly unknown[];
  readonly options?: readonly unknown[];
  readonly origin?: string;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly inclusive?: boolean;
  /** Present when the schema was run with `reportInput`. */
  readonly input?: unknown;
  /** A record key's own issues (`invalid_key`): the key schema's message is there. */
  readonly issues?: readonly IssueLike[];
}

const ZOD_DEFAULT = 'Invalid input';

/** The path of an issue as `signatory.email`, or '' at the top level. */
export function issuePath(issue: Pick<IssueLike, 'path'>): string {
  return issue.path.map(String).join('.');
}

/**
 * What is wrong, in words, without the path. `root` is the value that was checked: with it (or with
 * `reportInput`), a missing field reads "is required" rather than "must be a string".
 */
export function describeIssue(issue: IssueLike, root?: unknown): string {
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
  }
  if (issue.code === 'invalid_type' && isMissing(issue, root)) return 'is required';
  if (issue.message !== ZOD_DEFAULT) return issue.message;
  return describeDefault(issue) ?? issue.message;
}

/** `path: message` lines (the message alone at the top level). */
export function describeIssues(issues: readonly IssueLike[], root?: unknown): string[] {
  return issues.map((issue) => {
    const path = issuePath(issue);
    const message = describeIssue(issue, root);
    return path ? `${path}: ${message}` : message;
  });
}

function isMissing(issue: IssueLike, root: unknown): boolean {
  if ('input' in issue) return issue.input === undefined;
  return root !== undefined && valueAt(root, issue.path) === undefined;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const anyOf = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join(' or ');

/** zod/mini's bare "Invalid input" in words, where the issue says enough. */
function describeDefault(issue: IssueLike): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === undefined ? undefined : `must be ${typeInWords(issue.expected)}`;
    case 'invalid_value':
      return issue.values ? `must be ${anyOf(issue.values)}` : undefined;
    case 'invalid_union':
      return issue.options ? `must be ${anyOf(issue.options)}` : undefined;
    case 'too_small':
      return issue.origin === 'number'
        ? `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`
        : undefined;
    case 'too_big':
      return issue.origin === 'number'
        ? `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`
        : undefined;
    // A record key the key schema refused: its own message says which rule (an empty field name).
    case 'invalid_key':
      return issue.issues?.[0] ? describeIssue(issue.issues[0]) : undefined;
    default:
      return undefined;
  }
}

function typeInWords(expected: string): string {
  if (expected === 'object' || expected === 'record') return 'a JSON object';
  if (expected === 'array' || expected === 'tuple') return 'a JSON array';
  if (expected === 'int') return 'a whole number';
  if (expected === 'boolean') return 'true or false';
  return `a ${expected}`;
}
