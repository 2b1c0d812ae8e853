// The project file `.esign.json`: template names, a default profile and defaults for a repository,
// found in the current folder or the nearest parent and checked in beside the code that sends.
// Precedence: flag > environment > project file > stored profile > default. It never holds a secret.
// It is used only when it is trusted (./trust.ts); its text is data, escaped in every message.
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { ULID_PATTERN } from '../api/schemas.js';
import type { Env } from '../context.js';
import { UsageError } from '../errors.js';
import { currentUser } from '../fs/ownership.js';
import { MAX_SETTINGS_BYTES, NotRegularFileError, readRegularFileSync } from '../fs/regular-file.js';
import { describeIssue } from '../text/issues.js';
import { locate, readBoundedJson } from '../text/json.js';
import { isPlainObject } from '../text/plain-object.js';
import { shellQuote } from '../text/shell.js';
import { didYouMean } from '../text/suggest.js';
import { escapeControl } from '../text/terminal-text.js';
import { RATE_EXPECTED, readRate } from '../text/units.js';
import {
  expandEntryIssue,
  fieldNameProblem,
  TemplateEntries,
  templateEntryKeysAt,
} from './template-entry.js';
import { distrustReason, inspect } from './trust.js';

export const PROJECT_FILE_NAME = '.esign.json';

const ProfileName = z.optional(
  z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'is not a valid profile name')),
);

