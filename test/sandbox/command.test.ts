// `esign sandbox` in-process: its flags, what it prints on start (for people and with --json), and
// a graceful stop with exit 0 when the context's signal is aborted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CreateEnvelopeResponse } from '../../src/api/schemas.js';
import { defaultToken } from '../../src/sandbox/state/tokens.js';
import { createTestContext, runCli, type TestContext } from '../helpers/context.js';

const folder = mkdtempSync(join(tmpdir(), 'esign-sandbox-command-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface StartupJson {
  base_url: string;
  url: string;
  admin_secret: string;
  state_file: string | null;
  organisations: {
    name: string;
    token: string;
    templates: { id: string; name: string; merge_tags: string[] }[];
  }[];
}

/** Runs `esign sandbox <args>` until the first stdout output appears, then hands over a stop function. */
async function startCommand(args: string[]): Promise<{ ctx: TestContext; stop: () => Promise<number> }> {
  const controller = new AbortController();
  const ctx = createTestContext({ signal: controller.signal });
  const done = runCli(['sandbox', ...args], ctx);
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  while (!ctx.out.text.includes('\n') && !finished) await new Promise((resolve) => setTimeout(resolve, 5));
  if (finished) throw new Error(`the sandbox exited early: ${ctx.err.text}`);
  return {
    ctx,
    stop: async () => {
      controller.abort();
      return (await done).code;
    },
  };
}

describe('esign sandbox --json', () => {
  it('prints one JSON object with the base URL, organisations, tokens and templates, serves, and stops with 0', async () => {
    const { ctx, stop } = await startCommand(['--port', '0', '--json']);
    const lines = ctx.out.text.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const info = JSON.parse(lines[0] as string) as StartupJson;
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(info.admin_secret).toMatch(/^sbx_admin_/);
    expect(info.state_file).toBeNull();
    expect(info.organisations.map((o) => o.name)).toEqual(['Acme Corp', 'Globex Inc']);
    expect(info.organisations[0]?.token).toBe(defaultToken('Acme Corp'));
    expect(info.organisations[0]?.templates[0]).toEqual({
      id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      name: 'Offer letter',
      merge_tags: ['company', 'role', 'start_date', 'salary'],
    });

    const response = await fetch(`${info.base_url}/native/envelopes/create`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${info.organisations[0]?.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        template_id: info.organisations[0]?.templates[0]?.id,
        merge_data: { company: 'Acme Corp' },
        signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
      }),
    });
    expect(response.status).toBe(200);
    expect(CreateEnvelopeResponse.safeParse(await response.json()).success).toBe(true);

    expect(await stop()).toBe(0);
    expect(ctx.err.text).toMatch(/^POST \/api\/v1\/native\/envelopes\/create 200 \d+ms$/m);
    expect(ctx.err.text).toMatch(/Stopped\.\n$/);
    expect(ctx.err.text).not.toContain(info.organisations[0]?.token);
    await expect(fetch(info.base_url)).rejects.toThrow();
  });

  it('uses a --seed file and a --state file', async () => {
    const seed = join(folder, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        organisations: [
          { name: 'Initech', tokens: [{ name: 'dev', token: 'initech-dev-token-0001' }], templates: [] },
        ],
      }),
    );
    const state = join(folder, 'state.json');
    const { ctx, stop } = await startCommand(['--port', '0', '--json', '--seed', seed, '--state', state]);
    const info = JSON.parse(ctx.out.text) as StartupJson;
    expect(info.organisations.map((o) => [o.name, o.token])).toEqual([['Initech', 'initech-dev-token-0001']]);
    expect(info.state_file).toBe(state);
    expect(await stop()).toBe(0);
    expect(ctx.err.text).toContain(`State saved in ${state}.`);
  });
});

