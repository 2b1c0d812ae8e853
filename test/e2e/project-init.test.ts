// A project file without typing it, through the built binary against the sandbox: `esign init`
// writes the sandbox's templates with their fields, refuses to replace a file without --force, and
// `esign templates set` adds or updates one template, keeping the rest of the file byte for byte.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { assertNoSecret } from '../helpers/context.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const ACME_NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';

let sandbox: RunningSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
  env = {
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ESIGN_BASE_URL: sandbox.baseUrl,
    ESIGN_TOKEN: tokenOf(sandbox),
  };
});
afterAll(() => sandbox.close());

describe('esign init', () => {
  it("writes the sandbox's templates with their fields, then a create is checked against them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-init-'));
    const init = await runBin(['init'], { env, cwd: dir });
    expect(init.code).toBe(0);
    assertNoSecret(init, tokenOf(sandbox));
    const text = readFileSync(join(dir, '.esign.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      templates: {
        'offer-letter': { id: ACME_OFFER, fields: { company: {}, role: {}, start_date: {}, salary: {} } },
        'mutual-nda': { id: ACME_NDA, fields: { counterparty: {}, effective_date: {} } },
      },
    });
    expect(readdirSync(dir)).toEqual(['.esign.json']); // no temporary file left behind

    const typo = await runBin(
      [
        'envelope',
        'create',
        '--template',
        'offer-letter',
        '--name',
        'A',
        '--email',
        'a@example.com',
        '--set',
        'compnay=Acme',
        '--dry-run',
      ],
      { env, cwd: dir },
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "merge field 'compnay' is not a field of template 'offer-letter'. Did you mean 'company'?",
    );
  });

  it('refuses to replace an existing file without --force; --force replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-init-'));
    writeFileSync(join(dir, '.esign.json'), '{"templates": {}}\n');
    const refused = await runBin(['init'], { env, cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('.esign.json already exists; it was left as it is.');
    expect(readFileSync(join(dir, '.esign.json'), 'utf8')).toBe('{"templates": {}}\n');
    const forced = await runBin(['init', '--force', '--json'], { env, cwd: dir });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout).entries.map((entry: { name: string }) => entry.name)).toEqual([
      'mutual-nda',
      'offer-letter',
    ]);
  });

  it('a token the sandbox does not know: exit 3, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-init-'));
    const result = await runBin(['init'], {
      env: { ...env, ESIGN_TOKEN: 'sbx_not_a_real_token_000000' },
      cwd: dir,
    });
    expect(result.code).toBe(3);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the sandbox route esign init reads', () => {
  it("shows a token's own organisation's templates only; no token is 401", async () => {
    const globex = await fetch(`${sandbox.url}/_sandbox/templates`, {
      headers: { authorization: `Bearer ${tokenOf(sandbox, 1)}` },
    });
    expect(globex.status).toBe(200);
    const body = (await globex.json()) as { organisation: string; templates: { id: string }[] };
    expect(body.organisation).toBe('Globex Inc');
    expect(body.templates.map((t) => t.id)).not.toContain(ACME_OFFER);
    expect((await fetch(`${sandbox.url}/_sandbox/templates`)).status).toBe(401);
    const admin = await fetch(`${sandbox.url}/_sandbox/templates`, {
      headers: { authorization: `Bearer ${sandbox.adminSecret}` },
    });
    expect(admin.status).toBe(401); // an organisation's token, never the admin secret
  });
});

describe('esign templates set', () => {
  it('adds and updates one template; every other byte of the file stays as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-set-'));
    const original =
      '{\n    "profile": "default",\n    "templates": {\n        "nda": "01JD7X5B3M9T8W2HQ4K6N0PRSA",\n        "offer-letter": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E"\n    },\n    "defaults": { "expires_in_days": 14 }\n}\n';
    writeFileSync(join(dir, '.esign.json'), original);
    const set = await runBin(
      [
        'templates',
        'set',
        'offer-letter',
        '--required',
        'company',
        '--field',
        'salary',
        '--description',
        'company=Legal name of the employer',
        '--example',
        'start_date=2026-12-01',
      ],
      { env, cwd: dir },
    );
    expect(set.code).toBe(0);
    expect(set.stderr).toContain("Updated 'offer-letter' in templates of");
    const after = readFileSync(join(dir, '.esign.json'), 'utf8');
    expect(after).toBe(
      '{\n    "profile": "default",\n    "templates": {\n        "nda": "01JD7X5B3M9T8W2HQ4K6N0PRSA",\n        "offer-letter": {\n            "id": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E",\n            "fields": {\n                "salary": {},\n                "company": {\n                    "required": true,\n                    "description": "Legal name of the employer"\n                },\n                "start_date": {\n                    "example": "2026-12-01"\n                }\n            }\n        }\n    },\n    "defaults": { "expires_in_days": 14 }\n}\n',
    );
    const added = await runBin(
      ['templates', 'set', 'supplier', '01JD7X6C8PZ5R3V9YQ1TGM4HWB', '--in-profile', 'production'],
      {
        env,
        cwd: dir,
      },
    );
    expect(added.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, '.esign.json'), 'utf8'));
    expect(json.profiles).toEqual({ production: { templates: { supplier: '01JD7X6C8PZ5R3V9YQ1TGM4HWB' } } });
    expect(json.defaults).toEqual({ expires_in_days: 14 });
    expect(readdirSync(dir)).toEqual(['.esign.json']);
  });

  it('refuses a bad id, a bad name and a new name without an id, changing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-set-'));
    const original = '{"templates": {"nda": "01JD7X5B3M9T8W2HQ4K6N0PRSA"}}\n';
    writeFileSync(join(dir, '.esign.json'), original);
    const badId = await runBin(['templates', 'set', 'offer', '01JD7X4ZQ8G1N6RVS0Y2MBKT3'], { env, cwd: dir });
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("<id> '01JD7X4ZQ8G1N6RVS0Y2MBKT3' is not a template id");
    const badName = await runBin(['templates', 'set', 'bad name', ACME_OFFER], { env, cwd: dir });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain(
      "<name> 'bad name' is not a template name (letters, digits and . _ -, at most 64 characters).",
    );
    const noId = await runBin(['templates', 'set', 'offer', '--required', 'company'], { env, cwd: dir });
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain("No template named 'offer' yet: give its id");
    expect(readFileSync(join(dir, '.esign.json'), 'utf8')).toBe(original);
  });
});
