// The project file (.esign.json) as a user meets it: found from a nested folder, template names in
// create, precedence against flags, environment and profiles, refused tokens, malformed files,
// `esign status` and `esign templates`.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoSecret, createTestContext, runCli } from '../helpers/context.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_live_5f1c9a7e3b2d4c6a8e0f';
const OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';
const SANDBOX_OFFER = '01JD7X6C8PZ5R3V9YQ1TGM4HWB';

const server = useScriptedServer();

/** A repository with .esign.json at its root, and a nested folder to run from. */
function repository(project: unknown): { root: string; nested: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'esign-repo-'));
  const nested = join(root, 'services', 'hiring');
  mkdirSync(nested, { recursive: true });
  const file = join(root, '.esign.json');
  writeFileSync(file, typeof project === 'string' ? project : `${JSON.stringify(project, null, 2)}\n`);
  return { root, nested, file };
}

/** A config with the given profiles, each pointing at the scripted server. */
function configWith(profiles: string[]) {
  const ctx = createTestContext();
  mkdirSync(ctx.configDir, { recursive: true });
  writeFileSync(
    join(ctx.configDir, 'config.json'),
    JSON.stringify({ profiles: Object.fromEntries(profiles.map((p) => [p, { base_url: server.baseUrl }])) }),
    { mode: 0o600 }, // as esign writes it (a file readable by others is warned about)
  );
  return ctx.configDir;
}

const PROJECT = {
  profile: 'sandbox',
  templates: { 'offer-letter': OFFER, nda: NDA },
  profiles: { sandbox: { templates: { 'offer-letter': SANDBOX_OFFER } } },
  defaults: { expires_in_days: 14 },
};

const createArgs = (template: string, extra: string[] = []) => [
  'envelope',
  'create',
  '--template',
  template,
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
  ...extra,
];

