// The sandbox under load: its envelopes take at most the memory it is given (--envelope-budget).
// Past it a create is answered 507 Insufficient Storage, and nothing is made; every envelope answered
// 200 before is kept (and, with --state, comes back after a restart). esign reads a 507 as "nothing
// was created", never as an outcome to check. The budget is never more than the process's heap
// holds: a sandbox started with a small heap answers 507 where it would otherwise be killed by V8.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/commands/sandbox.js';
import {
  envelopeBudget,
  heapEnvelopeBytes,
  heapLimit,
  oldSpaceFlagBytes,
} from '../../src/sandbox/envelope-budget.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/context.js';
import {
  ACME_OFFER,
  admin,
  postCreate,
  type SpawnedSandbox,
  spawnSandbox,
  tokenOf,
  validBody,
} from './helpers.js';

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

describe('the envelope budget within the heap', () => {
  it('is what was asked where the heap holds it, else a quarter of the heap past a 64 MiB reserve', () => {
    // Node's default heap here (4 GiB and more): 256 MiB, as asked.
    expect(envelopeBudget(256 * MIB, 4144 * MIB)).toEqual({
      bytes: 256 * MIB,
      askedBytes: 256 * MIB,
      heapLimitBytes: 4144 * MIB,
      byHeap: false,
    });
    // --max-old-space-size=160 (a heap limit of 208 MiB with the young generation): 36 MiB.
    expect(envelopeBudget(256 * MIB, 208 * MIB)).toMatchObject({ bytes: 36 * MIB, byHeap: true });
    expect(envelopeBudget(MIB, 208 * MIB)).toMatchObject({ bytes: MIB, byHeap: false });
    expect(heapEnvelopeBytes(560 * MIB)).toBe(124 * MIB);
    // Whole MiB, and never nothing.
    expect(heapEnvelopeBytes(208 * MIB + 3)).toBe(36 * MIB);
    expect(heapEnvelopeBytes(16 * MIB)).toBe(MIB);
  });

  it("counts the old generation's flag, not a young generation V8 sizes per Node line", () => {
    // Node 24 gives --max-old-space-size=160 a heap limit of 352 MiB, Node 26 256 MiB: the young
    // generation grew, the old one (where envelopes live) did not. Before, 352 MiB gave a budget
    // of 72 MiB, and Node 24 aborted (out of memory) saving the state.
    expect(heapLimit(352 * MIB, 160 * MIB)).toBe(208 * MIB);
    expect(heapLimit(256 * MIB, 160 * MIB)).toBe(208 * MIB);
    expect(heapLimit(208 * MIB, 160 * MIB)).toBe(208 * MIB);
    expect(heapLimit(4144 * MIB, undefined)).toBe(4144 * MIB);
    expect(oldSpaceFlagBytes([], '--max-old-space-size=160')).toBe(160 * MIB);
    expect(oldSpaceFlagBytes(['--max_old_space_size=300'], '--max-old-space-size=160')).toBe(300 * MIB);
    expect(oldSpaceFlagBytes([], '--inspect')).toBeUndefined();
  });

  it('under NODE_OPTIONS=--max-old-space-size=160: 507 at 36 MiB of large creates, and the sandbox lives on', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'esign-budget-heap-'));
    const sandbox = await spawnSandbox(['--state', join(folder, 'state.json')], {
      ESIGN_CONFIG_DIR: join(folder, 'config'),
      NODE_OPTIONS: '--max-old-space-size=160',
    });
    let exited: unknown;
    void sandbox.exit.then((how) => {
      exited = how;
    });
    try {
      // Each about 1 MiB of merge data that a string keeps as UTF-16, 2 MiB (the most memory a body
      // can take): without the heap's bound, V8 gives up after about 50 of these.
      const statuses = await createUntilFull(sandbox, 4, 300);
      expect(sandbox.info.envelope_budget_mib).toBe(36);
      const refused = statuses.find((each) => each.status !== 200);
      expect(refused?.status).toBe(507);
      expect(refused?.message).toMatch(
        /^Insufficient Storage: the sandbox keeps at most 36 MiB of envelopes and holds 3\d\.\d MiB \(1\d envelopes\); this envelope was not created\. Restart the sandbox \(with a new --state file, or none\) or give Node a larger heap: 36 MiB is what its heap of 208 MiB holds \(NODE_OPTIONS=--max-old-space-size=<MiB>\)\.$/,
      );
      const created = statuses.filter((each) => each.status === 200).length;
      expect(created).toBeGreaterThanOrEqual(15);
      expect(created).toBeLessThanOrEqual(18);
      // Alive: it answers, a small create still fits, and it stops as asked with its state saved.
      const small = await createOne(sandbox, 'Acme Corp');
      expect(small.status).toBe(200);
      expect(exited).toBeUndefined();
      sandbox.child.kill('SIGTERM');
      expect(await sandbox.exit).toEqual({ code: 0, signal: null });
      expect(sandbox.stderr()).toContain('Stopped. State saved in');
      expect(sandbox.stderr()).toContain(
        "note: envelopes may take 36 MiB, not the 256 MiB asked: that is what this Node's heap of 208 MiB holds",
      );
    } finally {
      sandbox.child.kill('SIGKILL');
    }
  });
});

/** A create of `company` to the spawned sandbox: its status and message. */
async function createOne(
  sandbox: SpawnedSandbox,
  company: string,
): Promise<{ status: number; message: string }> {
  const org = sandbox.info.organisations[0];
  const response = await fetch(`${sandbox.info.base_url}/native/envelopes/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template_id: org?.templates[0]?.id,
      merge_data: { company, role: 'Engineer' },
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
    }),
  });
  const body = (await response.json()) as { message?: string };
  return { status: response.status, message: body.message ?? '' };
}

/** Large creates, `concurrency` at a time, until one is not answered 200 (or `most` were sent). */
async function createUntilFull(
  sandbox: SpawnedSandbox,
  concurrency: number,
  most: number,
): Promise<{ status: number; message: string }[]> {
  // One 'ā' makes V8 keep the whole string as UTF-16: a body under 1 MiB, 2 MiB in memory.
  const company = `${'x'.repeat(1000 * 1024)}ā`;
  const answers: { status: number; message: string }[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < most && answers.every((each) => each.status === 200)) {
      sent += 1;
      answers.push(await createOne(sandbox, `${sent} ${company}`));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}
