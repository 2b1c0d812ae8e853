// The rate limit's invariants, through the built binary against a hostile scripted server (with
// rate-limit-floors.test.ts, which covers Retry-After: 0 and both quota-of-zero headers):
// - every wait a record goes through counts against --max-rate-wait from when it was ready to go,
//   and past it the record fails as rate_limited at once, every record in the same position;
// - no timer beyond 2^31-1 ms (no TimeoutOverflowWarning), a reset in year 9999 included;
// - a quota of zero ends the run the normal way: summary, results, step outputs, lock and journal
//   released, exit 8; never an unsettled promise (Node's exit 13).
// Each test is bounded by the spawn's timeout, never by a sleep.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, type Reply, useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_rate_invariants_8b2d4f6a1c3e5079';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
/** How long the built binary may run before it is killed: far past every budget below. */
const SPAWN_TIMEOUT_MS = 15_000;

const server = useScriptedServer();

function batchFiles(records: number) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-rate-invariants-'));
  const input = join(dir, 'p.jsonl');
  writeFileSync(
    input,
    Array.from({ length: records }, (_, i) =>
      JSON.stringify({ signatory: { name: `Person ${i + 1}`, email: `p${i + 1}@example.com` } }),
    ).join('\n'),
  );
  const outputs = join(dir, 'github-output');
  writeFileSync(outputs, '');
  return { dir, input, output: join(dir, 'results.jsonl'), outputs };
}

/** Runs a batch of `records` with --output through the built binary; how long it took, and its files. */
async function batch(records: number, maxRateWait: string, extra: string[] = []) {
  const files = batchFiles(records);
  const started = Date.now();
  const result = await runBin(
    [
      'envelope',
      'batch',
      files.input,
      '--template',
      TEMPLATE,
      '--output',
      files.output,
      '--max-rate-wait',
      maxRateWait,
      ...extra,
    ],
    {
      env: {
        ESIGN_CONFIG_DIR: freshConfigDir(),
        ESIGN_TOKEN: TOKEN,
        ESIGN_BASE_URL: server.baseUrl,
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: files.outputs,
      },
      timeoutMs: SPAWN_TIMEOUT_MS,
    },
  );
  const results = existsSync(files.output)
    ? readFileSync(files.output, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  return { ...result, elapsedMs: Date.now() - started, results, files };
}

/** The run ended the normal way: every record failed as rate_limited, stored, summarised, released. */
function endedNormally(run: Awaited<ReturnType<typeof batch>>, records: number) {
  expect(run.signal).toBeNull();
  expect(run.code).toBe(8);
  expect(run.stderr).toContain(
    `Batch: 0 created, ${records} failed, 0 unknown, 0 skipped of ${records} records`,
  );
  expect(run.results).toHaveLength(records);
  for (const result of run.results) {
    expect(result.ok).toBe(false);
    expect(result.error.code).toBe('rate_limited');
  }
  expect(readFileSync(run.files.outputs, 'utf8')).toContain(`created=0\nfailed=${records}\nunknown=0\n`);
  expect(existsSync(`${run.files.output}.lock`)).toBe(false);
  expect(existsSync(`${run.files.output}.pending`)).toBe(false);
  expect(run.stderr).not.toContain('Warning');
}

describe('envelope batch: rate-limit invariants (built binary, hostile server)', () => {
  const resetIn = (seconds: number) => String(Math.ceil(Date.now() / 1000) + seconds);
  // RateLimit-Limit: 0 and a relative X-RateLimit-Reset: rate-limit-floors.test.ts.
  const quotaOfZero: [string, () => Record<string, string>][] = [
    [
      'X-RateLimit-Limit: 0',
      () => ({ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': resetIn(1) }),
    ],
  ];
  for (const [name, headers] of quotaOfZero) {
    it(`a quota of zero (${name}) with a reset in Unix seconds: the run ends normally, step outputs written, lock and journal released`, async () => {
      server.fallback((): Reply => json(429, { message: 'Too Many Requests' }, headers()));
      const run = await batch(3, '3s', ['--concurrency', '2']);
      endedNormally(run, 3);
      expect(server.requests.length).toBeLessThanOrEqual(8);
    }, 30_000);
  }

  it('Retry-After: 3600 with --max-rate-wait 2s: every record fails as rate_limited at once, none waits the hour', async () => {
    server.fallback(json(429, { message: 'Too Many Requests' }, { 'retry-after': '3600' }));
    const run = await batch(5, '2s', ['--concurrency', '2']);
    endedNormally(run, 5);
    // The pause ends past every record's budget: nobody is sent again, nobody waits for it.
    expect(server.requests).toHaveLength(1);
    expect(run.elapsedMs).toBeLessThan(SPAWN_TIMEOUT_MS);
  }, 30_000);

  it('Retry-After: 999999999999 and a reset in year 9999: no TimeoutOverflowWarning, the run ends within its budget', async () => {
    server.fallback(
      json(
        429,
        { message: 'Too Many Requests' },
        {
          'retry-after': '999999999999',
          'x-ratelimit-limit': '10',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': '253402300799',
        },
      ),
    );
    const run = await batch(3, '2s', ['--concurrency', '3']);
    endedNormally(run, 3);
    expect(run.stderr).not.toContain('TimeoutOverflowWarning');
    expect(server.requests).toHaveLength(1);
    expect(run.elapsedMs).toBeLessThan(SPAWN_TIMEOUT_MS);
  }, 30_000);
});
