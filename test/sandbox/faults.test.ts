// Bad-day options: latency, 503 with Retry-After, 429 with Retry-After, dropped connections after
// the envelope was made; the same --seed-random gives the same sequence.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/sandbox/faults/random.js';
import type { RateLimitHeaderStyle } from '../../src/sandbox/faults/rate-limit.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  type Answer,
  admin,
  createOutcome,
  GLOBEX_SUPPLIER,
  postCreate,
  request,
  sandboxPerTest,
  tokenOf,
  validBody,
} from './helpers.js';

const start = sandboxPerTest();

/** Outcomes of `count` create requests sent one after another: a status, or 'dropped'. */
async function outcomes(sandbox: RunningSandbox, count: number): Promise<(number | 'dropped')[]> {
  const seen: (number | 'dropped')[] = [];
  for (let i = 0; i < count; i++) seen.push(await createOutcome(sandbox));
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
  it('answers 429 with Retry-After past n per window and token; each window allows at most n', async () => {
    const sandbox = await start({ rateLimit: '20/h' });
    const burst = await Promise.all(Array.from({ length: 26 }, () => postCreate(sandbox, validBody())));
    const perWindow = new Map<string, number>();
    for (const answer of burst) {
      const reset = answer.headers.get('x-ratelimit-reset') as string;
      expect(Number(reset) % 3600).toBe(0);
      if (answer.status === 200) perWindow.set(reset, (perWindow.get(reset) ?? 0) + 1);
    }
    for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(20);
    const limited = burst.find((a) => a.status === 429);
    expect(limited?.json).toEqual({
      message: expect.stringMatching(/^Too Many Requests: at most 20\/h per token \(--rate-limit\)/),
    });
    const resetMs = Number(limited?.headers.get('x-ratelimit-reset')) * 1000;
    const retryAfter = Number(limited?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((resetMs - Date.now()) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(sandbox.envelopeCount()).toBe(burst.filter((a) => a.status === 200).length);

    // Another organisation's token has its own quota.
    const otherOrg = await postCreate(sandbox, validBody({ template_id: GLOBEX_SUPPLIER, merge_data: {} }), {
      token: tokenOf(sandbox, 1),
    });
    expect(otherOrg.status).toBe(200);
    expect(otherOrg.headers.get('x-ratelimit-remaining')).toBe('19');
  });

  it('counts per token, not per organisation', async () => {
    const sandbox = await start({ rateLimit: '1/h' });
    expect((await postCreate(sandbox, validBody())).status).toBe(200);
    expect((await postCreate(sandbox, validBody())).status).toBe(429);
    const made = await admin(sandbox, 'POST', 'tokens', { organisation: 'Acme Corp', name: 'second' });
    const second = (made.json as { token: string }).token;
    const answer = await postCreate(sandbox, validBody(), { token: second });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('lets requests through again once the window is over', async () => {
    const sandbox = await start({ rateLimit: '2/s' });
    let limited: Answer | undefined;
    while (!limited) {
      const answer = await postCreate(sandbox, validBody());
      if (answer.status === 429) limited = answer;
    }
    const resetMs = Number(limited.headers.get('x-ratelimit-reset')) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetMs - Date.now()) + 20));
    const again = await postCreate(sandbox, validBody());
    expect(again.status).toBe(200);
    expect(Number(again.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(resetMs);
  });

  it('does not count requests with a bad token', async () => {
    const sandbox = await start({ rateLimit: 1 });
    for (let i = 0; i < 3; i++)
      expect((await postCreate(sandbox, validBody(), { token: 'sbx_unknown_000000000000' })).status).toBe(
        401,
      );
    expect((await postCreate(sandbox, validBody())).status).toBe(200);
  });

  const styles: [RateLimitHeaderStyle, (a: Answer) => unknown, unknown, unknown, unknown][] = [
    [
      'x-ratelimit',
      (a) => ({
        limit: a.headers.get('x-ratelimit-limit'),
        remaining: a.headers.get('x-ratelimit-remaining'),
        reset: Number(a.headers.get('x-ratelimit-reset')) % 3600,
      }),
      { limit: '3', remaining: '2', reset: 0 },
      { limit: '3', remaining: '0', reset: 0 },
      { limit: '3', remaining: '3', reset: 0 },
    ],
    [
      'ietf',
      (a) => ({
        limit: a.headers.get('ratelimit-limit'),
        remaining: a.headers.get('ratelimit-remaining'),
        reset:
          /^\d+$/.test(a.headers.get('ratelimit-reset') ?? '') &&
          Number(a.headers.get('ratelimit-reset')) <= 3600,
        policy: a.headers.get('ratelimit-policy'),
      }),
      { limit: '3', remaining: '2', reset: true, policy: '3;w=3600' },
      { limit: '3', remaining: '0', reset: true, policy: '3;w=3600' },
      { limit: '3', remaining: '3', reset: true, policy: '3;w=3600' },
    ],
    [
      'structured',
      (a) => ({
        ratelimit: a.headers.get('ratelimit')?.replace(/;t=\d+$/, ';t=T'),
        policy: a.headers.get('ratelimit-policy'),
      }),
      { ratelimit: '"default";r=2;t=T', policy: '"default";q=3;w=3600' },
      { ratelimit: '"default";r=0;t=T', policy: '"default";q=3;w=3600' },
      { ratelimit: '"default";r=3;t=T', policy: '"default";q=3;w=3600' },
    ],
    ['none', (a) => [...a.headers.keys()].filter((name) => name.includes('ratelimit')), [], [], []],
  ];
  it.each(styles)(
    '--rate-limit-headers %s on every API answer',
    async (style, read, first, limited, fresh) => {
      const sandbox = await start({ rateLimit: '3/h', rateLimitHeaders: style });
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) answers.push(await postCreate(sandbox, validBody()));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
      expect(read(answers[0] as Answer)).toEqual(first);
      expect(read(answers[3] as Answer)).toEqual(limited);
      expect(Number(answers[3]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // 4xx answers of the API carry them too: 401, 404 and 405 under /api/v1, and a 422.
      const unauthenticated = await postCreate(sandbox, validBody(), { token: 'sbx_unknown_000000000000' });
      const notFound = await request(`${sandbox.baseUrl}/nothing`, {
        headers: { authorization: `Bearer ${tokenOf(sandbox)}` },
      });
      const wrongMethod = await postCreate(sandbox, validBody(), { method: 'PUT' });
      const invalid = await postCreate(sandbox, {}, { token: tokenOf(sandbox, 1) });
      expect([unauthenticated.status, notFound.status, wrongMethod.status, invalid.status]).toEqual([
        401, 404, 405, 422,
      ]);
      expect(read(notFound)).toEqual(limited); // the token's spent quota, not counted again
      expect(read(wrongMethod)).toEqual(limited);
      expect(read(unauthenticated)).toEqual(fresh); // no token: a fresh window
      expect(read(invalid)).toEqual(first); // counted: Globex's token's first request
    },
  );

  it('sends no rate-limit headers without a limit', async () => {
    const sandbox = await start({});
    const answer = await postCreate(sandbox, validBody());
    expect(
      [...answer.headers.keys()].filter((name) => name.includes('ratelimit') || name === 'retry-after'),
    ).toEqual([]);
  });
});

describe('--drop-rate', () => {
  it('closes the connection after the envelope was made: the client cannot know the outcome', async () => {
    const lines: string[] = [];
    const sandbox = await start({ dropRate: 1, log: (line) => lines.push(line) });
    await expect(postCreate(sandbox, validBody())).rejects.toThrow();
    expect(sandbox.envelopeCount()).toBe(1);
    await waitFor(() => lines.some((line) => line.includes(' dropped ')), 'the drop in the log');
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
});
