// Issue 21, through the built binary against the sandbox: a results file whose whole last line lost
// its newline is resumed without a second envelope for that person, and --dry-run refuses what the
// run refuses. The sandbox counts the envelopes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { assertNoSecret } from '../helpers/context.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

const people = (numbers: number[]) =>
  numbers
    .map((n) =>
      JSON.stringify({
        signatory: { name: `Person ${n}`, email: `p${n}@example.com` },
        merge_data: { company: 'Acme Corp', role: 'Engineer' },
      }),
    )
    .join('\n');

describe('resume through the binary', () => {
  it('a whole last result line without its newline is kept: no second envelope; --dry-run refuses as the run does', async () => {
    const token = tokenOf(sandbox);
    const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_TOKEN: token, ESIGN_BASE_URL: sandbox.baseUrl };
    const dir = mkdtempSync(join(tmpdir(), 'esign-e2e-resume-'));
    const input = join(dir, 'people.jsonl');
    const output = join(dir, 'results.jsonl');
    const batch = async (extra: string[]) => {
      const result = await runBin(
        ['envelope', 'batch', input, '--template', ACME_OFFER, '--output', output, ...extra],
        {
          env,
        },
      );
      assertNoSecret(result, token);
      return result;
    };
    writeFileSync(input, `${people([1, 2])}\n`);
    expect((await batch([])).code).toBe(0);
    expect(sandbox.envelopeCount()).toBe(2);

    const dry = await batch(['--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('already holds results');

    const written = readFileSync(output, 'utf8');
    writeFileSync(output, written.trimEnd());
    writeFileSync(input, `${people([1, 2, 3])}\n`);
    const resumed = await batch(['--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('1 created, 0 failed, 0 unknown, 2 skipped of 3 records');
    expect(sandbox.envelopeCount()).toBe(3);
    const lines = readFileSync(output, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).line)).toEqual([1, 2, 3]);
  });
});
