// A project file without typing it, through the built binary against the sandbox: `esign init`
// writes the sandbox's templates with their fields, refuses to replace a file without --force, and
// `esign templates set` adds or updates one template, keeping the rest of the file byte for byte.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { assertNoSecret } from '../helpers/context.js';
import { useScriptedServer } from '../helpers/scripted-server.js';
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
      "merge field 'compnay' is not a field of template 'offer-letter' (its fields: company, role, start_date, salary). Did you mean 'company'?",
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

describe('esign init for a profile, and what it reads', () => {
  it("--profile sandbox writes the sandbox's ids under profiles.sandbox, never as the top-level (production) names", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-init-profile-'));
    const config = freshConfigDir();
    const login = await runBin(
      ['login', '--with-token', '--profile', 'sandbox', '--base-url', sandbox.baseUrl],
      {
        env: { ESIGN_CONFIG_DIR: config },
        stdin: tokenOf(sandbox),
      },
    );
    expect(login.code).toBe(0);
    const init = await runBin(['init', '--profile', 'sandbox'], {
      env: { ESIGN_CONFIG_DIR: config },
      cwd: dir,
    });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('under profiles.sandbox');
    expect(init.stderr).toContain(
      'esign templates set mutual-nda --required counterparty --in-profile sandbox',
    );
    expect(init.stderr).toContain('make it your default with `esign profile use sandbox`');
    const written = JSON.parse(readFileSync(join(dir, '.esign.json'), 'utf8'));
    expect(written.templates).toBeUndefined();
    expect(Object.keys(written.profiles.sandbox.templates)).toEqual(['offer-letter', 'mutual-nda']);
    // The names are the sandbox profile's: production (the default profile) has none.
    const production = await runBin(['templates', '--json'], { env: { ESIGN_CONFIG_DIR: config }, cwd: dir });
    expect(JSON.parse(production.stdout).templates).toEqual({});
    const forSandbox = await runBin(['templates', '--json', '--profile', 'sandbox'], {
      env: { ESIGN_CONFIG_DIR: config },
      cwd: dir,
    });
    expect(JSON.parse(forSandbox.stdout).templates['offer-letter']).toBe(ACME_OFFER);
  });

  it("the README's sequence runs as written: init --profile sandbox, then templates set on that name, then a production id", async () => {
    // The README's passage, wherever the guides keep it (README.md, or docs/project-file.md).
    const readme = ['../../docs/project-file.md', '../../README.md']
      .map((path) => join(import.meta.dirname, path))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    const block = readme.match(/```sh\n(\s*esign init --profile sandbox\n[\s\S]*?)```/)?.[1];
    expect(block).toBeDefined();
    // Lines joined at their `\`, then split into words as sh would (quotes kept together, then removed).
    const commands = (block as string)
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .map((line) =>
        (line.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) as string[]).map((word) => word.replace(/["']/g, '')),
      );
    expect(commands.map((words) => words.slice(0, 3).join(' '))).toEqual([
      'esign init --profile',
      'esign templates set',
      'esign templates set',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'esign-readme-init-'));
    // A new user's machine: the sandbox profile logged in, nothing in the environment.
    const user = { ESIGN_CONFIG_DIR: freshConfigDir() };
    const login = await runBin(
      ['login', '--with-token', '--profile', 'sandbox', '--base-url', sandbox.baseUrl],
      { env: user, stdin: tokenOf(sandbox) },
    );
    expect(login.code).toBe(0);
    for (const [, ...args] of commands) {
      const result = await runBin(args, { env: user, cwd: dir });
      expect(result.code, `esign ${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const written = JSON.parse(readFileSync(join(dir, '.esign.json'), 'utf8'));
    // The sandbox's id was never written as a top-level (production) name.
    expect(written.templates).toBeUndefined();
    expect(written.profiles.sandbox.templates['offer-letter']).toEqual({
      id: ACME_OFFER,
      fields: {
        company: { required: true, description: 'Legal name of the employer' },
        role: {},
        start_date: { required: true, example: '2026-12-01' },
        salary: {},
      },
    });
    expect(written.profiles.production.templates['offer-letter']).toBe('01JF2K8W0R3M7Q5N9T1V4XBYCD');
    // The fields it set are checked for the sandbox profile.
    const missing = await runBin(
      [
        ...['envelope', 'create', '--profile', 'sandbox', '--template', 'offer-letter'],
        ...['--name', 'A', '--email', 'a@example.com', '--set', 'company=Acme', '--dry-run'],
      ],
      { env: user, cwd: dir },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('start_date');
    expect(missing.stderr).not.toContain("'company'");
  });

  it('templates set without an id and a name named for several profiles asks which; a new name is never given an id to copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-set-profiles-'));
    const original = `{"profiles": {"sandbox": {"templates": {"offer": "${ACME_OFFER}"}}, "staging": {"templates": {"offer": "${ACME_NDA}"}}}}\n`;
    writeFileSync(join(dir, '.esign.json'), original);
    const both = await runBin(['templates', 'set', 'offer', '--required', 'company'], { env, cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      "Template 'offer' is named for several profiles (sandbox, staging) and not at the top level: say which one to change.",
    );
    expect(both.stderr).toContain('esign templates set offer … --in-profile staging');
    const fresh = await runBin(['templates', 'set', 'letter', '--required', 'company'], { env, cwd: dir });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain('give its id, e.g. esign templates set letter <template id>.');
    expect(fresh.stderr).not.toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
    expect(readFileSync(join(dir, '.esign.json'), 'utf8')).toBe(original);
  });

  describe('from a server that lists templates of its own', () => {
    const server = useScriptedServer();
    const listing = (templates: { id: string; name: string; merge_tags: string[] }[]) =>
      server.fallback({ kind: 'json', status: 200, body: { organisation: 'Elsewhere', templates } });
    const initAt = (dir: string) =>
      runBin(['init'], {
        env: {
          ESIGN_CONFIG_DIR: freshConfigDir(),
          ESIGN_BASE_URL: server.baseUrl,
          ESIGN_TOKEN: 'tok_live_0123456789abcdef',
        },
        cwd: dir,
      });

    it("checks the merge tags it writes as the file's reader does: an empty tag or __proto__ leaves that template without fields, said so", async () => {
      listing([
        { id: ACME_OFFER, name: 'Offer letter', merge_tags: ['company', ''] },
        { id: ACME_NDA, name: 'NDA', merge_tags: ['__proto__', 'counterparty'] },
        { id: '01JD7X6C8PZ5R3V9YQ1TGM4HWB', name: 'Supplier', merge_tags: ['supplier_name'] },
      ]);
      const dir = mkdtempSync(join(tmpdir(), 'esign-init-tags-'));
      const init = await initAt(dir);
      expect(init.code).toBe(0);
      expect(init.stderr).toContain(
        "warning: template 'offer-letter' (01JD7X4ZQ8G1N6RVS0Y2MBKT3E) has a merge tag that cannot be a declared field: '' is not a field name",
      );
      expect(init.stderr).toContain(
        "warning: template 'nda' (01JD7X5B3M9T8W2HQ4K6N0PRSA) has a merge tag that cannot be a declared field: '__proto__'",
      );
      expect(JSON.parse(readFileSync(join(dir, '.esign.json'), 'utf8')).templates).toEqual({
        'offer-letter': ACME_OFFER,
        nda: ACME_NDA,
        supplier: { id: '01JD7X6C8PZ5R3V9YQ1TGM4HWB', fields: { supplier_name: {} } },
      });
      // Every later command reads the file it wrote.
      const listed = await runBin(['templates', '--json'], {
        env: { ESIGN_CONFIG_DIR: freshConfigDir() },
        cwd: dir,
      });
      expect(listed.code).toBe(0);
      expect(Object.keys(JSON.parse(listed.stdout).templates).sort()).toEqual([
        'nda',
        'offer-letter',
        'supplier',
      ]);
    });

    it('25,000 templates that share one long name get names of their own, each at most 64 characters (linear, not quadratic)', async () => {
      const title = 'A very long template title that goes on and on for sixty ch';
      const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
      const idOf = (n: number) => {
        let tail = '';
        for (let i = 0; i < 6; i++) tail = crockford[(n >> (5 * i)) & 31] + tail;
        return `01JD7X4ZQ8G1N6RVS0Y2${tail}`;
      };
      const count = 25_000;
      listing(Array.from({ length: count }, (_, n) => ({ id: idOf(n), name: title, merge_tags: ['a'] })));
      const dir = mkdtempSync(join(tmpdir(), 'esign-init-many-'));
      const init = await initAt(dir);
      expect(init.stderr).not.toContain('warning');
      expect(init.code).toBe(0);
      const names = Object.keys(JSON.parse(readFileSync(join(dir, '.esign.json'), 'utf8')).templates);
      expect(names).toHaveLength(count);
      expect(names.filter((name) => name.length > 64)).toEqual([]);
      expect(names.slice(0, 2)).toEqual([
        'a-very-long-template-title-that-goes-on-and-on-for-sixty-ch',
        'a-very-long-template-title-that-goes-on-and-on-for-sixty-ch-2',
      ]);
      const base = names[0] as string;
      expect(names.at(-1)).toBe(`${base.slice(0, 64 - `-${count}`.length)}-${count}`);
      expect(new Set(names).size).toBe(count);
    }, 60_000);
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

  it('--remove-field with a field that is not declared is a typo, told with "did you mean"; the file unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-set-'));
    const original = `{"templates": {"offer": {"id": "${ACME_OFFER}", "fields": {"company": {}, "start_date": {}}}}}\n`;
    writeFileSync(join(dir, '.esign.json'), original);
    const typo = await runBin(['templates', 'set', 'offer', '--remove-field', 'compnay'], { env, cwd: dir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).not.toContain('Updated');
    expect(typo.stderr).toContain(
      "error: --remove-field 'compnay': template 'offer' declares no such field, so nothing was changed. Did you mean 'company'? Its fields: company, start_date.",
    );
    expect(readFileSync(join(dir, '.esign.json'), 'utf8')).toBe(original);
    const removed = await runBin(['templates', 'set', 'offer', '--remove-field', 'company'], {
      env,
      cwd: dir,
    });
    expect(removed.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, '.esign.json'), 'utf8')).templates.offer.fields).toEqual({
      start_date: {},
    });
  });

  it('refuses a bad id, a bad name and a new name without an id, changing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-set-'));
    const original = '{"templates": {"nda": "01JD7X5B3M9T8W2HQ4K6N0PRSA"}}\n';
    writeFileSync(join(dir, '.esign.json'), original);
    const badId = await runBin(['templates', 'set', 'offer', '01JD7X4ZQ8G1N6RVS0Y2MBKT3'], { env, cwd: dir });
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain("error: '01JD7X4ZQ8G1N6RVS0Y2MBKT3' is not a template id");
    const badName = await runBin(['templates', 'set', 'bad name', ACME_OFFER], { env, cwd: dir });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain(
      "error: 'bad name' is not a template name (letters, digits and . _ -, at most 64 characters).",
    );
    const noId = await runBin(['templates', 'set', 'offer', '--required', 'company'], { env, cwd: dir });
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain("No template named 'offer' yet: give its id");
    expect(readFileSync(join(dir, '.esign.json'), 'utf8')).toBe(original);
  });
});
