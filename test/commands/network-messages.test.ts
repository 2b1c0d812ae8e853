// What the API layer says when the API answers with an error: request ids, the API's own text shown
// as data, and hints that point at the real cause (issues 8 and 10).
import { describe, expect, it } from 'vitest';
import { hasControl } from '../../src/text/terminal-text.js';
import { HttpClient } from '../../src/transport/http-client.js';
import { assertNoSecret, runCli, type TestContextOptions } from '../helpers/context.js';
import { CREATE_ARGS as BASE_ARGS, LIVE_TOKEN as TOKEN } from '../helpers/create-command.js';
import { json, ok, useScriptedServer } from '../helpers/scripted-server.js';

const server = useScriptedServer();

async function create(args: string[], options: TestContextOptions = {}) {
  const result = await runCli([...BASE_ARGS, ...args], {
    now: new Date('2026-11-22T10:00:00Z'),
    ...options,
    env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ...options.env },
  });
  assertNoSecret(result, TOKEN);
  return result;
}

describe('request ids', () => {
  it('sends a fresh X-Request-Id with every request', async () => {
    server.script(ok(), ok());
    await create(['-q']);
    await create(['-q']);
    const [first, second] = server.requests.map((request) => request.headers['x-request-id']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(first).not.toBe(second);
  });

  it("shows the server's request id in API error messages, from whichever header it uses", async () => {
    for (const header of ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id']) {
      server.script(json(500, { message: 'Server Error' }, { [header]: `req-${header}` }));
      const { code, stderr } = await create([]);
      expect(code).toBe(7);
      expect(stderr).toContain(`(500, request id req-${header}).`);
    }
  });

  it('falls back to the id esign sent when the server gives none', async () => {
    server.script(json(403, { message: 'Forbidden.' }));
    const { stderr } = await create([]);
    const sent = server.requests[0]?.headers['x-request-id'];
    expect(stderr).toContain(`(403, request id ${sent}).`);
  });

  it('exposes the request id and the rate-limit headers on the response', async () => {
    server.script(
      json(
        429,
        { message: 'Too Many Requests' },
        {
          'X-Request-Id': 'abc123',
          'Retry-After': '7',
          'X-RateLimit-Limit': '100',
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': '1800000000',
          'RateLimit-Limit': '100',
          'RateLimit-Remaining': '0',
          'RateLimit-Reset': '7',
          RateLimit: '"default";r=0;t=7',
          'RateLimit-Policy': '"default";q=100;w=60',
          'X-Unrelated': 'ignored',
        },
      ),
    );
    const http = new HttpClient({ timeoutMs: 5000, env: {}, userAgent: 'test' });
    try {
      const response = await http.postJson(new URL(`${server.baseUrl}/native/envelopes/create`), '{}', {});
      expect(response.requestId).toBe('abc123');
      expect(response.headers).toEqual({
        'content-type': 'application/json',
        'x-request-id': 'abc123',
        'retry-after': '7',
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1800000000',
        'ratelimit-limit': '100',
        'ratelimit-remaining': '0',
        'ratelimit-reset': '7',
        ratelimit: '"default";r=0;t=7',
        'ratelimit-policy': '"default";q=100;w=60',
      });
    } finally {
      await http.close();
    }
  });
});

describe("the API's message", () => {
  it('is quoted once, with no doubled punctuation', async () => {
    server.script(json(403, { message: 'Forbidden.' }, { 'x-request-id': 'r1' }));
    const forbidden = await create([]);
    expect(forbidden.stderr).toContain('error: Forbidden (403, request id r1). The API said: "Forbidden."\n');
    server.script(json(422, { message: 'Bad merge data (salary).' }, { 'x-request-id': 'r2' }));
    const rejected = await create([]);
    expect(rejected.stderr).toContain(
      'error: The API rejected the request (422, request id r2). The API said: "Bad merge data (salary)."\n',
    );
    expect(rejected.stderr).not.toMatch(/\)\.\)|\.\)\./);
  });

  it('never reaches the terminal as control characters: message, error keys and values, request id', async () => {
    server.script(
      json(
        500,
        {
          message: 'Server Error\r\u001b[1A\u001b[2K\u001b]0;pwned\u0007',
          errors: { 'a\u001b[31m': ['b\u009bc'] },
        },
        // Node sends header strings as Latin-1: these two bytes are the UTF-8 form of U+009B (CSI).
        { 'x-request-id': 'id\u00c2\u009b2J' },
      ),
    );
    const { code, stderr } = await create([]);
    expect(code).toBe(7);
    expect(hasControl(stderr.replaceAll('\n', ''))).toBe(false);
    expect(stderr).toContain('Server Error\\r\\x1b[1A\\x1b[2K\\x1b]0;pwned\\x07');
    expect(stderr).toContain('request id id\\x9b2J');
    server.script(json(422, { message: 'invalid', errors: { 'a\u001b[31m': ['b\u009bc'] } }));
    const rejected = await create([]);
    expect(rejected.stderr).toContain('a\\x1b[31m: b\\x9bc');
    expect(hasControl(rejected.stderr.replaceAll('\n', ''))).toBe(false);
  });

  it('under --json, the error stays one valid JSON object, with the request id', async () => {
    server.script(json(500, { message: 'boom\u001b[2J"\\' }, { 'x-request-id': 'req-json-1' }));
    const { stderr } = await create(['--json']);
    const parsed = JSON.parse(stderr);
    expect(parsed.error.message).toContain('boom\\x1b[2J"\\');
    expect(parsed.error.request_id).toBe('req-json-1');
  });

  it('a signing_url holding control characters does not match the spec: exit 7', async () => {
    server.script(ok({ signing_url: 'https://sign.example.com/s/\u001b[2J' }));
    const { code, stdout, stderr } = await create([]);
    expect(code).toBe(7);
    expect(stdout).toBe('');
    expect(stderr).toContain('data.signing_url: must not contain control characters');
  });
});