export const ProjectFile = z.strictObject({
  /** Documentation link for editors; ignored. */
  $schema: z.optional(z.string()),
  /** The default profile for this repository (below --profile and ESIGN_PROFILE). */
  profile: ProfileName,
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

/** What looking for the project file found: the file in force, and what to warn about. */
export interface ProjectLookup {
  /** The project file in force; undefined when none was found, or the one found is not trusted. */
  project: LoadedProject | undefined;
  /** Lines for stderr (each one sentence, without "warning: "): a file set aside, or problems passed over. */
  warnings: string[];
}

export interface LookupOptions {
  env: Env;
  /**
   * What the command takes from the file. 'everything' (create, batch, templates, status, which
   * shows the names): any problem is an error. 'profile' (login, logout, config, profile list): the
   * command uses the file's profile only, so a problem elsewhere in it (a bad template id) is a warning.
   */
  uses?: 'everything' | 'profile';
  /** The profile is named by a flag or the environment: the file's own `profile` does not matter. */
  profileNamed?: boolean;
}

const NO_PROJECT: ProjectLookup = { project: undefined, warnings: [] };

/**
 * The project file for `cwd`: the file ESIGN_PROJECT_FILE names (used as it is: the user named it),
 * else the nearest `.esign.json` from `cwd` up, used only when it is trusted (./trust.ts).
 */
export function lookUpProjectFile(cwd: string, options: LookupOptions): ProjectLookup {
  const named = options.env.ESIGN_PROJECT_FILE;
  if (named) return readProject(namedProjectFile(resolve(cwd, named)), options);
  const path = findProjectFile(cwd);
  if (!path) return NO_PROJECT;
  const user = currentUser(options.env);
  const reason = user === undefined ? undefined : distrustReason(inspect(path), user);
  if (reason) return { project: undefined, warnings: [setAside(path, reason)] };
  return readProject(path, options);
}

/** The project file for `cwd` (lookUpProjectFile, every problem an error, warnings dropped). */
export function loadProjectFile(cwd: string, env: Env = {}): LoadedProject | undefined {
  return lookUpProjectFile(cwd, { env }).project;
}

function setAside(path: string, reason: string): string {
  return (
    `${escapeControl(path)} is not used: it ${reason}. esign uses a project file only when it is yours ` +
    `and no other user can change or replace it, as git trusts a repository. If you trust it, name it: ` +
    `ESIGN_PROJECT_FILE=${shellQuote(path)}`
  );
}

/**
 * The nearest `.esign.json`, from `cwd` up to the root, or undefined. Whatever stands there under
 * that name is the project file: a symbolic link that leads nowhere or loops, or a folder, is an
 * error naming it, never a reason to go on to a parent's file.
 */
function findProjectFile(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, PROJECT_FILE_NAME);
    if (standsThere(candidate)) {
      checkIsFile(candidate);
      return candidate;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether anything (a file, a folder, a link wherever it leads) has the name; unreadable folders have nothing. */
function standsThere(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function checkIsFile(path: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what =
      code === 'ELOOP'
        ? 'is a symbolic link that loops'
        : code === 'ENOENT'
          ? `is a symbolic link to ${escapeControl(readlinkSync(path))}, which does not exist`
          : `cannot be read: ${(error as Error).message}`;
    throw new UsageError(`The project file ${escapeControl(path)} ${what}.`, {
      hint: `Fix or remove it: esign takes the nearest ${PROJECT_FILE_NAME} and does not look past it to a parent folder's.`,
    });
  }
  if (!isFile) {
    throw new UsageError(`The project file ${escapeControl(path)} is not a file.`, {
      hint: `Rename it: esign takes the nearest ${PROJECT_FILE_NAME} and does not look past it to a parent folder's.`,
    });
  }
}

function namedProjectFile(path: string): string {
  if (!standsThere(path)) {
    throw new UsageError(`ESIGN_PROJECT_FILE names ${escapeControl(path)}, which does not exist.`, {
      hint: 'Give the path of a project file, or unset ESIGN_PROJECT_FILE to use the nearest .esign.json.',
    });
  }
  checkIsFile(path);
  return path;
}

function readProject(path: string, options: LookupOptions): ProjectLookup {
  let text: string;
  try {
    // A regular file of a sane size, decided at the open: a named pipe is refused, never waited on.
    text = readRegularFileSync(path, MAX_SETTINGS_BYTES).text;
  } catch (error) {
    if (error instanceof NotRegularFileError) throw error;
    throw new UsageError(`Cannot read the project file ${escapeControl(path)}: ${(error as Error).message}.`);
  }
  try {
    return { project: { path, content: parseProjectFile(text, path) }, warnings: [] };
  } catch (error) {
    if (options.uses !== 'profile' || !(error instanceof UsageError)) throw error;
    // A command that uses only the file's profile goes on when that profile is still clear.
    const profile = options.profileNamed ? {} : profileAlone(text);
    if (profile === undefined) throw error;
    const problems = [error.message, ...error.details];
    return {
      project: { path, content: profile },
      warnings: [
        ...problems,
        `this command uses only the project file's profile and goes on; a command that uses its templates refuses it until it is fixed.`,
      ],
    };
  }
}

/** The file's `profile` alone (or {} when it names none), or undefined when that cannot be told. */
function profileAlone(text: string): { profile?: string } | undefined {
  const read = readBoundedJson(text, MAX_DEPTH);
  if (!read.ok || !isPlainObject(read.value)) return undefined;
  if (!Object.hasOwn(read.value, 'profile')) return {};
  const profile = ProfileName.safeParse(read.value.profile);
  return profile.success ? { profile: profile.data } : undefined;
}

const HINT = 'See docs/project-file.md for its keys.';

/**
 * How deep a project file may nest objects and arrays. The deepest key a project file has is five
 * levels down; a file much deeper is not a project file, and is refused before anything recursive
 * (a key's position, the walk for a token) meets it.
 */
const MAX_DEPTH = 32;

/** Parses the text of a project file; every problem names the file, a line and a column, in file order. */
export function parseProjectFile(text: string, path: string): ProjectFile {
  const shown = escapeControl(path);
  const read = readBoundedJson(text, MAX_DEPTH);
  if (read.ok === false) {
    const { deep } = read;
    throw new UsageError(
      deep
        ? `${shown}:${deep.line}:${deep.column}: the project file nests objects or arrays more than ${MAX_DEPTH} levels deep; it is not a project file.`
        : `${shown}:${read.at.line}:${read.at.column}: the project file is not valid JSON: ${escapeControl(read.at.reason)}.`,
      { hint: HINT },
    );
  }
  // A key that names a token is told with every other problem of the file, in file order: the
  // person fixing it sees all there is to fix at once.
  const secrets = findTokenKeys(read.value, []);
  const parsed = ProjectFile.safeParse(read.value);
  const protoNames = protoTemplateNames(read.value, text);
  if (parsed.success && protoNames.length === 0 && secrets.length === 0) return parsed.data;
  const isSecret = (path: readonly string[]) =>
    secrets.some((secret) => secret.join('\0') === path.join('\0'));
  const problems = [
    ...secrets.map((secret) => ({
      ...locate(text, secret),
      text: `the project file holds a token ('${escapeControl(secret.join('.'))}'); secrets never live in a repository.`,
    })),
    ...(parsed.success
      ? []
      : parsed.error.issues
          .flatMap((issue) => expandEntryIssue(issue, read.value))
          .flatMap((issue) => describeProjectIssue(issue, text, read.value))
          .filter((problem) => !(problem.path && isSecret(problem.path)))),
    ...protoNames,
  ]
    .sort((a, b) => a.line - b.line || a.column - b.column)
    .map((problem) => `${shown}:${problem.line}:${problem.column}: ${problem.text}`);
  throw new UsageError(problems[0] as string, {
    details: problems.slice(1),
    hint: secrets.length > 0 ? `${TOKEN_HINT} ${HINT}` : HINT,
  });
}

const TOKEN_HINT =
  'Remove the token (and revoke it if the file was ever committed). In CI, give the token as ESIGN_TOKEN from a secret; on your machine, run `esign login`.';

interface Problem {
  line: number;
  column: number;
  text: string;
  /** The key the problem is about, when it is one key (an unknown key: a token key says more). */
  path?: readonly string[];
}

/** What is wrong where: one problem for each unknown key, the rule a bad template name breaks. */
function describeProjectIssue(issue: z.core.$ZodIssue, text: string, root: unknown): Problem[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(path);
    return issue.keys.map((key) => ({
      ...locate(text, [...path, key]),
      path: [...path, key],
      text: `unknown key '${escapeControl([...path, key].join('.'))}'.${didYouMean(key, known)} Known keys here: ${known.join(', ')}.`,
    }));
  }
  const where = path.length > 0 ? `'${escapeControl(path.join('.'))}'` : 'the top level';
  const what =
    issue.code === 'invalid_key' && path.at(-2) === 'templates'
      ? describeTemplateName(path.at(-1) as string)
      : describeIssue(issue, root);
  return [{ ...locate(text, path), text: `${where} ${what}.` }];
}

/**
 * A template or a field named `__proto__`: zod's records skip that key, so it would vanish without
 * a word (a required field never checked). A template so named breaks the name rule (it starts
 * with '_') and is told as any other bad name is; a field so named is told as a bad field name.
 */
function protoTemplateNames(root: unknown, text: string): Problem[] {
  if (!isPlainObject(root)) return [];
  const places: string[][] = [['templates']];
  if (isPlainObject(root.profiles)) {
    for (const profile of Object.keys(root.profiles)) places.push(['profiles', profile, 'templates']);
  }
  const at = (path: readonly string[]) =>
    path.reduce<unknown>(
      (value, key) => (isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined),
      root,
    );
  const problem = (path: string[], what: string): Problem => ({
    ...locate(text, path),
    text: `'${escapeControl(path.join('.'))}' ${what}.`,
  });
  return places.flatMap((path) => {
    const names = at(path);
    if (!isPlainObject(names)) return [];
    const found = Object.hasOwn(names, '__proto__')
      ? [problem([...path, '__proto__'], describeTemplateName('__proto__'))]
      : [];
    for (const name of Object.keys(names)) {
      const fields = at([...path, name, 'fields']);
      if (name !== '__proto__' && isPlainObject(fields) && Object.hasOwn(fields, '__proto__')) {
        found.push(problem([...path, name, 'fields', '__proto__'], fieldNameProblem('__proto__') as string));
      }
    }
    return found;
  });
}

/** The rule a template name breaks, for a name TEMPLATE_NAME refused (or one shaped like an id). */
function describeTemplateName(name: string): string {
  const rule =
    'a template name is letters, digits and . _ -, starts with a letter or a digit, and has at most 64 characters';
  if (name === '') return `is an empty template name; ${rule}`;
  if (ULID_PATTERN.test(name)) {
    return 'is not a template name: it looks like a template id (a ULID), and a name must not, so that an id is never taken for a name';
  }
  const bad = /[^A-Za-z0-9._-]/u.exec(name);
  if (bad) {
    const char = escapeControl(bad[0]);
    return `is not a template name: it has '${char}' at character ${[...name.slice(0, bad.index)].length + 1}; ${rule}`;
  }
  if (!/^[A-Za-z0-9]/.test(name)) {
    return `is not a template name: it starts with '${name[0]}'; ${rule}`;
  }
  return `is not a template name: it has ${name.length} characters; ${rule}`;
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

/** The paths of the keys that name a token (`token`, `api_token`, `ESIGN_TOKEN`…), at any depth. */
function findTokenKeys(value: unknown, path: string[]): string[][] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => findTokenKeys(item, [...path, String(index)]));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    // A template may be named "token-…"; its id is not a secret.
    const isTemplateName = path[path.length - 1] === 'templates';
    // …and a template's merge tag "token_count": a field's name, not a secret.
    const isFieldName = path[path.length - 1] === 'fields' && path[path.length - 3] === 'templates';
    if (!isTemplateName && !isFieldName && /token/i.test(key)) return [[...path, key]];
    return findTokenKeys(item, [...path, key]);
  });
}
