// Declared template fields checked before anything is sent, through the built binary against the
// sandbox: its request log shows that a typo or a missing required field sent nothing, in create,
// its dry run, a batch (CSV and JSON Lines) and the batch's dry run; a plain id is not checked.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, admin, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const ACME_NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';
const CREATE = 'POST /api/v1/native/envelopes/create';

let sandbox: RunningSandbox;
let env: Record<string, string>;
let repo: string;

beforeAll(async () => {
  sandbox = await startQuietSandbox();
  env = {
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ESIGN_BASE_URL: sandbox.baseUrl,
    ESIGN_TOKEN: tokenOf(sandbox),
  };
  repo = mkdtempSync(join(tmpdir(), 'esign-fields-'));
  writeFileSync(
    join(repo, '.esign.json'),
    `${JSON.stringify(
      {
        templates: {
          'offer-letter': {
            id: ACME_OFFER,
            fields: {
              company: { required: true, description: 'Legal name of the employer' },
              role: {},
              start_date: { required: true, example: '2026-12-01' },
              salary: {},
            },
          },
          nda: ACME_NDA,
        },
      },
      null,
      2,
    )}\n`,
  );
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await admin(sandbox, 'DELETE', 'requests');
});

/** The API requests the sandbox received since the test began (the admin routes are not counted). */
async function requestsSent(): Promise<string[]> {
  const answer = await admin(sandbox, 'GET', 'requests');
  return (answer.json as { requests: { method: string; path: string }[] }).requests.map(
    (request) => `${request.method} ${request.path}`,
  );
}

const create = (template: string, extra: string[]) =>
  runBin(
    [
      'envelope',
      'create',
      '--template',
      template,
      '--name',
      'Ada Lovelace',
      '--email',
      'ada@example.com',
      ...extra,
    ],
    {
      env,
      cwd: repo,
    },
  );

describe('envelope create checks merge data against the declared fields', () => {
  it('a key that is not a field: exit 2, "did you mean", nothing sent (dry run too)', async () => {
    for (const dry of [[], ['--dry-run']]) {
      const result = await create('offer-letter', [
        '--set',
        'company=Acme',
        '--set',
        'start_dte=2026-12-01',
        ...dry,
      ]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        "merge field 'start_dte' is not a field of template 'offer-letter' (its fields: company, role, start_date, salary). Did you mean 'start_date'?",
      );
      expect(result.stderr).toContain(
        "merge field 'start_date' is required by template 'offer-letter', and missing or empty",
      );
    }
    expect(await requestsSent()).toEqual([]);
  });

  it('every required field missing or empty is named; by id as by name', async () => {
    const result = await create(ACME_OFFER, ['--set', 'company= ', '--set', 'role=Engineer']);
    expect(result.code).toBe(2);
    const asJson = await create('offer-letter', ['--set', 'role=Engineer', '--json']);
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stderr).error).toMatchObject({ code: 'invalid_input', status: null });
    expect(result.stderr).toContain(
      "merge fields 'company', 'start_date' are required by template 'offer-letter', and missing or empty (company: Legal name of the employer; start_date: e.g. 2026-12-01)",
    );
    expect(await requestsSent()).toEqual([]);
  });

  it('data that fits is sent once; a template declared as a plain id is not checked', async () => {
    const fits = await create('offer-letter', [
      '--set',
      'company=Acme',
      '--set',
      'start_date=2026-12-01',
      '-q',
    ]);
    expect(fits.code).toBe(0);
    // Not checked by esign: the request goes out, and the sandbox's own 422 answers it (exit 5).
    const plain = await create('nda', ['--set', 'anything=goes', '-q']);
    expect(plain.code).toBe(5);
    expect(await requestsSent()).toEqual([CREATE, CREATE]);
  });
});

