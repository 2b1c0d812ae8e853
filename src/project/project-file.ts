// The project file `.esign.json`: template names, a default profile and defaults for a repository,
// found in the current folder or the nearest parent and checked in beside the code that sends.
// Precedence: flag > environment > project file > stored profile > default. It never holds a secret.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod/mini';
import { UsageError } from '../errors.js';
import { describeIssue } from '../text/issues.js';
import { locate, readJson } from '../text/json.js';
import { didYouMean } from '../text/suggest.js';
import { RATE_EXPECTED, readRate } from '../text/units.js';
import { expandEntryIssue, TemplateEntries, templateEntryKeysAt } from './template-entry.js';

export const PROJECT_FILE_NAME = '.esign.json';

export const ProjectFile = z.strictObject({
  /** Documentation link for editors; ignored. */
  $schema: z.optional(z.string()),
  /** The default profile for this repository (below --profile and ESIGN_PROFILE). */
  profile: z.optional(
    z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'is not a valid profile name')),
  ),
  /** Template names in force for every profile. */
  templates: z.optional(TemplateEntries),
  /** Per profile: names that add to or override the top-level ones (sandbox and production ids differ). */
  profiles: z.optional(
    z.record(
      z.string(),
      z.strictObject({
        templates: z.optional(TemplateEntries),
      }),
    ),
  ),
  /** Defaults below the flags. */
  defaults: z.optional(
    z.strictObject({
      expires_in_days: z.optional(
        z
          .int({ error: 'must be a whole number' })
          .check(z.gte(1, 'must be a whole number of days, at least 1')),
      ),
      concurrency: z.optional(
        z
          .int({ error: 'must be a whole number' })
          .check(z.gte(1, 'must be from 1 to 64'), z.lte(64, 'must be from 1 to 64')),
      ),
      // The form here, as --rate reads it (src/text/units.ts); a count the batch cannot pace at
      // (0/s) is refused where the batch reads it.
      rate: z.optional(
        z.string().check(z.refine((text) => readRate(text) !== undefined, `must be ${RATE_EXPECTED}`)),
      ),
    }),
  ),
});
export type ProjectFile = z.infer<typeof ProjectFile>;

/** A project file that was found and read. */
export interface LoadedProject {
  path: string;
  content: ProjectFile;
}

/** The nearest `.esign.json`, from `cwd` up to the root, or undefined. */
export function findProjectFile(cwd: string, exists: (path: string) => boolean): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, PROJECT_FILE_NAME);
    if (exists(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Finds and reads the project file for `cwd`; undefined when there is none. */
export function loadProjectFile(cwd: string): LoadedProject | undefined {
  const path = findProjectFile(cwd, existsSync);
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the project file ${path}: ${(error as Error).message}.`);
  }
  return { path, content: parseProjectFile(text, path) };
}

const HINT = 'See "The project file (.esign.json)" in the README for its keys.';

/** Parses the text of a project file; every problem names the file, a line and a column. */
export function parseProjectFile(text: string, path: string): ProjectFile {
  const read = readJson(text);
  if (!read.ok) {
    throw new UsageError(
      `${path}:${read.at.line}:${read.at.column}: the project file is not valid JSON: ${read.at.reason}.`,
      { hint: HINT },
    );
  }
  const secret = findTokenKey(read.value, []);
  if (secret) {
    const at = locate(text, secret);
    throw new UsageError(
      `${path}:${at.line}:${at.column}: the project file holds a token ('${secret.join('.')}'); secrets never live in a repository.`,
      {
        hint: 'Remove it (and revoke that token if the file was ever committed). In CI, give the token as ESIGN_TOKEN from a secret; on your machine, run `esign login`.',
      },
    );
  }
  const parsed = ProjectFile.safeParse(read.value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .flatMap((issue) => expandEntryIssue(issue, read.value))
    .map((issue) => describeProjectIssue(issue, text, path, read.value));
  throw new UsageError(problems[0] as string, { details: problems.slice(1), hint: HINT });
}

/** `path:line:column: 'key' what is wrong`, an unknown key with the keys there are. */
function describeProjectIssue(issue: z.core.$ZodIssue, text: string, path: string, root: unknown): string {
  const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const keyPath = [...issue.path.map(String), ...unknownKeys.slice(0, 1)];
  const at = locate(text, keyPath);
  const where = keyPath.length > 0 ? `'${keyPath.join('.')}'` : 'the top level';
  if (unknownKeys.length > 0) {
    const known = knownKeysAt(issue.path.map(String));
    return `${path}:${at.line}:${at.column}: unknown key ${where}.${didYouMean(unknownKeys[0] as string, known)} Known keys here: ${known.join(', ')}.`;
  }
  return `${path}:${at.line}:${at.column}: ${where} ${describeIssue(issue, root)}.`;
}

function knownKeysAt(path: string[]): string[] {
  if (path.length === 0) return ['profile', 'templates', 'profiles', 'defaults', '$schema'];
  if (path[0] === 'defaults') return ['expires_in_days', 'concurrency', 'rate'];
  const below = path[0] === 'templates' ? path.slice(1) : path[0] === 'profiles' ? path.slice(3) : undefined;
  if (below && (path[0] === 'templates' || path[2] === 'templates')) {
    const keys = templateEntryKeysAt(below);
    if (keys) return keys;
  }
  if (path[0] === 'profiles') return ['templates'];
  return [];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The path of the first key that names a token (`token`, `api_token`, `ESIGN_TOKEN`…), at any depth. */
function findTokenKey(value: unknown, path: string[]): string[] | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findTokenKey(item, [...path, String(index)]);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    // A template may be named "token-…"; its id is not a secret.
    const isTemplateName = path[path.length - 1] === 'templates';
    // …and a template's merge tag "token_count": a field's name, not a secret.
    const isFieldName = path[path.length - 1] === 'fields' && path[path.length - 3] === 'templates';
    if (!isTemplateName && !isFieldName && /token/i.test(key)) return [...path, key];
    const found = findTokenKey(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
