import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateEnvelopeRequest } from '../../src/api/schemas.js';
import { assertNoSecret, createTestContext, runCli, type TestContextOptions } from '../helpers/context.js';
import { json, ok, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_live_5f1c9a7e3b2d4c6a8e0f';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const BASE_ARGS = [
  'envelope',
  'create',
  '--template',
  TEMPLATE,
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
];

const server = useScriptedServer();

function env(extra: Record<string, string | undefined> = {}) {
  return { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ...extra };
}

async function create(args: string[], options: TestContextOptions = {}) {
  const result = await runCli([...BASE_ARGS, ...args], {
    now: new Date('2026-11-22T10:00:00Z'),
    ...options,
    env: env(options.env),
  });
  assertNoSecret(result, TOKEN);
  return result;
}

describe('envelope create: success', () => {
  it('sends exactly the documented request and prints the envelope for a person', async () => {
    server.script(ok());
    const { code, stdout, stderr } = await create([
      '--set',
      'company=Analytical Engines',
      '--phone',
      '+44 20 7946 0000',
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/v1/native/envelopes/create');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('esign/0.0.0-test');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      template_id: TEMPLATE,
      merge_data: { company: 'Analytical Engines' },
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' },
    });
    expect(stdout).toContain('01JD7X4ZQ8G1N6RVS0Y2MBKT3E');
    expect(stdout).toContain('ready');
    expect(stdout).toContain('https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E');
    expect(stdout).toContain('2026-12-22 10:00:00 UTC (in 30 days)');
    expect(stdout).not.toContain('\u001b['); // no colour without a TTY
  });

  it('--json prints exactly the response data as one JSON object', async () => {
    server.script(ok({ extra_field: 'dropped' }));
    const { code, stdout } = await create(['--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      envelope_id: TEMPLATE,
      signing_url: 'https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      status: 'ready',
      created_at: '2026-11-22T10:00:00.000Z',
      expires_at: '2026-12-22T10:00:00.000Z',
    });
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  it('--quiet prints exactly the signing URL and a newline', async () => {
    server.script(ok());
    const { code, stdout } = await create(['-q']);
    expect(code).toBe(0);
    expect(stdout).toBe('https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E\n');
  });

  it('colours the block on a TTY, and not with NO_COLOR', async () => {
    server.script(ok(), ok());
    const coloured = await create([], { stdoutTTY: true, env: { TERM: 'xterm-256color' } });
    expect(coloured.stdout).toContain('\u001b[');
    expect(coloured.stdout).toContain('✓ Envelope created'.slice(2));
    const plain = await create([], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).not.toContain('\u001b[');
    expect(plain.stdout).toContain('in 30 days');
  });

  it('sends --expires-in-days as an integer and leaves it out when not given', async () => {
    server.script(ok(), ok());
    await create(['--expires-in-days', '7']);
    await create([]);
    expect(JSON.parse(server.requests[0]?.body ?? '').expires_in_days).toBe(7);
    expect(JSON.parse(server.requests[1]?.body ?? '')).not.toHaveProperty('expires_in_days');
  });

  it('normalises a lower-case template ULID to upper case', async () => {
    server.script(ok());
    const { code } = await runCli(
      ['envelope', 'create', '--template', TEMPLATE.toLowerCase(), '--name', 'A', '--email', 'a@b.co'],
      {
        env: env(),
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '').template_id).toBe(TEMPLATE);
  });
});

describe('envelope create: merge data', () => {
  it('merges --data files in order, then --set, converting numbers and booleans to strings', async () => {
    const ctx = createTestContext({ env: env(), stdin: '{"team": "from-stdin", "level": 3}' });
    const first = join(ctx.configDir, '..', 'first.json');
    const second = join(ctx.configDir, '..', 'second.json');
    writeFileSync(first, JSON.stringify({ company: 'A', team: 'first', active: true, salary: 1250.5 }));
    writeFileSync(second, JSON.stringify({ company: 'B' }));
    const result = await runCli(
      [...BASE_ARGS, '--data', first, '--data', second, '--data', '-', '--set', 'company=C=D', '--dry-run'],
      ctx,
    );
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    const body = JSON.parse(result.stdout);
    expect(body.merge_data).toEqual({
      company: 'C=D',
      team: 'from-stdin',
      active: 'true',
      salary: '1250.5',
      level: '3',
    });
    expect(CreateEnvelopeRequest.safeParse(body).success).toBe(true);
  });

  it('rejects null, arrays and objects as values, naming the key and the file', async () => {
    const ctx = createTestContext({ env: env() });
    const file = join(ctx.configDir, '..', 'bad.json');
    writeFileSync(file, JSON.stringify({ ok: 'x', gone: null, list: [1], nested: { a: 1 } }));
    const { code, stderr, stdout } = await runCli([...BASE_ARGS, '--data', file], ctx);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--data ${file}: merge field 'gone' is null`);
    expect(stderr).toContain("merge field 'list' is an array");
    expect(stderr).toContain("merge field 'nested' is an object");
    expect(server.requests).toHaveLength(0);
  });

  it('reports invalid JSON with file, line and column', async () => {
    const ctx = createTestContext({ env: env() });
    const file = join(ctx.configDir, '..', 'broken.json');
    writeFileSync(file, '{\n  "a": "x",\n  "b": "y"\n  "c": 1\n}');
    const { code, stderr } = await runCli([...BASE_ARGS, '--data', file], ctx);
    expect(code).toBe(2);
    expect(stderr).toContain(`--data ${file}: invalid JSON at line 4, column 3: expected ',' or '}'`);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects a JSON value that is not an object, and an unreadable file', async () => {
    const { code, stderr } = await create(['--data', '-', '--data', '/nonexistent/merge.json'], {
      stdin: '[1, 2]',
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      '--data - (standard input): expected a JSON object of merge fields, found an array.',
    );
    expect(stderr).toContain('--data /nonexistent/merge.json: cannot read the file (no such file).');
    expect(server.requests).toHaveLength(0);
  });

  it('rejects a bad --set', async () => {
    const { code, stderr } = await create(['--set', 'no-equals-sign', '--set', '=value']);
    expect(code).toBe(2);
    expect(stderr).toContain("--set 'no-equals-sign': expected key=value");
    expect(stderr).toContain("--set '=value': the field name before '=' is empty.");
    expect(server.requests).toHaveLength(0);
  });
});

describe('envelope create: bad input is caught before anything is sent', () => {
  it.each([
    [['envelope', 'create', '--name', 'A', '--email', 'a@b.co'], '--template: is required'],
    [['envelope', 'create', '--template', TEMPLATE, '--email', 'a@b.co'], '--name: is required'],
    [['envelope', 'create', '--template', TEMPLATE, '--name', 'A'], '--email: is required'],
    [
      ['envelope', 'create', '--template', 'not-a-ulid', '--name', 'A', '--email', 'a@b.co'],
      '--template: must be a ULID',
    ],
    [
      ['envelope', 'create', '--template', 'U1JD7X4ZQ8G1N6RVS0Y2MBKT3E', '--name', 'A', '--email', 'a@b.co'],
      'must be a ULID',
    ],
    [
      ['envelope', 'create', '--template', TEMPLATE, '--name', 'A', '--email', 'not-an-email'],
      '--email: must be an email address',
    ],
    [
      ['envelope', 'create', '--template', TEMPLATE, '--name', ' ', '--email', 'a@b.co'],
      '--name: must not be empty',
    ],
    [[...BASE_ARGS, '--expires-in-days', '0'], "--expires-in-days: '0' is not a positive whole number"],
    [[...BASE_ARGS, '--expires-in-days', '2.5'], "--expires-in-days: '2.5' is not a positive whole number"],
    [[...BASE_ARGS, '--phone', 'call me'], '--phone: must be a phone number'],
    [[...BASE_ARGS, '--json', '--quiet'], "'--json' cannot be used with option '-q, --quiet'"],
    [[...BASE_ARGS, '--frobnicate'], "Unknown option '--frobnicate'"],
  ])('%j → exit 2', async (argv, message) => {
    const result = await runCli(argv, { env: env() });
    assertNoSecret(result, TOKEN);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(server.requests).toHaveLength(0);
  });

  it('lists every problem at once', async () => {
    const { code, stderr } = await runCli(['envelope', 'create', '--template', 'x', '--email', 'y'], {
      env: env(),
    });
    expect(code).toBe(2);
    expect(stderr).toContain('3 problems with the input; nothing was sent');
    expect(stderr).toContain('--template: must be a ULID');
    expect(stderr).toContain('--name: is required');
    expect(stderr).toContain('--email: must be an email address');
  });

  it('--dry-run prints the body and needs neither token nor base URL', async () => {
    const { code, stdout } = await runCli([...BASE_ARGS, '--dry-run'], { env: {} });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      template_id: TEMPLATE,
      merge_data: {},
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses plain http:// to a host that is not loopback (exit 2)', async () => {
    const { code, stderr } = await create([], { env: { ESIGN_BASE_URL: 'http://esign.example.com/api/v1' } });
    expect(code).toBe(2);
    expect(stderr).toContain('plain http:// is allowed only for loopback hosts');
  });

  it('says how to set a base URL when there is none (exit 2)', async () => {
    const { code, stderr } = await create([], { env: { ESIGN_BASE_URL: undefined } });
    expect(code).toBe(2);
    expect(stderr).toContain('No API base URL is set.');
    expect(stderr).toContain('esign config set base_url');
  });

  it('says how to log in when there is no token (exit 3)', async () => {
    const { code, stderr } = await create([], { env: { ESIGN_TOKEN: undefined } });
    expect(code).toBe(3);
    expect(stderr).toContain('Not logged in');
    expect(stderr).toContain('esign login');
    expect(server.requests).toHaveLength(0);
  });
});

describe('envelope create: API failures map to the contract', () => {
  it('401 → exit 3 with the API message and how to log in again', async () => {
    server.script(json(401, { message: 'Unauthenticated.' }));
    const { code, stdout, stderr } = await create([]);
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toContain('Unauthenticated.');
    expect(stderr).toContain('esign login');
  });

  it('403 → exit 4, naming the other organisation', async () => {
    server.script(json(403, { message: 'Forbidden.' }));
    const { code, stderr } = await create([]);
    expect(code).toBe(4);
    expect(stderr).toContain('Forbidden.');
    expect(stderr).toContain('another organisation');
  });

  it('422 → exit 5 with each field error', async () => {
    server.script(
      json(422, {
        message: 'The given data was invalid.',
        errors: { 'merge_data.x': ['unknown merge tag'] },
      }),
    );
    const { code, stderr } = await create([]);
    expect(code).toBe(5);
    expect(stderr).toContain('The given data was invalid.');
    expect(stderr).toContain('merge_data.x: unknown merge tag');
  });

  it('404 → exit 5', async () => {
    server.script(json(404, { message: 'Template not found.' }));
    const { code, stderr } = await create([]);
    expect(code).toBe(5);
    expect(stderr).toContain('Template not found.');
  });

  it('--json failures put one JSON error object on stderr and nothing on stdout', async () => {
    server.script(json(403, { message: 'Forbidden.' }));
    const { code, stdout, stderr } = await create(['--json']);
    expect(code).toBe(4);
    expect(stdout).toBe('');
    const parsed = JSON.parse(stderr);
    expect(parsed.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('Forbidden.'),
      status: 403,
    });
  });

  it('--json input errors have status null', async () => {
    const { code, stderr } = await runCli(['envelope', 'create', '--json'], { env: env() });
    expect(code).toBe(2);
    expect(JSON.parse(stderr).error).toMatchObject({ code: 'usage', status: null });
  });

  it('retries 429 and 503 that carry Retry-After, then succeeds', async () => {
    server.script(
      json(429, { message: 'Too Many Requests' }, { 'retry-after': '0' }),
      json(503, { message: 'Down for a moment' }, { 'retry-after': '0' }),
      ok(),
    );
    const { code, stdout, stderr } = await create(['-q']);
    expect(code).toBe(0);
    expect(stdout).toBe('https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E\n');
    expect(stderr).toContain('the API answered 429; retrying');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up on 429 after a bounded number of retries (exit 5)', async () => {
    const limited = json(429, { message: 'Too Many Requests' }, { 'retry-after': '0' });
    server.script(limited, limited, limited, limited, limited);
    const { code, stderr } = await create([]);
    expect(code).toBe(5);
    expect(stderr).toContain('Rate limited');
    expect(server.requests).toHaveLength(4);
    server.script(); // the fifth stays unused
    server.requests.length = 0;
    server.script(ok());
    await create([]);
  });

  it('a Retry-After of 0 still waits the 1 s floor between sends: never a tight loop of 429s', async () => {
    const limited = json(429, { message: 'Too Many Requests' }, { 'retry-after': '0' });
    server.script(limited, limited, ok());
    const { code } = await create(['-q']);
    expect(code).toBe(0);
    const at = server.requests.map((request) => request.at);
    expect(at).toHaveLength(3);
    // A lower bound only: a loaded machine can make the gaps longer, never shorter.
    expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(950);
    expect((at[2] as number) - (at[1] as number)).toBeGreaterThanOrEqual(950);
  });

  it('does not retry a 429 or 503 without Retry-After: a create is not idempotent', async () => {
    server.script(json(503, { message: 'Unavailable' }));
    const unavailable = await create([]);
    expect(unavailable.code).toBe(7);
    expect(server.requests).toHaveLength(1);
    server.script(json(429, { message: 'Too Many Requests' }));
    const limited = await create([]);
    expect(limited.code).toBe(5);
    expect(server.requests).toHaveLength(2);
  });

  it('does not wait for a Retry-After beyond a minute, and says when to try again', async () => {
    server.script(json(429, { message: 'Slow down' }, { 'retry-after': '3600' }));
    const { code, stderr } = await create([]);
    expect(code).toBe(5);
    expect(stderr).toContain('Try again in 3600 s');
    expect(server.requests).toHaveLength(1);
  });

  it('500 → exit 7, not retried, and the user is told the envelope may exist', async () => {
    server.script(json(500, { message: 'Server Error' }));
    const { code, stderr } = await create([]);
    expect(code).toBe(7);
    expect(stderr).toContain('Server Error');
    expect(stderr).toContain(
      `hint: The outcome is unknown: the envelope may have been created. Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes; \`esign sandbox\` printed the admin secret) whether it exists before you send it again, or the signatory may get two.`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a success whose body is not the envelope (empty, or cut at 4 MiB) is an unknown outcome, as in a batch: exit 7, never "is the base URL right"', async () => {
    server.script({ kind: 'text', status: 200, body: '' });
    const empty = await create(['--json']);
    expect(empty.code).toBe(7);
    const error = JSON.parse(empty.stderr).error as { code: string; message: string; hint: string };
    expect(error.code).toBe('outcome_unknown');
    expect(error.message).toMatch(
      /^The API answered that it succeeded, but not with the envelope: its answer was empty \(200, request id [^)]+\)\. The envelope may have been created\.$/,
    );
    expect(error.hint).toBe(
      `The outcome is unknown: the envelope may have been created. Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes; \`esign sandbox\` printed the admin secret) whether it exists before you send it again, or the signatory may get two.`,
    );
    server.script({
      kind: 'text',
      status: 200,
      body: `{"success":true,"data":"${'x'.repeat(4 * 1024 * 1024)}"}`,
    });
    const cut = await create([]);
    expect(cut.code).toBe(7);
    expect(cut.stderr).toContain('its answer was larger than 4 MiB, the most esign reads');
    expect(cut.stderr).not.toContain('not JSON');
    expect(cut.stderr).not.toContain('base URL');
    expect(server.requests).toHaveLength(2);
  });

  it('http://localhost is the loopback esign resolves itself; http://localhost. (an absolute name, for DNS) is refused before sending', async () => {
    const port = new URL(server.baseUrl).port;
    server.script(ok());
    const local = await create(['--base-url', `http://LocalHost:${port}/api/v1`, '-q']);
    expect(local.code, local.stderr).toBe(0);
    const absolute = await create(['--base-url', `http://localhost.:${port}/api/v1`]);
    expect(absolute.code).toBe(2);
    expect(absolute.stderr).toContain('only for loopback');
    expect(server.requests).toHaveLength(1);
  });

  it('an HTML page or a body off the spec → exit 7', async () => {
    server.script({ kind: 'text', status: 200, body: '<html><body>Login</body></html>' });
    const html = await create([]);
    expect(html.code).toBe(7);
    expect(html.stderr).toContain('an HTML page');
    server.script(ok({ status: 'archived', envelope_id: 'nope' }));
    const offSpec = await create([]);
    expect(offSpec.code).toBe(7);
    expect(offSpec.stderr).toContain('does not match the API spec');
    expect(offSpec.stderr).toContain('data.status: must be one of');
    expect(offSpec.stderr).toContain('data.envelope_id: must be a ULID');
  });

  it('a connection that breaks after sending → exit 6, outcome unknown, never re-sent', async () => {
    server.script({ kind: 'destroy' });
    const { code, stderr } = await create([]);
    expect(code).toBe(6);
    expect(stderr).toContain('after the request was sent');
    expect(stderr).toContain(
      `hint: The outcome is unknown: the envelope may have been created. Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes;`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('a reply slower than --timeout → exit 6', async () => {
    server.script({ kind: 'hang' });
    const { code, stderr } = await create(['--timeout', '0.3']);
    expect(code).toBe(6);
    expect(stderr).toContain('did not answer in time');
    expect(server.requests).toHaveLength(1);
  });

  it('a refused connection → exit 6, nothing sent', async () => {
    const { code, stderr } = await create([], { env: { ESIGN_BASE_URL: 'http://127.0.0.1:9/api/v1' } });
    expect(code).toBe(6);
    expect(stderr).toContain('was refused. Nothing was sent.');
  });

  it('--verbose traces the request, status, timing and setting sources, never the token', async () => {
    server.script(ok());
    const { code, stderr } = await create(['--verbose']);
    expect(code).toBe(0);
    expect(stderr).toContain(`> POST ${server.baseUrl}/native/envelopes/create`);
    expect(stderr).toMatch(/< 200 in \d+ ms/);
    expect(stderr).toContain('base URL: ');
    expect(stderr).toContain('token: from environment variable ESIGN_TOKEN');
    expect(stderr).toContain('Bearer [redacted]');
  });

  it('an error stack appears only with --verbose', async () => {
    server.script(json(500, { message: 'boom' }), json(500, { message: 'boom' }));
    const quiet = await create([]);
    expect(quiet.stderr).not.toContain('    at ');
    const verbose = await create(['--verbose']);
    expect(verbose.stderr).toContain('    at ');
  });
});
