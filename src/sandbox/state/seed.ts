// The sandbox's organisations, tokens and templates: built-in defaults, or a JSON seed file that
// replaces them. A seed file is validated as a whole and every problem is reported with its place.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import { ulid } from '../../api/schemas.js';
import { describeIssues } from '../../text/issues.js';
import { parseJsonText } from '../../text/json.js';
import { SandboxError } from '../sandbox-error.js';
import { defaultToken, hashToken } from './tokens.js';

const name = (what: string) =>
  z.string({ error: 'must be a string' }).check(
    z.refine((s) => s.trim().length > 0, `${what} must not be empty`),
    z.maxLength(200, `${what} must be at most 200 characters`),
  );

/** Merge tags are the keys of merge_data: short names without spaces. */
export const MergeTagName = z.string({ error: 'must be a string' }).check(
  z.regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, 'must be 1-64 letters, digits, _ . or - (no spaces)'),
  z.refine((s) => s !== '__proto__', 'must not be __proto__'),
);

/** Printable ASCII without spaces, so it fits an Authorization header as it is. */
const TokenValue = z
  .string({ error: 'must be a string' })
  .check(
    z.minLength(16, 'must be at least 16 characters'),
    z.maxLength(200, 'must be at most 200 characters'),
    z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  );

const SeedTemplate = z.strictObject({
  id: ulid(),
  name: name('a template name'),
  merge_tags: z.array(MergeTagName, { error: 'must be an array of merge tag names' }),
});

const SeedToken = z.strictObject({
  name: name('a token name'),
  token: TokenValue,
});

const SeedOrganisation = z.strictObject({
  name: name('an organisation name'),
  tokens: z.array(SeedToken, { error: 'must be an array' }).check(z.minLength(1, 'needs at least one token')),
  templates: z.array(SeedTemplate, { error: 'must be an array' }),
});

export const Seed = z.strictObject({
  organisations: z
    .array(SeedOrganisation, { error: 'must be an array' })
    .check(z.minLength(1, 'needs at least one organisation')),
});
export type Seed = z.infer<typeof Seed>;

function template(id: string, templateName: string, mergeTags: string[]) {
  return { id, name: templateName, merge_tags: mergeTags };
}

function defaultOrganisation(orgName: string, templates: Seed['organisations'][number]['templates']) {
  return { name: orgName, tokens: [{ name: 'Sandbox token', token: defaultToken(orgName) }], templates };
}

/**
 * Two organisations, so isolation can be tried. Template ids are fixed so docs can name them; the
 * first is the one the CLI's help examples use.
 */
export const DEFAULT_SEED: Seed = {
  organisations: [
    defaultOrganisation('Acme Corp', [
      template('01JD7X4ZQ8G1N6RVS0Y2MBKT3E', 'Offer letter', ['company', 'role', 'start_date', 'salary']),
      template('01JD7X5B3M9T8W2HQ4K6N0PRSA', 'Mutual NDA', ['counterparty', 'effective_date']),
    ]),
    defaultOrganisation('Globex Inc', [
      template('01JD7X6C8PZ5R3V9YQ1TGM4HWB', 'Supplier agreement', [
        'supplier_name',
        'start_date',
        'term_months',
      ]),
      template('01JD7X7E2KX4N8S6VA0FJQ9DMC', 'Consulting agreement', [
        'consultant_name',
        'day_rate',
        'start_date',
      ]),
    ]),
  ],
};

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
}

/** Validates a parsed seed; template ids come back in upper case. Throws a `bad_seed` SandboxError listing every problem. */
export function checkSeed(value: unknown, where: string): Seed {
  const parsed = Seed.safeParse(value);
  if (!parsed.success) {
    throw new SandboxError('bad_seed', `The seed file ${where} is not valid.`, {
      details: describeIssues(parsed.error.issues, value),
      hint: 'See docs/sandbox.md for the seed file format.',
    });
  }
  const seed: Seed = {
    organisations: parsed.data.organisations.map((org) => ({
      ...org,
      templates: org.templates.map((t) => ({ ...t, id: t.id.toUpperCase() })),
    })),
  };
  const problems: string[] = [];
  const orgs = seed.organisations;
  for (const n of duplicates(orgs.map((o) => o.name)))
    problems.push(`organisation name '${n}' is used twice`);
  for (const id of duplicates(orgs.flatMap((o) => o.templates.map((t) => t.id)))) {
    problems.push(`template id ${id} is used twice (a template belongs to one organisation)`);
  }
  if (duplicates(orgs.flatMap((o) => o.tokens.map((t) => t.token))).length > 0) {
    problems.push('a token value is used twice (each token belongs to one organisation)');
  }
  for (const org of orgs) {
    for (const n of duplicates(org.tokens.map((t) => t.name)))
      problems.push(`${org.name}: token name '${n}' is used twice`);
    for (const t of org.templates) {
      for (const tag of duplicates(t.merge_tags))
        problems.push(`${org.name}: template ${t.id}: merge tag '${tag}' is listed twice`);
    }
  }
  if (problems.length > 0) {
    throw new SandboxError('bad_seed', `The seed file ${where} is not valid.`, { details: problems });
  }
  return seed;
}

/** Reads and validates a seed file. */
export async function loadSeedFile(path: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SandboxError(
      'seed_unreadable',
      `Cannot read the seed file ${path} (${(error as Error).message}).`,
      {
        hint: 'Check the path of the seed file.',
        file: path,
        cause: error,
      },
    );
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw new SandboxError('bad_seed', `The seed file ${path} is not valid JSON: ${parsed.problem}.`);
  }
  return checkSeed(parsed.value, path);
}

/**
 * Identifies a seed by its names, templates and token hashes (never the token values). The state
 * file keeps it, so a restart with a different --seed is refused instead of mixing two worlds.
 */
export function seedFingerprint(seed: Seed): string {
  const canonical = seed.organisations.map((org) => ({
    name: org.name,
    tokens: org.tokens.map((t) => ({ name: t.name, sha256: hashToken(t.token).toString('hex') })),
    templates: org.templates,
  }));
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