describe('the project file in envelope create', () => {
  it('is found from a nested folder: names resolve for the profile it sets, its default expiry applies', async () => {
    const { nested } = repository(PROJECT);
    const configDir = configWith(['sandbox', 'production']);
    server.script(ok(), ok());
    const fromProject = await runCli(createArgs('offer-letter', ['-q']), {
      cwd: nested,
      configDir,
      env: { ESIGN_TOKEN: TOKEN },
    });
    assertNoSecret(fromProject, TOKEN);
    expect(fromProject.stderr).toBe('');
    expect(fromProject.code).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject({
      template_id: SANDBOX_OFFER,
      expires_in_days: 14,
    });
    // A flag wins over the project file's default, and an id is taken as it is.
    const flagged = await runCli(createArgs(NDA, ['--expires-in-days', '3', '-q']), {
      cwd: nested,
      configDir,
      env: { ESIGN_TOKEN: TOKEN },
    });
    expect(flagged.code).toBe(0);
    expect(JSON.parse(server.requests[1]?.body ?? '')).toMatchObject({
      template_id: NDA,
      expires_in_days: 3,
    });
  });

  it('profile precedence: --profile > ESIGN_PROFILE > project file > default, and names follow the profile', async () => {
    const { nested, file } = repository(PROJECT);
    const configDir = configWith(['sandbox', 'production', 'default']);
    const status = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(['status', '--json', ...args], {
        cwd: nested,
        configDir,
        env: { ESIGN_TOKEN: TOKEN, ...env },
      });
      return JSON.parse(result.stdout).profile;
    };
    expect(await status([])).toEqual({ value: 'sandbox', source: `project ${file}` });
    expect(await status([], { ESIGN_PROFILE: 'production' })).toEqual({
      value: 'production',
      source: 'env ESIGN_PROFILE',
    });
    expect(await status(['--profile', 'default'], { ESIGN_PROFILE: 'production' })).toEqual({
      value: 'default',
      source: 'flag',
    });
    server.script(ok());
    const production = await runCli(createArgs('offer-letter', ['-q']), {
      cwd: nested,
      configDir,
      env: { ESIGN_TOKEN: TOKEN, ESIGN_PROFILE: 'production' },
    });
    expect(production.code).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '').template_id).toBe(OFFER); // the top-level name
  });

  it('the environment and flags still win over a stored profile for the base URL', async () => {
    const { nested } = repository({ profile: 'sandbox' });
    const configDir = configWith(['sandbox']);
    const result = await runCli(['status', '--json', '--base-url', 'https://flag.example.com/api/v1'], {
      cwd: nested,
      configDir,
      env: { ESIGN_TOKEN: TOKEN },
    });
    expect(JSON.parse(result.stdout).base_url).toEqual({
      value: 'https://flag.example.com/api/v1',
      source: 'flag',
    });
  });

  it('an unknown template name lists the names there are, with did-you-mean; nothing is sent', async () => {
    const { nested, file } = repository(PROJECT);
    const configDir = configWith(['sandbox']);
    const result = await runCli(createArgs('offer-leter', ['--json']), {
      cwd: nested,
      configDir,
      env: { ESIGN_TOKEN: TOKEN },
    });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(JSON.parse(result.stderr).error.message).toBe(
      `--template: no template named 'offer-leter'. Did you mean 'offer-letter'? Names in ${file}: nda, offer-letter.`,
    );
  });

  it('an unknown profile says so, with did-you-mean, instead of "No API base URL is set"', async () => {
    const configDir = configWith(['sandbox', 'production']);
    const byFlag = await runCli(createArgs(OFFER, ['--profile', 'sandbx']), {
      configDir,
      env: { ESIGN_TOKEN: TOKEN },
    });
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toContain(
      "error: Profile 'sandbx' does not exist (named by --profile). Did you mean 'sandbox'?",
    );
    expect(byFlag.stderr).not.toContain('No API base URL');
    const { nested, file } = repository({ profile: 'prodution' });
    const byProject = await runCli(['status'], { cwd: nested, configDir });
    expect(byProject.code).toBe(2);
    expect(byProject.stderr).toContain(
      `Profile 'prodution' does not exist (named by project file ${file}). Did you mean 'production'?`,
    );
    // No profiles at all (a CI machine): nothing to check against, the environment supplies everything.
    server.script(ok());
    const bare = await runCli(createArgs(OFFER, ['--profile', 'ci', '-q']), {
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
    });
    expect(bare.code).toBe(0);
  });

  it('refuses a token in the project file (exit 2), with its line and column', async () => {
    const { nested, file } = repository(
      '{\n  "templates": {},\n  "profiles": {"ci": {"token": "tok_x"}}\n}\n',
    );
    const result = await runCli(createArgs(OFFER), {
      cwd: nested,
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
    });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(result.stderr).toContain(
      `error: ${file}:3:23: the project file holds a token ('profiles.ci.token'); secrets never live in a repository.`,
    );
  });

  it('a token key does not hide the other problems: every one is listed, in file order, the token once', async () => {
    const { nested, file } = repository(
      '{\n  "templates": {"bad name": "01JD7X5B3M9T8W2HQ4K6N0PRSA"},\n  "token": "tok_x",\n  "defaults": {"concurrency": 0}\n}\n',
    );
    const result = await runCli(['templates'], { cwd: nested });
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toMatch(`error: ${file}:2:17: 'templates.bad name' is not a template name: it has ' '`);
    expect(lines[1]).toBe(
      `  ${file}:3:3: the project file holds a token ('token'); secrets never live in a repository.`,
    );
    expect(lines[2]).toBe(`  ${file}:4:16: 'defaults.concurrency' must be from 1 to 64.`);
    expect(result.stderr).not.toContain("unknown key 'token'");
    expect(result.stderr).toContain('hint: Remove the token (and revoke it if the file was ever committed).');
  });

  it('reports a malformed project file with its path, line and column', async () => {
    const { nested, file } = repository(
      '{\n  "templates": {\n    "nda": "01JD7X5B3M9T8W2HQ4K6N0PRSA"\n    "offer": "x"\n  }\n}\n',
    );
    const result = await runCli(['templates'], { cwd: nested });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${file}:4:5: the project file is not valid JSON: expected ',' or '}' after a property value, found '"'.`,
    );
  });
});

describe('the project file is JSON, not JSONC', () => {
  it('a comment or a trailing comma is named as such, at its line and column (exit 2)', async () => {
    for (const [text, at, reason] of [
      ['{\n  // hiring\n  "templates": {}\n}\n', '2:3', 'comments are not allowed in JSON'],
      ['{\n  "templates": {"nda": "01JD7X5B3M9T8W2HQ4K6N0PRSA",},\n}\n', '2:53', "trailing comma before '}'"],
    ] as const) {
      const { nested, file } = repository(text);
      const result = await runCli(['status'], { cwd: nested });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `error: ${file}:${at}: the project file is not valid JSON: ${reason}.\n`,
      );
    }
  });

  it('a byte-order mark is fine, and positions count after it', async () => {
    const { nested, file } = repository('\ufeff{"templates": {"nda": 42}}');
    const result = await runCli(['status'], { cwd: nested });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${file}:1:16: 'templates.nda' must be a string.\n`);
  });
});

