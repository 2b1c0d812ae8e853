// A batch's per-record errors carry the message and hint `envelope create` would print: the answer
// is read with the client's context (where the token came from, which base URL was used).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoSecret, runCli, type TestContextOptions } from '../helpers/context.js';
import { json, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_batch_hints_3a9e1c7b5d2f4068';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const ENV_TOKEN_HINT =
  'The token comes from ESIGN_TOKEN, so `esign login` would change nothing: set ESIGN_TOKEN to a valid token (in CI, update the secret), or unset it to use the stored one.';

const server = useScriptedServer();

const people = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({ signatory: { name: `Person ${i + 1}`, email: `p${i + 1}@example.com` } }),
  ).join('\n');
const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

async function run(command: string[], options: TestContextOptions = {}) {
  const result = await runCli(command, options);
  assertNoSecret(result, TOKEN);
  return result;
}

describe('envelope batch: errors and hints as create prints them', () => {
  it('a revoked ESIGN_TOKEN: the hint says to fix ESIGN_TOKEN, not to run `esign login`, as create does', async () => {
    server.fallback(json(401, { message: 'Unauthenticated.' }, { 'x-request-id': 'req-401' }));
    const dir = mkdtempSync(join(tmpdir(), 'esign-batch-hints-'));
    writeFileSync(join(dir, 'p.jsonl'), people(3));
    const output = join(dir, 'results.jsonl');
    const env = { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl };
    const batch = await run(
      [
        'envelope',
        'batch',
        join(dir, 'p.jsonl'),
        '--template',
        TEMPLATE,
        '--concurrency',
        '1',
        '--output',
        output,
      ],
      { env },
    );
    expect(batch.code).toBe(3);
    expect(server.requests).toHaveLength(1); // a 401 stops the batch
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(batch.stderr).toContain(`hint: ${ENV_TOKEN_HINT}`);
    expect(batch.stderr).not.toContain('then run `esign login`');
    const [result] = parseLines(readFileSync(output, 'utf8'));
    expect(result.error).toMatchObject({ code: 'unauthenticated', status: 401, hint: ENV_TOKEN_HINT });

    // create, for the same answer, says the same.
    const create = await run(
      ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'ada@example.com'],
      { env },
    );
    expect(create.code).toBe(3);
    expect(create.stderr).toContain(`hint: ${ENV_TOKEN_HINT}`);
    expect(create.stderr).toContain(`error: ${result.error.message}`);
  });

  it('a base URL without /api/v1: every failed record says how to fix it, once on stderr, as create does', async () => {
    server.fallback(json(404, { message: 'Not Found' }));
    const dir = mkdtempSync(join(tmpdir(), 'esign-batch-hints-'));
    writeFileSync(join(dir, 'p.jsonl'), people(2));
    const env = { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.url };
    const batch = await run(['envelope', 'batch', join(dir, 'p.jsonl'), '--template', TEMPLATE], { env });
    expect(batch.code).toBe(8);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/native/envelopes/create',
      '/native/envelopes/create',
    ]);
    const hint = `The base URL is ${server.url}; it must include the API prefix /api/v1. Fix it with --base-url, ESIGN_BASE_URL or \`esign config set base_url <url>\`.`;
    const results = parseLines(batch.stdout);
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result.error).toMatchObject({ code: 'rejected', status: 404, hint });
      expect(result.error.message).toMatch(
        /^Not found \(404, request id [^)]+\)\. The API said: "Not Found"$/,
      );
    }
    expect(batch.stderr).toContain('Batch: 0 created, 2 failed');
    expect(batch.stderr).toMatch(
      /error: line \d \(and 1 more record\): Not found \(404, request id [^)]+\)\. The API said: "Not Found"\n/,
    );
    expect(batch.stderr).toContain(`\nhint: ${hint}\n`);
    expect(batch.stderr.split('hint: The base URL').length - 1).toBe(1); // once, not once a record

    const create = await run(
      ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'ada@example.com'],
      { env },
    );
    expect(create.code).toBe(5);
    expect(create.stderr).toContain(`hint: ${hint}`);
  });
});

describe('an unknown outcome against a loopback base URL: one piece of advice, in create and batch', () => {
  const advice = () =>
    `The outcome is unknown: the envelope may have been created. Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes; \`esign sandbox\` printed the admin secret) whether it exists before you send it again, or the signatory may get two.`;
  const env = () => ({ ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl });
  const unknownReplies = [
    ['a connection that broke after the request left', { kind: 'destroy' }],
    ['a 500', json(500, { message: 'Server Error' })],
    ['a 200 whose body is an HTML page', { kind: 'text', status: 200, body: '<html>Login</html>' }],
  ] as const;

  it.each(unknownReplies)(
    'create, after %s: the hint names the sandbox’s envelope list',
    async (_what, reply) => {
      server.script(reply);
      const create = await run(
        [
          'envelope',
          'create',
          '--template',
          TEMPLATE,
          '--name',
          'Ada',
          '--email',
          'ada@example.com',
          '--json',
        ],
        { env: env() },
      );
      expect(create.code).not.toBe(0);
      const error = JSON.parse(create.stderr).error as { hint: string };
      expect(error.hint).toBe(advice());
      expect(server.requests).toHaveLength(1);
    },
  );

  it.each(unknownReplies)(
    'batch, after %s: each record’s hint and the closing advice say the same',
    async (_what, reply) => {
      server.script(reply);
      const dir = mkdtempSync(join(tmpdir(), 'esign-batch-unknown-'));
      writeFileSync(join(dir, 'p.jsonl'), people(1));
      const output = join(dir, 'results.jsonl');
      const batch = await run(
        ['envelope', 'batch', join(dir, 'p.jsonl'), '--template', TEMPLATE, '--output', output],
        {
          env: env(),
        },
      );
      expect(batch.code).toBe(8);
      const [result] = parseLines(readFileSync(output, 'utf8'));
      expect(result.error.code).toBe('outcome_unknown');
      expect(result.error.hint).toContain(
        `in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes;`,
      );
      expect(batch.stderr).toContain(
        `1 record has an unknown outcome: the envelope may exist. Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes;`,
      );
      expect(batch.stderr).not.toContain('dashboard');
    },
  );
});

describe('the records an earlier run left unknown, listed by line: bounded for a large batch', () => {
  it('lists the first 20, says how many more, and gives the command that lists every one', async () => {
    server.fallback(json(500, { message: 'Server Error' }));
    const dir = mkdtempSync(join(tmpdir(), 'esign-batch-unknown-many-'));
    writeFileSync(join(dir, 'p.jsonl'), people(25));
    const output = join(dir, 'results.jsonl');
    const env = { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl };
    const args = ['envelope', 'batch', join(dir, 'p.jsonl'), '--template', TEMPLATE, '--output', output];
    const first = await run([...args, '--keep-going'], { env });
    expect(first.code).toBe(8);
    expect(server.requests).toHaveLength(25);

    const resumed = await run([...args, '--resume', '--dry-run'], { env });
    expect(resumed.code).toBe(0);
    expect(server.requests).toHaveLength(25); // a dry run sends nothing
    const lines = Array.from({ length: 20 }, (_, i) => i + 1).join(', ');
    expect(resumed.stderr).toContain(
      `25 records an earlier run left with an unknown outcome are held back: lines ${lines}, and 5 more.\n  Every one: grep '"code":"outcome_unknown"' ${output}\n`,
    );
    expect(resumed.stderr).not.toContain('@example.com');
  });
});
