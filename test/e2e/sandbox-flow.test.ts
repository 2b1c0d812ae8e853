// The whole product against the sandbox, through the built binary: login, create in every output
// mode, the signing page, isolation, revocation, and batches with connections dropped on purpose.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateEnvelopeResponse } from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { assertNoSecret } from '../helpers/context.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, admin, GLOBEX_SUPPLIER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

const create = (extra: string[] = []) => [
  'envelope',
  'create',
  '--template',
  ACME_OFFER,
  '--set',
  'company=Acme Corp',
  '--set',
  'role=Engineer',
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
  ...extra,
];

describe('esign against esign sandbox', () => {
  it('login --with-token, then create in every output mode; the signing URL opens to the envelope', async () => {
    const token = tokenOf(sandbox);
    const env = { ESIGN_CONFIG_DIR: freshConfigDir() };
    const login = await runBin(['login', '--with-token', '--base-url', sandbox.baseUrl], {
      env,
      stdin: `${token}\n`,
    });
    expect(login.code).toBe(0);

    const human = await runBin(create(['--expires-in-days', '14']), { env });
    const asJson = await runBin(create(['--json']), { env });
    const quiet = await runBin(create(['-q']), { env });
    for (const result of [login, human, asJson, quiet]) assertNoSecret(result, token);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Status       ready');
    expect(human.stdout).toContain('(in 14 days)');

    expect(asJson.code).toBe(0);
    const envelope = JSON.parse(asJson.stdout);
    expect(CreateEnvelopeResponse.safeParse({ success: true, data: envelope }).success).toBe(true);
    expect(Date.parse(envelope.expires_at) - Date.parse(envelope.created_at)).toBe(30 * 24 * 3600 * 1000);

    expect(quiet.code).toBe(0);
    const url = quiet.stdout.trim();
    expect(quiet.stdout).toBe(`${url}\n`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Ada Lovelace');
    expect(html).toContain('Acme Corp');
  });

  it('another organisation’s template is 403 (exit 4); a revoked token is 401 (exit 3)', async () => {
    const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_BASE_URL: sandbox.baseUrl };
    const made = await admin(sandbox, 'POST', 'tokens', { organisation: 'Acme Corp', name: 'e2e rotation' });
    const token = (made.json as { token: string }).token;
    const forbidden = await runBin(
      ['envelope', 'create', '--template', GLOBEX_SUPPLIER, '--name', 'A', '--email', 'a@b.co', '--json'],
      { env: { ...env, ESIGN_TOKEN: token } },
    );
    assertNoSecret(forbidden, token);
    expect(forbidden.code).toBe(4);
    expect(JSON.parse(forbidden.stderr).error).toMatchObject({ code: 'forbidden', status: 403 });
    expect(JSON.parse(forbidden.stderr).error.message).toContain('Forbidden.');

    expect((await admin(sandbox, 'POST', 'tokens/revoke', { token })).status).toBe(200);
    const revoked = await runBin(create(), { env: { ...env, ESIGN_TOKEN: token } });
    assertNoSecret(revoked, token);
    expect(revoked.code).toBe(3);
    expect(revoked.stderr).toContain('Unauthenticated.');
    expect(revoked.stderr).toContain('esign login');
  });

  it('batch with dropped connections: unknown outcomes are reported, never re-sent unless asked', async () => {
    const token = tokenOf(sandbox);
    const dir = mkdtempSync(join(tmpdir(), 'esign-e2e-batch-'));
    const total = 40;
    const csv = ['signatory_name,signatory_email,company'];
    for (let i = 0; i < total; i++) csv.push(`Person ${i},p${i}@example.com,"Acme, ${i}"`);
    const input = join(dir, 'people.csv');
    writeFileSync(input, `${csv.join('\n')}\n`);
    const output = join(dir, 'results.jsonl');
    const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: token };
    const args = [
      'envelope',
      'batch',
      input,
      '--template',
      ACME_OFFER,
      '--output',
      output,
      '--concurrency',
      '8',
    ];

    sandbox.configureFaults({ dropRate: 0.25, randomSeed: 7 });
    const before = sandbox.envelopeCount();
    const first = await runBin(args, { env });
    assertNoSecret(first, token);
    expect(first.code).toBe(8);
    const results = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const unknown = results.filter((r) => !r.ok);
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.every((r) => r.error.code === 'outcome_unknown')).toBe(true);
    expect(results).toHaveLength(total);
    // Dropped connections still created their envelopes: the server has one per record.
    expect(sandbox.envelopeCount() - before).toBe(total);

    sandbox.configureFaults({ dropRate: 0 });
    const resumed = await runBin([...args, '--resume'], { env });
    expect(resumed.code).toBe(8);
    expect(resumed.stderr).toContain(
      `0 created, 0 failed, ${unknown.length} unknown, ${total - unknown.length} skipped`,
    );
    expect(sandbox.envelopeCount() - before).toBe(total); // nothing sent twice

    const retried = await runBin([...args, '--resume', '--retry-unknown'], { env });
    expect(retried.code).toBe(0);
    expect(sandbox.envelopeCount() - before).toBe(total + unknown.length); // asked for, and only those
  });
});