describe('esign sandbox --rate-limit', () => {
  it('shows the limit and the header style on start, and answers with them', async () => {
    const json = await startCommand([
      '--port',
      '0',
      '--json',
      '--rate-limit',
      '2/5s',
      '--rate-limit-headers',
      'ietf',
    ]);
    const info = JSON.parse(json.ctx.out.text) as StartupJson & { faults: Record<string, unknown> };
    expect(info.faults).toMatchObject({
      rate_limit: { limit: 2, window_seconds: 5 },
      rate_limit_headers: 'ietf',
    });
    const send = () =>
      fetch(`${info.base_url}/native/envelopes/create`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${info.organisations[0]?.token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          template_id: info.organisations[0]?.templates[0]?.id,
          merge_data: {},
          signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
        }),
      });
    let limited: Response | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const response = await send();
      expect(response.headers.get('ratelimit-policy')).toBe('2;w=5');
      if (response.status === 429) limited = response;
    }
    expect(limited?.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited?.headers.get('retry-after'))).toBeLessThanOrEqual(5);
    expect(await json.stop()).toBe(0);

    const text = await startCommand(['--port', '0', '--rate-limit', '100/min']);
    expect(text.ctx.out.text).toContain('rate-limit 100/min per token (429), x-ratelimit headers');
    expect(await text.stop()).toBe(0);
  });
});

describe('esign sandbox for people', () => {
  it('shows the base URL, each organisation with its token, templates and merge tags, and a login line', async () => {
    const { ctx, stop } = await startCommand(['--port', '0', '--fail-rate', '0.25', '--seed-random', '9']);
    const text = ctx.out.text;
    const baseUrl = /Base URL\s+(http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(text)?.[1];
    expect(baseUrl).toBeDefined();
    for (const expected of [
      'Acme Corp',
      'Globex Inc',
      defaultToken('Acme Corp'),
      defaultToken('Globex Inc'),
      '01JD7X4ZQ8G1N6RVS0Y2MBKT3E  Offer letter',
      'company, role, start_date, salary',
      '01JD7X6C8PZ5R3V9YQ1TGM4HWB',
      `printf %s ${defaultToken('Acme Corp')} | esign login --with-token --profile sandbox --base-url ${baseUrl}`,
      '/_sandbox/tokens/revoke',
      'fail-rate 0.25 (503); dice seeded with --seed-random 9',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('\u001b['); // no colour when stdout is not a terminal
    expect(await stop()).toBe(0);
  });
});

describe('esign sandbox flags', () => {
  const cases: [string[], RegExp][] = [
    [['--port', '70000'], /^error: --port must be a port number from 0 to 65535/],
    [['--port', 'http'], /^error: --port must be a port number/],
    [['--fail-rate', '1.5'], /^error: --fail-rate must be a number from 0 to 1, like 0\.1 \(got "1\.5"\)/],
    [['--drop-rate=-0.1'], /^error: --drop-rate must be a number from 0 to 1/],
    [
      ['--rate-limit', '0'],
      /^error: --rate-limit must allow from 1 to 1000000 requests per window \(got "0"\)/,
    ],
    [['--rate-limit', '50/d'], /^error: --rate-limit must be n per window, like 50, 50\/s, 100\/min/],
    [['--rate-limit', '50/25h'], /^error: --rate-limit must have a window from 1 s to 24 h/],
    [
      ['--rate-limit-headers', 'github'],
      /^error: Option '--rate-limit-headers <style>' argument 'github' is invalid. Allowed choices are x-ratelimit, ietf, structured, none/,
    ],
    [['--latency', '5s'], /^error: --latency must be a whole number of milliseconds/],
    [['--seed-random', 'abc'], /^error: --seed-random must be a whole number/],
    [['--host', ''], /^error: --host must be an address/],
  ];
  it.each(cases)('%j is a usage error (exit 2) naming the flag', async (args, message) => {
    const result = await runCli(['sandbox', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('lists every bad flag at once', async () => {
    const result = await runCli(['sandbox', '--port', 'x', '--fail-rate', '2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --port must be');
    expect(result.stderr).toContain('  --fail-rate must be');
  });

  it('reports a missing seed file, a corrupt state file and a busy port with exit 2', async () => {
    const missing = await runCli(['sandbox', '--port', '0', '--seed', join(folder, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `Cannot read the seed file ${join(folder, 'nope.json')} (no such file).`,
    );

    const corrupt = join(folder, 'corrupt.json');
    writeFileSync(corrupt, '{"format": "esign-sandbox-state", "vers');
    const state = await runCli(['sandbox', '--port', '0', '--state', corrupt, '--json']);
    expect(state.code).toBe(2);
    expect(state.stdout).toBe('');
    expect(JSON.parse(state.stderr)).toMatchObject({
      error: { code: 'state_file', message: expect.stringContaining(corrupt) },
    });

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const busy = await runCli(['sandbox', '--port', String(port)]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use.`);
      expect(busy.stderr).toContain('--port 0');
    } finally {
      blocker.close();
    }
  });
});
