// zod issues as lines a person can act on: `organisations.0.templates.1.id: must be a ULID…`,
// with "is required" for a missing field and the names of unknown fields (zod says only "Invalid input").

interface Issue {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

export function describeIssuesIn(input: unknown, issues: readonly Issue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    let message = issue.message;
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      message = `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    } else if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) {
      message = 'is required';
    }
    return path ? `${path}: ${message}` : message;
  });
}
