// The pacing invariants through the built binary, against a scripted server that rate-limits every
// request in a hostile or odd way: a Retry-After of 0, a quota of zero, a Retry-After far past
// what a timer can hold. Each run ends the normal way (summary, results, exit 8, lock and journal
// released), within its --max-rate-wait, without sending 429s in a tight loop.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const RECORDS = 3;
const CONCURRENCY = 2;
const BUDGET_S = 2;

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const tooMany = (headers: Record<string, string>) =>
  json(429, { success: false, error: { code: 'rate_limited', message: 'Too many requests' } }, headers);

/** A batch of RECORDS against the server, which answers every request with `headers` on a 429. */
async function rateLimitedBatch(headers: Record<string, string>) {
  server.reset();
  server.fallback(tooMany(headers));
  const dir = mkdtempSync(join(tmpdir(), 'esign-floors-'));
  const input = join(dir, 'people.jsonl');
  writeFileSync(
    input,
    Array.from({ length: RECORDS }, (_, i) =>
      JSON.stringify({
        merge_data: { n: String(i) },
        signatory: { name: `P ${i}`, email: `p${i}@example.com` },
      }),
    ).join('\n'),
  );
  const output = join(dir, 'results.jsonl');
  const result = await runBin(
    [
      'envelope',
      'batch',
      input,
      '--template',
      TEMPLATE,
      '--concurrency',
      String(CONCURRENCY),
      '--max-rate-wait',
      `${BUDGET_S}s`,
      '--output',
      output,
    ],
    {
      env: {
        ESIGN_CONFIG_DIR: freshConfigDir(),
        ESIGN_BASE_URL: server.baseUrl,
        ESIGN_TOKEN: 'tok_x_5f1c9a7e3b2d4c6a',
      },
      timeoutMs: 30_000,
    },
  );
  const lines = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { ok: boolean; error?: { code: string } });
  return { ...result, lines, output, requests: server.requests.length };
}

/** Every record failed as rate_limited, the summary was printed, and nothing of the run is left behind. */
function endedNormally(run: Awaited<ReturnType<typeof rateLimitedBatch>>) {
  expect(run.code).toBe(8);
  expect(run.lines).toHaveLength(RECORDS);
  for (const line of run.lines) expect(line).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
  expect(run.stderr).toMatch(/^Batch: 0 created, 3 failed/m);
  expect(run.stderr).not.toContain('TimeoutOverflowWarning');
  expect(existsSync(`${run.output}.lock`)).toBe(false);
  expect(existsSync(`${run.output}.pending`)).toBe(false);
}

describe('rate-limit floors through the built binary', () => {
  it('Retry-After: 0 on every answer: a floor of 1 s between rounds, not thousands of requests a second', async () => {
    const run = await rateLimitedBatch({ 'retry-after': '0' });
    endedNormally(run);
    // A round of at most CONCURRENCY requests a second, for the budget and a round more.
    expect(run.requests).toBeLessThanOrEqual(CONCURRENCY * (BUDGET_S + 2));
    expect(run.stderr).toMatch(/the batch waited [1-9][\d.]* s for it/);
  });

  it('a quota of zero (X-RateLimit-Limit: 0 and a reset): pauses to the reset, then ends the run the normal way', async () => {
    const run = await rateLimitedBatch({
      'x-ratelimit-limit': '0',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
    endedNormally(run);
    expect(run.requests).toBeLessThanOrEqual(CONCURRENCY * (BUDGET_S + 2));
  });

  it('RateLimit-Limit: 0 with a reset, the same', async () => {
    const run = await rateLimitedBatch({
      'ratelimit-limit': '0',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '1',
    });
    endedNormally(run);
  });

  it('Retry-After: 999999999999 (past what a timer holds): every record fails at once, no TimeoutOverflowWarning', async () => {
    const run = await rateLimitedBatch({ 'retry-after': '999999999999' });
    endedNormally(run);
    // The batch's own time (its summary's), not the process's start-up on a loaded machine.
    const took = Number(/of 3 records in ([\d.]+) s/.exec(run.stderr)?.[1]);
    expect(took).toBeLessThan(BUDGET_S);
  });
});