describe('hints that point at the cause', () => {
  it('a 404 on the create path names the base URL and the /api/v1 prefix, not --template', async () => {
    server.script(
      json(404, {
        message: `Not found: POST /native/envelopes/create. The API's base URL is ${server.url}/api/v1.`,
      }),
    );
    const { code, stderr } = await create([], { env: { ESIGN_BASE_URL: server.url } });
    expect(code).toBe(5);
    expect(stderr).toContain(`hint: The base URL is ${server.url}; it must include the API prefix /api/v1`);
    expect(stderr).toContain(`(the API names ${server.url}/api/v1)`);
    expect(stderr).not.toContain('--template');
  });

  it('a 404 that names the template still points at --template', async () => {
    server.script(json(404, { message: 'Template 01JD7X4ZQ8G1N6RVS0Y2MBKT3E was not found.' }));
    const { stderr } = await create([]);
    expect(stderr).toContain('hint: Check --template');
  });

  it('a 401 with the token from ESIGN_TOKEN says so: a new login would change nothing', async () => {
    server.script(json(401, { message: 'Unauthenticated.' }));
    const { code, stderr } = await create([]);
    expect(code).toBe(3);
    expect(stderr).toContain('The token comes from ESIGN_TOKEN');
    expect(stderr).not.toContain('then run `esign login`');
  });

  it("a 429's hint says when the quota resets and what the limit is", async () => {
    server.script(
      json(
        429,
        { message: 'Too Many Requests' },
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000000' },
      ),
      json(
        429,
        { message: 'Slow down' },
        { ratelimit: '"default";r=0;t=600', 'ratelimit-policy': '"default";q=50;w=60' },
      ),
    );
    const epoch = await create([], { now: new Date(1_800_000_000_000 - 120_000) });
    expect(epoch.code).toBe(5);
    // The reset is past the one-minute wait esign allows, so it does not retry but says when.
    expect(epoch.stderr).toContain(
      'hint: Slow down, or retry later. The quota resets in 120 s. The limit is 100 requests.',
    );
    const structured = await create([]);
    expect(structured.stderr).toContain('The quota resets in 600 s. The limit is 50 requests per 60 s.');
    expect(server.requests).toHaveLength(2);
  });
});
