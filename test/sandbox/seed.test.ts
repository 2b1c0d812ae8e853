// The seed: built-in defaults, a seed file that replaces them, and what makes a seed file invalid.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ULID_PATTERN } from '../../src/api/schemas.js';
import { loadSeedFile } from '../../src/commands/sandbox.js';
import { InputError } from '../../src/errors.js';
import { checkSeed, DEFAULT_SEED, type Seed } from '../../src/sandbox/state/seed.js';
import { defaultToken } from '../../src/sandbox/state/tokens.js';
import { createUlidFactory, ulidTime } from '../../src/sandbox/state/ulid.js';
import { postCreate, startQuietSandbox, validBody } from './helpers.js';

const folder = mkdtempSync(join(tmpdir(), 'esign-sandbox-seed-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function seedFile(content: unknown): string {
  const path = join(folder, `seed-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

const customSeed: Seed = {
  organisations: [
    {
      name: 'Initech',
      tokens: [{ name: 'dev', token: 'initech-dev-token-0001' }],
      templates: [{ id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', name: 'TPS report', merge_tags: ['cover_sheet'] }],
    },
  ],
};

async function loadError(content: unknown): Promise<InputError> {
  const error = await loadSeedFile(seedFile(content)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe('the default seed', () => {
  it('has two organisations, each with a token and templates with fixed ULIDs and merge tags', () => {
    expect(() => checkSeed(DEFAULT_SEED, 'default')).not.toThrow();
    expect(DEFAULT_SEED.organisations.map((o) => o.name)).toEqual(['Acme Corp', 'Globex Inc']);
    for (const org of DEFAULT_SEED.organisations) {
      expect(org.tokens[0]?.token).toBe(defaultToken(org.name));
      expect(org.templates.length).toBeGreaterThan(0);
      for (const t of org.templates) {
        expect(t.id).toMatch(ULID_PATTERN);
        expect(t.merge_tags.length).toBeGreaterThan(0);
      }
    }
    expect(DEFAULT_SEED.organisations[0]?.templates[0]?.id).toBe('01JD7X4ZQ8G1N6RVS0Y2MBKT3E');
  });

  it('has the same token values on every start', () => {
    expect(defaultToken('Acme Corp')).toBe(defaultToken('Acme Corp'));
    expect(defaultToken('Acme Corp')).toMatch(/^sbx_acme_corp_[0-9a-f]{32}$/);
  });
});

describe('a seed file', () => {
  it('replaces the defaults', async () => {
    const sandbox = await startQuietSandbox({ seed: await loadSeedFile(seedFile(customSeed)) });
    try {
      expect(sandbox.organisations).toEqual([
        {
          name: 'Initech',
          token: 'initech-dev-token-0001',
          tokens: [{ name: 'dev', token: 'initech-dev-token-0001', revoked: false }],
          templates: [{ id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', name: 'TPS report', merge_tags: ['cover_sheet'] }],
        },
      ]);
      const body = validBody({
        template_id: '01HZZZZZZZZZZZZZZZZZZZZZZZ',
        merge_data: { cover_sheet: 'yes' },
      });
      expect((await postCreate(sandbox, body, { token: 'initech-dev-token-0001' })).status).toBe(200);
      expect((await postCreate(sandbox, body, { token: defaultToken('Acme Corp') })).status).toBe(401);
    } finally {
      await sandbox.close();
    }
  });

  it('is read with template ids in any case', async () => {
    const lower = structuredClone(customSeed);
    (lower.organisations[0]?.templates[0] as { id: string }).id = '01hzzzzzzzzzzzzzzzzzzzzzzz';
    expect((await loadSeedFile(seedFile(lower))).organisations[0]?.templates[0]?.id).toBe(
      '01HZZZZZZZZZZZZZZZZZZZZZZZ',
    );
  });

  it('that is missing or not JSON is reported with its path and position', async () => {
    const missing = join(folder, 'nope.json');
    await expect(loadSeedFile(missing)).rejects.toThrow(
      `Cannot read the seed file ${missing} (no such file).`,
    );
    const error = await loadError('{\n  "organisations": [,]\n}');
    expect(error.message).toMatch(/is not valid JSON: line 2, column 21: unexpected ','/);
  });

  it('lists every schema problem with its place', async () => {
    const error = await loadError({
      organisations: [
        {
          name: '',
          tokens: [{ name: 'main', token: 'short' }],
          templates: [{ id: 'tmpl-1', name: 'X', merge_fields: ['a'] }],
        },
      ],
    });
    expect(error.message).toMatch(/The seed file .* is not valid\./);
    const details = error.details.join('\n');
    expect(details).toContain('organisations.0.name: an organisation name must not be empty');
    expect(details).toContain('organisations.0.tokens.0.token: must be at least 16 characters');
    expect(details).toContain('organisations.0.templates.0.id: must be a ULID');
    expect(details).toContain("organisations.0.templates.0: unknown field 'merge_fields'");
    expect(details).toContain('organisations.0.templates.0.merge_tags: is required');
  });

  it('must not reuse names, template ids, tokens or merge tags', async () => {
    const org = (name: string, token: string, tags = ['a']) => ({
      name,
      tokens: [{ name: 'main', token }],
      templates: [{ id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', name: 'T', merge_tags: tags }],
    });
    const error = await loadError({
      organisations: [org('A', 'token-aaaaaaaaaaaaaaaa', ['a', 'a']), org('A', 'token-aaaaaaaaaaaaaaaa')],
    });
    expect(error.details).toEqual([
      "organisation name 'A' is used twice",
      'template id 01HZZZZZZZZZZZZZZZZZZZZZZZ is used twice (a template belongs to one organisation)',
      'a token value is used twice (each token belongs to one organisation)',
      "A: template 01HZZZZZZZZZZZZZZZZZZZZZZZ: merge tag 'a' is listed twice",
    ]);
  });

  it('needs at least one organisation, and a token for each', async () => {
    expect((await loadError({ organisations: [] })).details.join()).toMatch(
      /needs at least one organisation/,
    );
    expect(
      (await loadError({ organisations: [{ name: 'A', tokens: [], templates: [] }] })).details.join(),
    ).toMatch(/needs at least one token/);
  });
});

describe('ULIDs', () => {
  it('are 26 Crockford characters that carry their time', () => {
    const next = createUlidFactory();
    const id = next(1_700_000_000_123);
    expect(id).toMatch(ULID_PATTERN);
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ulidTime(id)).toBe(1_700_000_000_123);
  });

  it('count up within a millisecond and never repeat, even when the clock goes back', () => {
    const next = createUlidFactory();
    const ids = Array.from({ length: 5000 }, (_, i) =>
      next(1_700_000_000_000 + Math.floor(i / 1000) - (i % 7 === 0 ? 5 : 0)),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