describe('esign status and esign templates', () => {
  it('status shows the project file and what it set', async () => {
    const { nested, file } = repository(PROJECT);
    const configDir = configWith(['sandbox']);
    const json = await runCli(['status', '--json'], { cwd: nested, configDir, env: { ESIGN_TOKEN: TOKEN } });
    expect(JSON.parse(json.stdout).project_file).toEqual({
      path: file,
      profile: 'sandbox',
      templates: { 'offer-letter': SANDBOX_OFFER, nda: NDA },
      defaults: { expires_in_days: 14 },
    });
    const human = await runCli(['status'], { cwd: nested, configDir, env: { ESIGN_TOKEN: TOKEN } });
    expect(human.stdout).toContain(`Profile       sandbox (project file ${file})`);
    expect(human.stdout).toContain(`Project file  ${file}`);
    expect(human.stdout).toContain('templates   nda, offer-letter');
    expect(human.stdout).toContain('defaults    expires_in_days 14');
    expect(human.stdout).not.toMatch(/\(environment \(|\)\)/); // no nested brackets
  });

  it('templates lists the names in force and their ids, for people and as JSON', async () => {
    const { nested, file } = repository(PROJECT);
    const configDir = configWith(['sandbox', 'production']);
    const human = await runCli(['templates'], { cwd: nested, configDir });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(
      `nda           ${NDA}\noffer-letter  ${SANDBOX_OFFER}  (profiles.sandbox.templates)\n`,
    );
    expect(human.stderr).toBe(`from ${file}, profile 'sandbox'\n`);
    const json = await runCli(['templates', '--json', '--profile', 'production'], { cwd: nested, configDir });
    expect(JSON.parse(json.stdout)).toEqual({
      project_file: file,
      profile: 'production',
      templates: { nda: NDA, 'offer-letter': OFFER },
      // Issue 22: each template with its fields (none declared here: plain ids).
      entries: [
        { name: 'nda', id: NDA, fields: [] },
        { name: 'offer-letter', id: OFFER, fields: [] },
      ],
    });
    const none = await runCli(['templates', '--json'], { cwd: mkdtempSync(join(tmpdir(), 'esign-none-')) });
    expect(JSON.parse(none.stdout)).toEqual({
      project_file: null,
      profile: 'default',
      templates: {},
      entries: [],
    });
  });
});

