// `--expires-in-days 400` against the sandbox: its bound (365 days) is known where the base URL is
// loopback, so the request is refused before it is sent (exit 2, with a hint), in a create, its dry
// run and a batch, instead of a 422 from the sandbox with no hint. Through the built binary.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownExpiryLimit } from '../../src/request/request.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

const env = () => ({
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ESIGN_BASE_URL: sandbox.baseUrl,
  ESIGN_TOKEN: tokenOf(sandbox),
});
const HINT = 'The base URL is a loopback address, where `esign sandbox` listens, and it allows 1 to 365 days';

describe('an expiry over the sandbox bound', () => {
  it('a create and its dry run refuse it locally: exit 2, nothing sent, a hint', async () => {
    const before = sandbox.requests().length;
    for (const extra of [[], ['--dry-run']]) {
      const result = await runBin([...CREATE_ARGS, '--expires-in-days', '400', ...extra], { env: env() });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'error: --expires-in-days: 400 days is more than the sandbox takes (at most 365); it would refuse the request.',
      );
      expect(result.stderr).toContain(`hint: ${HINT}`);
    }
    expect(sandbox.requests()).toHaveLength(before);
    const ok = await runBin([...CREATE_ARGS, '--expires-in-days', '365', '-q'], { env: env() });
    expect(ok.code).toBe(0);
  });

  it('a batch lists each record over it with its line, and refuses a default over it at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-expiry-'));
    const file = join(dir, 'people.jsonl');
    const record = (days: number) =>
      JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' }, expires_in_days: days });
    writeFileSync(file, `${record(30)}\n${record(400)}\n`);
    const before = sandbox.requests().length;
    const records = await runBin(['envelope', 'batch', file, '--template', ACME_OFFER, '--dry-run'], {
      env: env(),
    });
    expect(records.code).toBe(2);
    expect(records.stderr).toContain(
      'line 2: expires_in_days: 400 days is more than the sandbox takes (at most 365); it would refuse the request.',
    );
    writeFileSync(file, `${record(30)}\n`);
    const flag = await runBin(
      ['envelope', 'batch', file, '--template', ACME_OFFER, '--expires-in-days', '366'],
      {
        env: env(),
      },
    );
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('error: --expires-in-days: 366 days is more than the sandbox takes');
    expect(flag.stderr).toContain(`hint: ${HINT}`);
    expect(sandbox.requests()).toHaveLength(before);
  });

  it('only where the bound is known: the real API publishes none', () => {
    expect(knownExpiryLimit('http://127.0.0.1:4010/api/v1')).toBe(365);
    expect(knownExpiryLimit('http://localhost:4010/api/v1')).toBe(365);
    expect(knownExpiryLimit('https://esign.example.com/api/v1')).toBeUndefined();
    expect(knownExpiryLimit(undefined)).toBeUndefined();
  });
});
