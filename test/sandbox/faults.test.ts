// Bad-day options: latency, 503 with Retry-After, 429 with Retry-After, dropped connections after
// the envelope was made; the same --seed-random gives the same sequence.
import { afterEach, describe, expect, it } from 'vitest';
import { Faults } from '../../src/sandbox/faults.js';
import { mulberry32 } from '../../src/sandbox/random.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/server.js';
import { GLOBEX_SUPPLIER, postCreate, startQuietSandbox, tokenOf, validBody } from './helpers.js';

const running: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(options: SandboxOptions): Promise<RunningSandbox> {
  const sandbox = await startQuietSandbox(options);
  running.push(sandbox);
  return sandbox;
}

/** Outcomes of `count` create requests sent one after another: a status, or 'dropped'. */
async function outcomes(sandbox: RunningSandbox, count: number): Promise<(number | 'dropped')[]> {
  const seen: (number | 'dropped')[] = [];
  for (let i = 0; i < count; i++) {
    try {
      seen.push((await postCreate(sandbox, validBody())).status);
    } catch {
      seen.push('dropped');
    }
  }
  return seen;
}

describe('--latency', () => {
  it('delays every answer', async () => {
    const sandbox = await start({ latencyMs: 120 });
    const started = performance.now();
    expect((await postCreate(sandbox, validBody())).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('--fail-rate', () => {
  it('answers 503 with Retry-After and creates nothing, in a sequence the seed fixes', async () => {
    const sandbox = await start({ failRate: 0.5, randomSeed: 42 });
    const first = await outcomes(sandbox, 24);
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(sandbox.envelopeCount()).toBe(first.filter((s) => s === 200).length);

    const failed = await (async () => {
      for (;;) {
        const answer = await postCreate(sandbox, validBody());
        if (answer.status === 503) return answer;
      }
    })();
    expect(failed.headers.get('retry-after')).toBe('1');
    expect((failed.json as { message: string }).message).toMatch(/--fail-rate/);

    const again = await start({ failRate: 0.5, randomSeed: 42 });
    expect(await outcomes(again, 24)).toEqual(first);
    const otherSeed = await start({ failRate: 0.5, randomSeed: 43 });
    expect(await outcomes(otherSeed, 24)).not.toEqual(first);
  });

  it('fails everything at 1 and nothing at 0', async () => {
    expect(new Set(await outcomes(await start({ failRate: 1 }), 5))).toEqual(new Set([503]));
    expect(new Set(await outcomes(await start({ failRate: 0 }), 5))).toEqual(new Set([200]));
  });
});

describe('--rate-limit', () => {
  it('answers 429 with Retry-After past n per second, per organisation, and lets requests through again', async () => {
    const sandbox = await start({ rateLimit: 20 });
    const burst = await Promise.all(Array.from({ length: 26 }, () => postCreate(sandbox, validBody())));
    const statuses = burst.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(20);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(21);
    const limited = burst.find((a) => a.status === 429);
    expect(limited?.headers.get('retry-after')).toBe('1');
    expect(limited?.json).toEqual({ message: expect.stringMatching(/^Too Many Requests/) });

    const otherOrg = await postCreate(sandbox, validBody({ template_id: GLOBEX_SUPPLIER, merge_data: {} }), {
      token: tokenOf(sandbox, 1),
    });
    expect(otherOrg.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await postCreate(sandbox, validBody())).status).toBe(200);
  });

  it('does not count requests with a bad token', async () => {
    const sandbox = await start({ rateLimit: 1 });
    for (let i = 0; i < 3; i++)
      expect((await postCreate(sandbox, validBody(), { token: 'sbx_unknown_000000000000' })).status).toBe(
        401,
      );
    expect((await postCreate(sandbox, validBody())).status).toBe(200);
  });
});

describe('--drop-rate', () => {
  it('closes the connection after the envelope was made: the client cannot know the outcome', async () => {
    const lines: string[] = [];
    const sandbox = await start({ dropRate: 1, log: (line) => lines.push(line) });
    await expect(postCreate(sandbox, validBody())).rejects.toThrow();
    expect(sandbox.envelopeCount()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines).toContainEqual(
      expect.stringMatching(/^POST \/api\/v1\/native\/envelopes\/create dropped \d+ms$/),
    );
  });

  it('drops only creates that succeed, in a sequence the seed fixes', async () => {
    const sandbox = await start({ dropRate: 0.4, randomSeed: 7 });
    const first = await outcomes(sandbox, 20);
    expect(first).toContain('dropped');
    expect(first).toContain(200);
    expect(sandbox.envelopeCount()).toBe(20);
    expect((await postCreate(sandbox, validBody(), { token: 'sbx_unknown_000000000000' })).status).toBe(401);
    const again = await start({ dropRate: 0.4, randomSeed: 7 });
    expect(await outcomes(again, 20)).toEqual(first);
  });

  it('combines with --fail-rate reproducibly', async () => {
    const first = await outcomes(await start({ failRate: 0.3, dropRate: 0.3, randomSeed: 2026 }), 20);
    expect(new Set(first)).toEqual(new Set([200, 503, 'dropped']));
    expect(await outcomes(await start({ failRate: 0.3, dropRate: 0.3, randomSeed: 2026 }), 20)).toEqual(
      first,
    );
  });
});

describe('the dice', () => {
  it('mulberry32 is deterministic and spread over [0, 1)', () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });

  it('the token bucket refills at n per second', () => {
    const faults = new Faults({ latencyMs: 0, failRate: 0, dropRate: 0, rateLimit: 2, randomSeed: 1 });
    expect(faults.takeRateLimit('a', 0)).toBeUndefined();
    expect(faults.takeRateLimit('a', 0)).toBeUndefined();
    expect(faults.takeRateLimit('a', 0)).toBe(1);
    expect(faults.takeRateLimit('b', 0)).toBeUndefined();
    expect(faults.takeRateLimit('a', 500)).toBeUndefined();
    expect(faults.takeRateLimit('a', 500)).toBe(1);
  });
});
