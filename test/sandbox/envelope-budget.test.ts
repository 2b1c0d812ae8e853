// The sandbox under load: its envelopes take at most the memory it is given (--envelope-budget).
// Past it a create is answered 507 Insufficient Storage, and nothing is made; every envelope answered
// 200 before is kept (and, with --state, comes back after a restart). esign reads a 507 as "nothing
// was created", never as an outcome to check.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/commands/sandbox.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/context.js';
import { ACME_OFFER, admin, postCreate, tokenOf, validBody } from './helpers.js';

const MIB = 1024 * 1024;
const started: RunningSandbox[] = [];
afterAll(() => Promise.all(started.map((sandbox) => sandbox.close())));

async function sandboxWith(options: { statePath?: string } = {}) {
  const sandbox = await startSandbox({ port: 0, envelopeBudget: MIB, ...options });
  started.push(sandbox);
  return sandbox;
}

/** A create whose merge data takes about 600 KiB of the budget (300 Ki characters, as UTF-16). */
const bigBody = (n: number) =>
  validBody({
    merge_data: { company: `${n}${'x'.repeat(300 * 1024)}`, role: 'Engineer' },
  });

describe('the sandbox within its envelope budget', () => {
  it('answers 507 past its budget, creates nothing, and keeps every envelope answered 200, across a restart', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'esign-budget-')), 'state.json');
    const sandbox = await sandboxWith({ statePath });
    const first = await postCreate(sandbox, bigBody(1));
    expect(first.status).toBe(200);
    const refused = await postCreate(sandbox, bigBody(2));
    expect(refused.status).toBe(507);
    expect((refused.json as { message: string }).message).toMatch(
      /^Insufficient Storage: the sandbox keeps at most 1 MiB of envelopes and holds 0\.6 MiB \(1 envelopes\); this envelope was not created\./,
    );
    // A small one still fits.
    expect((await postCreate(sandbox, validBody())).status).toBe(200);
    const stats = (await admin(sandbox, 'GET', 'stats')).json as Record<string, number>;
    expect(stats.envelopes).toBe(2);
    expect(stats.envelope_budget_bytes).toBe(MIB);
    expect(stats.envelope_bytes).toBeGreaterThan(600 * 1024);
    expect(stats.envelope_bytes).toBeLessThanOrEqual(MIB);
    await sandbox.close();

    const again = await sandboxWith({ statePath });
    expect(again.envelopeCount()).toBe(2);
    expect((await postCreate(again, bigBody(3))).status).toBe(507);
  });

  it('esign create against a full sandbox: exit 7, nothing was created (not an unknown outcome)', async () => {
    const sandbox = await sandboxWith();
    expect((await postCreate(sandbox, bigBody(1))).status).toBe(200);
    const company = `company=${'y'.repeat(300 * 1024)}`;
    const result = await runCli(
      ['envelope', 'create', '--template', ACME_OFFER, '--name', 'Ada', '--email', 'ada@example.com'].concat([
        '--set',
        company,
        '--set',
        'role=Engineer',
        '--json',
      ]),
      { env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: tokenOf(sandbox) } },
    );
    expect(result.code).toBe(7);
    const error = JSON.parse(result.stderr).error as { code: string; status: number; hint: string };
    expect(error).toMatchObject({
      status: 507,
      hint: 'Nothing was created: the API has no room to store it.',
    });
    expect(error.code).not.toBe('outcome_unknown');
    expect(sandbox.envelopeCount()).toBe(1);
  });
});
