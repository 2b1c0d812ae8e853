// The built CLI as a user runs it: `node bin/esign.js sandbox --port 0 --json`, stopped by SIGTERM or
// SIGINT (exit 0), and killed with SIGKILL in the middle of creates with --state (the state is whole
// on restart, with every envelope that was answered 200).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateEnvelopeResponse } from '../../src/api/schemas.js';
import { startSandbox } from '../../src/commands/sandbox.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { type SpawnedSandbox, spawnSandbox as spawnInFolder } from './helpers.js';

const root = resolve(import.meta.dirname, '../..');
const folder = mkdtempSync(join(tmpdir(), 'esign-sandbox-bin-'));

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** `esign sandbox --port 0 --json <args>` from the built bin, with this file's config folder. */
const spawnSandbox = (args: string[]) => spawnInFolder(args, { ESIGN_CONFIG_DIR: join(folder, 'config') });

function create(started: SpawnedSandbox): Promise<Response> {
  const org = started.info.organisations[0];
  return fetch(`${started.info.base_url}/native/envelopes/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template_id: org?.templates[0]?.id,
      merge_data: { company: 'Acme Corp' },
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
    }),
  });
}

describe('node bin/esign.js sandbox', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'serves, then stops gracefully on %s with exit code 0',
    async (signal) => {
      const started = await spawnSandbox([]);
      const response = await create(started);
      expect(response.status).toBe(200);
      await response.json();
      started.child.kill(signal);
      expect(await started.exit).toEqual({ code: 0, signal: null });
      expect(started.stderr()).toMatch(/^POST \/api\/v1\/native\/envelopes\/create 200 \d+ms$/m);
      expect(started.stderr()).toContain('Stopped.');
    },
  );

  it('--rate-limit 1/h --rate-limit-headers structured: the quota, spent, then 429 with Retry-After', async () => {
    const started = await spawnSandbox(['--rate-limit', '1/h', '--rate-limit-headers', 'structured']);
    try {
      const first = await create(started);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
      expect(first.headers.get('ratelimit-policy')).toBe('"default";q=1;w=3600');
      const second = await create(started);
      expect(second.status).toBe(429);
      const seconds = Number(/;t=(\d+)$/.exec(second.headers.get('ratelimit') ?? '')?.[1]);
      expect(second.headers.get('retry-after')).toBe(String(Math.max(1, seconds)));
      expect(((await second.json()) as { message: string }).message).toMatch(
        /^Too Many Requests: at most 1\/h per token/,
      );
    } finally {
      started.child.kill('SIGTERM');
      await started.exit;
    }
  });

  it('--rate-limit 0.5/s, as --rate and defaults.rate read it: the same rate in whole requests, 1 per 2 s', async () => {
    const started = await spawnSandbox(['--rate-limit', '0.5/s', '--rate-limit-headers', 'ietf']);
    try {
      expect((started.info as unknown as { faults: { rate_limit: unknown } }).faults.rate_limit).toEqual({
        limit: 1,
        window_seconds: 2,
      });
      const first = await create(started);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-policy')).toBe('1;w=2');
    } finally {
      started.child.kill('SIGTERM');
      await started.exit;
    }
  });

  it('leaves a whole state file when killed with SIGKILL during creates, with every envelope answered 200', async () => {
    const statePath = join(folder, 'killed.json');
    const started = await spawnSandbox(['--state', statePath]);
    const acknowledged: string[] = [];
    let running = true;
    const workers = Array.from({ length: 8 }, async () => {
      while (running) {
        try {
          const response = await create(started);
          const body = (await response.json()) as CreateEnvelopeResponse;
          if (response.status === 200) acknowledged.push(body.data.envelope_id);
        } catch {
          return; // the process is gone
        }
      }
    });
    while (acknowledged.length < 300) await new Promise((done) => setTimeout(done, 10));
    started.child.kill('SIGKILL');
    running = false;
    await Promise.all(workers);
    expect((await started.exit).signal).toBe('SIGKILL');
    expect(existsSync(`${statePath}.lock`)).toBe(true); // left behind by the killed process

    const notes: string[] = [];
    const restarted = await startSandbox({ port: 0, statePath, log: (line) => notes.push(line) });
    try {
      expect(restarted.restored).toBe(true);
      expect(restarted.envelopeCount()).toBeGreaterThanOrEqual(acknowledged.length);
      for (const id of acknowledged.slice(-20)) {
        expect((await fetch(`${restarted.url}/sign/${id}`)).status).toBe(200);
      }
    } finally {
      await restarted.close();
    }
    const snapshot = JSON.parse(readFileSync(statePath, 'utf8')) as { envelopes: { id: string }[] };
    const saved = new Set(snapshot.envelopes.map((e) => e.id));
    expect(acknowledged.filter((id) => !saved.has(id))).toEqual([]);
  });
});

describe('a CI test steering the built sandbox (the worked example of docs/sandbox.md)', () => {
  it('queues faults for esign envelope create, then checks what esign sent and what was created', async () => {
    const started = await spawnSandbox([]);
    const { info } = started;
    const adminCall = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${info.url}/_sandbox/${route}`, {
        method,
        headers: { authorization: `Bearer ${info.admin_secret}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const esign = () =>
      runBin(
        [
          'envelope',
          'create',
          '--template',
          info.organisations[0]?.templates[0]?.id as string,
          '--name',
          'Ada Lovelace',
          '--email',
          'ada@example.com',
          '--set',
          'company=Acme Corp',
          '--json',
        ],
        {
          env: {
            ESIGN_CONFIG_DIR: freshConfigDir(),
            ESIGN_TOKEN: info.organisations[0]?.token,
            ESIGN_BASE_URL: info.base_url,
          },
        },
      );
    try {
      // A server error on the next create: esign exits 7 and nothing was created.
      await adminCall('POST', 'faults', { next: ['500'] });
      const failed = await esign();
      expect(failed.code).toBe(7);
      expect(await adminCall('GET', 'envelopes')).toMatchObject({ total: 0, envelopes: [] });
      const seen = (await adminCall('GET', 'requests')) as {
        requests: { method: string; status: number; headers: Record<string, string>; body: string }[];
      };
      expect(seen.requests).toHaveLength(1);
      expect(seen.requests[0]).toMatchObject({ method: 'POST', status: 500 });
      expect(seen.requests[0]?.headers.authorization).toBe('Bearer [redacted]');
      expect(JSON.parse(seen.requests[0]?.body ?? '')).toMatchObject({
        signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
        merge_data: { company: 'Acme Corp' },
      });
      await adminCall('DELETE', 'requests');

      // A 503 with Retry-After: esign retries it and succeeds.
      await adminCall('POST', 'faults', { next: ['503'] });
      const retried = await esign();
      expect(retried.code).toBe(0);
      const envelopeId = (JSON.parse(retried.stdout) as { envelope_id: string }).envelope_id;
      const after = (await adminCall('GET', 'requests')) as { requests: { status: number }[] };
      expect(after.requests.map((r) => r.status)).toEqual([503, 200]);
      expect(await adminCall('GET', 'envelopes')).toMatchObject({
        total: 1,
        envelopes: [{ envelope_id: envelopeId, signatory: { email: 'ada@example.com' } }],
      });
    } finally {
      started.child.kill('SIGTERM');
      await started.exit;
    }
  });
});