describe('envelope batch checks every record before the first request', () => {
  it('CSV: a misspelt column once, a missing required field with its lines; dry run and real run', async () => {
    const rows = ['signatory_name,signatory_email,company,start_dte'];
    for (let i = 1; i <= 30; i++)
      rows.push(`Person ${i},p${i}@example.com,${i % 4 === 0 ? '' : 'Acme'},2026-12-01`);
    const file = join(repo, 'people.csv');
    writeFileSync(file, `${rows.join('\n')}\n`);
    for (const dry of [['--dry-run'], []]) {
      const result = await runBin(['envelope', 'batch', file, '--template', 'offer-letter', ...dry], {
        env,
        cwd: repo,
      });
      expect(result.code).toBe(2);
      const said = result.stderr.split("column 'start_dte' is not a field").length - 1;
      expect(said).toBe(1);
      expect(result.stderr).toContain(
        "(its fields: company, role, start_date, salary; all 30 records). Did you mean 'start_date'?",
      );
      expect(result.stderr).toContain(
        "merge field 'company' is required by template 'offer-letter', and missing or empty on lines 5, 9, 13, 17, 21, 25, 29",
      );
      expect(result.stderr).toContain('30 of 30 records are invalid');
    }
    expect(await requestsSent()).toEqual([]);
  });

  it('CSV: a misspelt column empty on every line is told once, from the header; nothing sent', async () => {
    const file = join(repo, 'empty-column.csv');
    writeFileSync(
      file,
      'signatory_name,signatory_email,company,start_date,strat_date\n' +
        'Ada,ada@example.com,Acme,2026-12-01,\nBob,bob@example.com,Acme,2026-12-02,\n',
    );
    for (const dry of [['--dry-run'], []]) {
      const result = await runBin(['envelope', 'batch', file, '--template', 'offer-letter', ...dry], {
        env,
        cwd: repo,
      });
      expect(result.code).toBe(2);
      expect(result.stderr.split("column 'strat_date' is not a field").length - 1).toBe(1);
      expect(result.stderr).toContain(
        "column 'strat_date' is not a field of template 'offer-letter' (its fields: company, role, start_date, salary; the column is empty on every line). Did you mean 'start_date'?",
      );
      expect(result.stderr).toContain('2 of 2 records are invalid (1 problem)');
    }
    expect(await requestsSent()).toEqual([]);
  });

  it('a --set default that is not a field is told once, as coming from --set, not from a line', async () => {
    const file = join(repo, 'with-default.csv');
    writeFileSync(
      file,
      'signatory_name,signatory_email,company,start_date\nAda,ada@example.com,Acme,2026-12-01\nBob,bob@example.com,Acme,2026-12-02\n',
    );
    const result = await runBin(
      ['envelope', 'batch', file, '--template', 'offer-letter', '--set', 'strat=x', '--dry-run'],
      { env, cwd: repo },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.split("'strat'").length - 1).toBe(1);
    expect(result.stderr).toContain(
      "merge field 'strat' from --set is not a field of template 'offer-letter' (its fields: company, role, start_date, salary).",
    );
    expect(result.stderr).not.toMatch(/line \d/);
    expect(await requestsSent()).toEqual([]);
  });

  it("JSON Lines: a record's own template name is checked; a good file is sent", async () => {
    const bad = join(repo, 'bad.jsonl');
    writeFileSync(
      bad,
      `${JSON.stringify({ template_id: 'nda', signatory: { name: 'A', email: 'a@example.com' }, merge_data: { x: '1' } })}\n${JSON.stringify({ template_id: 'offer-letter', signatory: { name: 'B', email: 'b@example.com' }, merge_data: { company: 'Acme' } })}\n`,
    );
    const result = await runBin(['envelope', 'batch', bad], { env, cwd: repo });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "merge field 'start_date' is required by template 'offer-letter', and missing or empty on line 2",
    );
    expect(result.stderr).toContain('1 of 2 records is invalid');
    expect(await requestsSent()).toEqual([]);
    const good = join(repo, 'good.jsonl');
    writeFileSync(
      good,
      `${JSON.stringify({ template_id: 'offer-letter', signatory: { name: 'B', email: 'b@example.com' }, merge_data: { company: 'Acme', start_date: '2026-12-01' } })}\n`,
    );
    const sent = await runBin(['envelope', 'batch', good], { env, cwd: repo });
    expect(sent.code).toBe(0);
    expect(await requestsSent()).toEqual([CREATE]);
  });
});

describe('esign templates shows the fields', () => {
  it('for people (required marked, descriptions) and as JSON', async () => {
    const human = await runBin(['templates'], { env, cwd: repo });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(
      `nda           ${ACME_NDA}\n` +
        `offer-letter  ${ACME_OFFER}\n` +
        '  company     required  Legal name of the employer\n' +
        '  role        optional\n' +
        '  start_date  required  e.g. 2026-12-01\n' +
        '  salary      optional\n',
    );
    const json = JSON.parse((await runBin(['templates', '--json'], { env, cwd: repo })).stdout);
    expect(json.entries[1]).toEqual({
      name: 'offer-letter',
      id: ACME_OFFER,
      fields: [
        { name: 'company', required: true, description: 'Legal name of the employer' },
        { name: 'role', required: false },
        { name: 'start_date', required: true, example: '2026-12-01' },
        { name: 'salary', required: false },
      ],
    });
    expect(json.entries[0]).toEqual({ name: 'nda', id: ACME_NDA, fields: [] });
  });
});

describe('a required field given as null', () => {
  it('is told once, as null, not also as missing: in a create and in a batch', async () => {
    const data = join(repo, 'null-company.json');
    writeFileSync(data, JSON.stringify({ company: null, start_date: '2026-12-01' }));
    const create = await runBin(
      [
        'envelope',
        'create',
        '--template',
        'offer-letter',
        '--name',
        'A',
        '--email',
        'a@example.com',
        '--data',
        data,
      ],
      { env, cwd: repo },
    );
    expect(create.code).toBe(2);
    expect(create.stderr).toBe(
      `error: --data ${data}: merge field 'company' is null; values must be strings, numbers or booleans.\nhint: See \`esign envelope create --help\` for the flags and examples.\n`,
    );
    const records = join(repo, 'null-company.jsonl');
    writeFileSync(
      records,
      `${JSON.stringify({ signatory: { name: 'A', email: 'a@example.com' }, merge_data: { company: null, start_date: '2026-12-01' } })}\n`,
    );
    const batch = await runBin(['envelope', 'batch', records, '--template', 'offer-letter'], {
      env,
      cwd: repo,
    });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toContain('1 of 1 records is invalid (1 problem)');
    expect(batch.stderr).toContain("line 1: merge_data: merge field 'company' is null");
    expect(batch.stderr).not.toContain('missing or empty');
    expect(await requestsSent()).toEqual([]);
  });
});