describe('template values: the same messages in every folder, nothing sent', () => {
  const ULID_EXPECTED = 'must be a ULID: 26 characters of Crockford base-32, like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
  /** The folders a value is tried from: inside a repository with names, and a folder with no project file. */
  function folders() {
    const { nested, file } = repository(PROJECT);
    const outside = mkdtempSync(join(tmpdir(), 'esign-ci-step-'));
    return { inside: nested, file, outside, configDir: configWith(['sandbox', 'default']) };
  }
  function recordsFile(folder: string, record: Record<string, unknown>): string {
    const file = join(folder, 'hires.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ signatory: { name: 'Ada Lovelace', email: 'ada@example.com' }, ...record })}\n`,
    );
    return file;
  }
  const run = (argv: string[], cwd: string, configDir: string) =>
    runCli(argv, { cwd, configDir, env: { ESIGN_TOKEN: TOKEN } });

  it.each([
    [OFFER.slice(0, 25), `'${OFFER.slice(0, 25)}' is one character short`],
    [`${OFFER}7`, `'${OFFER}7' is one character too long`],
    [
      'U1JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      "'U1JD7X4ZQ8G1N6RVS0Y2MBKT3E' has 'U' at character 1 (I, L, O and U are not Crockford base-32)",
    ],
    [
      '01JD7X4ZQ8G1N6RVS0Y2MBKTIO',
      "'01JD7X4ZQ8G1N6RVS0Y2MBKTIO' has 'I' at character 25, 'O' at character 26 (I, L, O and U are not Crockford base-32)",
    ],
  ])(
    'a near-ULID %s says what is wrong with it as an id, inside a project and outside (create and batch)',
    async (value, what) => {
      const { inside, outside, configDir } = folders();
      const message = `${ULID_EXPECTED}; ${what}.`;
      for (const cwd of [inside, outside]) {
        const create = await run([...createArgs(value), '--json'], cwd, configDir);
        expect(create.code).toBe(2);
        expect(JSON.parse(create.stderr).error.message).toBe(`--template: ${message}`);
        const batch = await run(
          ['envelope', 'batch', recordsFile(cwd, {}), '--template', value],
          cwd,
          configDir,
        );
        expect(batch.code).toBe(2);
        expect(batch.stderr).toContain(`error: --template: ${message}\n`);
        const record = await run(
          ['envelope', 'batch', recordsFile(cwd, { template_id: value })],
          cwd,
          configDir,
        );
        expect(record.code).toBe(2);
        expect(record.stderr).toContain(`line 1: template_id: ${message}\n`);
        expect(record.stderr).toContain('nothing was sent');
      }
      expect(server.requests).toHaveLength(0);
    },
  );

  it('a name outside a project says that no .esign.json was found in the folder or its parents (create and batch)', async () => {
    const { outside, configDir } = folders();
    const why = `no template is named 'offer-letter': no .esign.json was found in ${outside} or its parents to name templates.`;
    const create = await run([...createArgs('offer-letter'), '--json'], outside, configDir);
    expect(create.code).toBe(2);
    expect(JSON.parse(create.stderr).error.message).toBe(
      `--template: must be a ULID or a template name, and ${why}`,
    );
    const batch = await run(
      ['envelope', 'batch', recordsFile(outside, {}), '--template', 'offer-letter'],
      outside,
      configDir,
    );
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain(`error: --template: must be a ULID or a template name, and ${why}\n`);
    const record = await run(
      ['envelope', 'batch', recordsFile(outside, { template_id: 'offer-letter' })],
      outside,
      configDir,
    );
    expect(record.code).toBe(2);
    expect(record.stderr).toContain(`line 1: template_id: must be a ULID or a template name, and ${why}\n`);
    expect(server.requests).toHaveLength(0);
  });

  it('a name not in force inside a project lists the names, in batch flags and records as in create', async () => {
    const { inside, file, configDir } = folders();
    const names = `Names in ${file}: nda, offer-letter.`;
    const batch = await run(
      ['envelope', 'batch', recordsFile(inside, {}), '--template', 'ofer-letter'],
      inside,
      configDir,
    );
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain(
      `error: --template: no template named 'ofer-letter'. Did you mean 'offer-letter'? ${names}\n`,
    );
    const record = await run(
      ['envelope', 'batch', recordsFile(inside, { template_id: 'ndaa' })],
      inside,
      configDir,
    );
    expect(record.code).toBe(2);
    expect(record.stderr).toContain(
      `line 1: template_id: no template named 'ndaa'. Did you mean 'nda'? ${names}\n`,
    );
    expect(server.requests).toHaveLength(0);
  });
});
