import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertNoSecret, createTestContext, runCli, type TestContextOptions } from '../helpers/context.js';
import { json, ok, type Reply, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, bundleHelper } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_batch_7c1e3a5b9d2f4e6a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const OTHER_TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3F';

const server = useScriptedServer();
let dir: string;

function fresh(name: string, content: string): string {
  dir = mkdtempSync(join(tmpdir(), 'esign-batch-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** A server that creates an envelope for every request, with an id derived from the request number. */
function createEverything(delayMs = 0) {
  server.fallback((_request, index): Reply => {
    const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`;
    const reply = ok({ envelope_id: id, signing_url: `https://sign.example.com/s/${id}` });
    return delayMs && reply.kind === 'json' ? { ...reply, delayMs } : reply;
  });
}

async function batch(args: string[], options: TestContextOptions = {}) {
  const result = await runCli(['envelope', 'batch', ...args], {
    ...options,
    env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ...options.env },
  });
  assertNoSecret(result, TOKEN);
  return result;
}

/** Sends `signal` to `child` once the server has received `count` requests; resolves with its exit code. */
async function signalAfterRequests(
  child: ChildProcess,
  count: number,
  signal: NodeJS.Signals,
): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (server.requests.length >= count) {
        clearInterval(poll);
        child.kill(signal);
        resolve();
      }
    }, 5);
  });
  return exited;
}

const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const bodies = () => server.requests.map((request) => JSON.parse(request.body));
const jsonl = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
const person = (n: number) => ({ name: `Person ${n}`, email: `p${n}@example.com` });

describe('envelope batch: happy paths', () => {
  it('JSON Lines: one envelope a record, defaults from flags, the record’s own values win', async () => {
    createEverything();
    const file = fresh(
      'people.jsonl',
      jsonl([
        { signatory: person(1) },
        {
          signatory: person(2),
          template_id: OTHER_TEMPLATE,
          merge_data: { team: 'Core', level: 3 },
          expires_in_days: 7,
        },
        { signatory: { ...person(3), phone: '+44 20 7946 0000' }, merge_data: { company: 'Own' } },
      ]),
    );
    const { code, stdout, stderr } = await batch([
      file,
      '--template',
      TEMPLATE,
      '--set',
      'company=Default',
      '--set',
      'team=Default',
      '--expires-in-days',
      '14',
    ]);
    expect(code).toBe(0);
    const results = parseLines(stdout).sort((a, b) => a.line - b.line);
    expect(results.map((r) => [r.line, r.ok])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(results[0]).toMatchObject({
      status: 'ready',
      envelope_id: expect.stringMatching(/^01JD7X4ZQ8G1N6RVS0Y2M/),
    });
    const byEmail = Object.fromEntries(bodies().map((b) => [b.signatory.email, b]));
    expect(byEmail['p1@example.com']).toEqual({
      template_id: TEMPLATE,
      merge_data: { company: 'Default', team: 'Default' },
      signatory: person(1),
      expires_in_days: 14,
    });
    expect(byEmail['p2@example.com']).toEqual({
      template_id: OTHER_TEMPLATE,
      merge_data: { company: 'Default', team: 'Core', level: '3' },
      signatory: person(2),
      expires_in_days: 7,
    });
    expect(byEmail['p3@example.com'].merge_data).toEqual({ company: 'Own', team: 'Default' });
    expect(byEmail['p3@example.com'].signatory.phone).toBe('+44 20 7946 0000');
    expect(stderr).toMatch(/Batch: 3 created, 0 failed, 0 unknown, 0 skipped of 3 records/);
  });

  it('CSV: quoted commas, quotes and newlines, a BOM and CRLF, merge data exactly as the columns say', async () => {
    createEverything();
    const csv =
      '\ufefftemplate_id,signatory_name,signatory_email,signatory_phone,company,note,expires_in_days\r\n' +
      `,"Lovelace, Ada",ada@example.com,,"Analytical ""Engines""","two\r\nlines",\r\n` +
      '\r\n' +
      `${OTHER_TEMPLATE},Bob,bob@example.com,+1 555 0100,Acme,,30\r\n`;
    const file = fresh('people.csv', csv);
    const output = join(dir, 'results.jsonl');
    const { code, stdout } = await batch([
      file,
      '--template',
      TEMPLATE,
      '--output',
      output,
      '--set',
      'note=default',
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const results = parseLines(readFileSync(output, 'utf8')).sort((a, b) => a.line - b.line);
    expect(results.map((r) => r.line)).toEqual([2, 5]);
    const byEmail = Object.fromEntries(bodies().map((b) => [b.signatory.email, b]));
    expect(byEmail['ada@example.com']).toEqual({
      template_id: TEMPLATE,
      merge_data: { company: 'Analytical "Engines"', note: 'two\nlines' },
      signatory: { name: 'Lovelace, Ada', email: 'ada@example.com' },
    });
    expect(byEmail['bob@example.com']).toEqual({
      template_id: OTHER_TEMPLATE,
      merge_data: { company: 'Acme', note: 'default' },
      signatory: { name: 'Bob', email: 'bob@example.com', phone: '+1 555 0100' },
      expires_in_days: 30,
    });
    expect(existsSync(`${output}.pending`)).toBe(false);
  });

  it('reads standard input with --format, and refuses - without it', async () => {
    createEverything();
    const { code, stdout } = await batch(['-', '--format', 'jsonl', '--template', TEMPLATE], {
      stdin: jsonl([{ signatory: person(1) }, { signatory: person(2) }]),
    });
    expect(code).toBe(0);
    expect(parseLines(stdout)).toHaveLength(2);
    const missing = await batch(['-', '--template', TEMPLATE], { stdin: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--format jsonl or --format csv');
  });

  it('waits for a slow reader of its results instead of piling them up in memory', async () => {
    createEverything();
    const file = fresh('p.jsonl', jsonl(Array.from({ length: 30 }, (_, i) => ({ signatory: person(i) }))));
    const ctx = createTestContext({ env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl } });
    // A pipe whose reader is behind from the first write on, until released.
    let release = () => {};
    const caughtUp = new Promise<void>((resolve) => {
      release = resolve;
    });
    let behind = false;
    const slow = {
      text: '',
      isTTY: false,
      write(chunk: string) {
        this.text += chunk;
        behind = true;
        return false;
      },
      drained: () => (behind ? caughtUp : undefined),
    };
    const running = runCli(['envelope', 'batch', file, '--template', TEMPLATE, '--concurrency', '2'], {
      ...ctx,
      stdout: slow,
    });
    while (slow.text === '') await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(server.requests.length).toBeLessThanOrEqual(4); // those in flight when the reader fell behind
    release();
    expect((await running).code).toBe(0);
    expect(parseLines(slow.text)).toHaveLength(30);
  });

  it('an empty input creates nothing and exits 0', async () => {
    const { code, stderr } = await batch([fresh('empty.jsonl', '\n\n'), '--template', TEMPLATE]);
    expect(code).toBe(0);
    expect(stderr).toContain('0 created, 0 failed, 0 unknown, 0 skipped of 0 records');
    expect(server.requests).toHaveLength(0);
  });
});

describe('envelope batch: validation before the first request', () => {
  it('lists every invalid record with its line number, sends nothing, exit 2', async () => {
    const file = fresh(
      'bad.jsonl',
      [
        JSON.stringify({ signatory: person(1) }),
        '{"signatory": {"name": "A", "email": "not-an-email"}}',
        '',
        '{"signatory": ',
        JSON.stringify({ signatory: person(4), merge_data: { x: null } }),
        JSON.stringify({ signatory: person(5), signatry: {} }),
        JSON.stringify({ signatory: person(6), template_id: 'nope' }),
        '[1, 2]',
      ].join('\n'),
    );
    const { code, stderr, stdout } = await batch([file, '--template', TEMPLATE]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('6 of 7 records are invalid (6 problems); nothing was sent.');
    expect(stderr).toContain('line 2: signatory.email: must be an email address');
    expect(stderr).toContain('line 4: invalid JSON at column 15');
    expect(stderr).toContain("line 5: merge_data: merge field 'x' is null");
    expect(stderr).toContain("line 6: unknown key 'signatry'");
    expect(stderr).toContain('line 7: template_id: must be a ULID');
    expect(stderr).toContain('line 8: expected a JSON object');
    expect(server.requests).toHaveLength(0);
  });

  it('names the CSV column, needs a template from somewhere, and lists only the first 20', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `Person ${i},p${i}@example.com`).join('\n');
    const file = fresh('people.csv', `signatory_name,signatory_email\n${rows}\nOnly name\n`);
    const { code, stderr } = await batch([file]);
    expect(code).toBe(2);
    expect(stderr).toContain('26 of 26 records are invalid');
    expect(stderr).toContain('line 2: template_id: is required (give it in the record or with --template)');
    expect(stderr).toContain('… and 6 more');
    expect(stderr).not.toContain('line 22:');
    const badEmail = fresh('people.csv', 'signatory_name,signatory_email\nAda,nope\n');
    const second = await batch([badEmail, '--template', TEMPLATE]);
    expect(second.stderr).toContain('line 2: signatory_email: must be an email address');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses bad flags with exit 2', async () => {
    const file = fresh('p.jsonl', jsonl([{ signatory: person(1) }]));
    expect((await batch([file, '--template', TEMPLATE, '--concurrency', '65'])).code).toBe(2);
    expect((await batch([file, '--template', TEMPLATE, '--concurrency', '0'])).code).toBe(2);
    expect((await batch([file, '--template', 'bad'])).code).toBe(2);
    expect((await batch([file, '--resume'])).stderr).toContain('--resume needs --output');
    expect((await batch([fresh('p.txt', ''), '--template', TEMPLATE])).stderr).toContain(
      'Cannot tell the format',
    );
    expect(
      (await batch([file, '--template', TEMPLATE, '--output', '/nonexistent/dir/r.jsonl'])).stderr,
    ).toContain(
      'Cannot write --output /nonexistent/dir/r.jsonl: its folder /nonexistent/dir does not exist.',
    );
    expect((await batch([dir, '--format', 'jsonl', '--template', TEMPLATE])).stderr).toContain(
      'it is a folder',
    );
    expect((await batch([join(dir, 'missing.csv'), '--template', TEMPLATE])).stderr).toContain(
      'no such file',
    );
    const output = fresh('results.jsonl', '{"line":1,"ok":true}\n');
    const clobber = await batch([file, '--template', TEMPLATE, '--output', output]);
    expect(clobber.code).toBe(2);
    expect(clobber.stderr).toContain('already holds results');
    expect(server.requests).toHaveLength(0);
  });
});

describe('envelope batch: failures', () => {
  it('honours Retry-After on 429 and 503, then creates', async () => {
    server.script(
      json(429, { message: 'Too Many Requests' }, { 'retry-after': '1' }),
      json(503, { message: 'Unavailable' }, { 'retry-after': '0' }),
    );
    createEverything();
    const started = Date.now();
    const { code, stdout } = await batch([
      fresh('p.jsonl', jsonl([{ signatory: person(1) }])),
      '--template',
      TEMPLATE,
    ]);
    expect(code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950); // the 1 s Retry-After was waited for
    expect(parseLines(stdout)[0].ok).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it('a 422 fails that record and the batch goes on: exit 8', async () => {
    server.fallback((request) =>
      JSON.parse(request.body).signatory.email === 'p2@example.com'
        ? json(422, {
            message: 'The given data was invalid.',
            errors: { 'merge_data.x': ['unknown merge tag'] },
          })
        : ok(),
    );
    const file = fresh('p.jsonl', jsonl([1, 2, 3].map((n) => ({ signatory: person(n) }))));
    const { code, stdout, stderr } = await batch([file, '--template', TEMPLATE]);
    expect(code).toBe(8);
    const results = parseLines(stdout).sort((a, b) => a.line - b.line);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[1].error).toMatchObject({
      code: 'rejected',
      status: 422,
      details: ['merge_data.x: unknown merge tag'],
    });
    expect(stderr).toContain('2 created, 1 failed');
  });

  it('a 401 stops the whole batch at once: exit 3, later records not sent', async () => {
    server.fallback((_request, index) => (index === 2 ? json(401, { message: 'Unauthenticated.' }) : ok()));
    const file = fresh(
      'p.jsonl',
      jsonl(Array.from({ length: 10 }, (_, i) => ({ signatory: person(i + 1) }))),
    );
    const { code, stderr } = await batch([file, '--template', TEMPLATE, '--concurrency', '1']);
    expect(code).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(stderr).toContain('Unauthenticated.');
    expect(stderr).toContain('esign login');
  });

  it('never has more requests in flight than --concurrency', async () => {
    createEverything(40);
    const file = fresh('p.jsonl', jsonl(Array.from({ length: 24 }, (_, i) => ({ signatory: person(i) }))));
    const before = server.maxInFlight;
    const { code } = await batch([file, '--template', TEMPLATE, '--concurrency', '3']);
    expect(code).toBe(0);
    expect(server.requests).toHaveLength(24);
    expect(before).toBeLessThanOrEqual(3);
    expect(server.maxInFlight).toBe(3);
  });
});

describe('envelope batch: resume', () => {
  it('--resume after a partial run creates nothing twice and sends failed records again', async () => {
    const records = Array.from({ length: 6 }, (_, i) => ({ signatory: person(i + 1) }));
    const file = fresh('p.jsonl', jsonl(records));
    const output = join(dir, 'results.jsonl');
    server.fallback((request, index) => {
      if (index === 3) return json(401, { message: 'Unauthenticated.' });
      if (JSON.parse(request.body).signatory.email === 'p2@example.com')
        return json(422, { message: 'The given data was invalid.' });
      return ok();
    });
    const first = await batch([file, '--template', TEMPLATE, '--concurrency', '1', '--output', output]);
    expect(first.code).toBe(3);
    server.requests.length = 0;
    createEverything();
    const second = await batch([
      file,
      '--template',
      TEMPLATE,
      '--concurrency',
      '1',
      '--output',
      output,
      '--resume',
    ]);
    expect(second.code).toBe(0);
    expect(bodies().map((b) => b.signatory.email)).toEqual([
      'p2@example.com',
      'p4@example.com',
      'p5@example.com',
      'p6@example.com',
    ]);
    expect(second.stderr).toContain('4 created, 0 failed, 0 unknown, 2 skipped of 6 records');
    const created = parseLines(readFileSync(output, 'utf8')).filter((r) => r.ok);
    expect(created.map((r) => r.line).sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers after which the envelope may exist are unknown, not failed: a resume does not send them', async () => {
    const file = fresh('p.jsonl', jsonl([1, 2, 3, 4, 5].map((n) => ({ signatory: person(n) }))));
    const output = join(dir, 'results.jsonl');
    const replies: Record<string, Reply> = {
      'p1@example.com': json(500, { message: 'Server Error' }),
      'p2@example.com': json(502, { message: 'Bad Gateway' }),
      'p3@example.com': json(504, { message: 'Gateway Timeout' }),
      'p4@example.com': json(200, { success: true, data: { envelope_id: 'not-a-ulid' } }),
    };
    server.fallback((request) => replies[JSON.parse(request.body).signatory.email] ?? ok());
    const first = await batch([file, '--template', TEMPLATE, '--output', output]);
    expect(first.code).toBe(8);
    expect(first.stderr).toContain('1 created, 0 failed, 4 unknown');
    const unknown = parseLines(readFileSync(output, 'utf8')).filter((r) => !r.ok);
    expect(unknown.map((r) => [r.line, r.error.code, r.error.status]).sort()).toEqual([
      [1, 'outcome_unknown', 500],
      [2, 'outcome_unknown', 502],
      [3, 'outcome_unknown', 504],
      [4, 'outcome_unknown', 200],
    ]);
    expect(unknown[0].error.message).toContain('may have been created');
    server.requests.length = 0;
    createEverything();
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(8);
    expect(server.requests).toHaveLength(0);
  });

  it('an unknown outcome is not re-sent unless --retry-unknown', async () => {
    const file = fresh('p.jsonl', jsonl([1, 2, 3].map((n) => ({ signatory: person(n) }))));
    const output = join(dir, 'results.jsonl');
    server.fallback((request) =>
      JSON.parse(request.body).signatory.email === 'p2@example.com' ? { kind: 'destroy' } : ok(),
    );
    const first = await batch([file, '--template', TEMPLATE, '--output', output]);
    expect(first.code).toBe(8);
    expect(first.stderr).toContain('2 created, 0 failed, 1 unknown');
    const unknown = parseLines(readFileSync(output, 'utf8')).find((r) => r.line === 2);
    expect(unknown.error.code).toBe('outcome_unknown');
    expect(server.requests.filter((r) => r.body.includes('p2@example.com'))).toHaveLength(1);

    server.requests.length = 0;
    createEverything();
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(8);
    expect(server.requests).toHaveLength(0);
    expect(resumed.stderr).toContain('0 created, 0 failed, 1 unknown, 2 skipped');

    const retried = await batch([
      file,
      '--template',
      TEMPLATE,
      '--output',
      output,
      '--resume',
      '--retry-unknown',
    ]);
    expect(retried.code).toBe(0);
    expect(bodies().map((b) => b.signatory.email)).toEqual(['p2@example.com']);
  });

  it('refuses to resume when a created record changed in the input', async () => {
    createEverything();
    const file = fresh('p.jsonl', jsonl([{ signatory: person(1) }]));
    const output = join(dir, 'results.jsonl');
    expect((await batch([file, '--template', TEMPLATE, '--output', output])).code).toBe(0);
    writeFileSync(file, jsonl([{ signatory: person(99) }]));
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('line 1: this record changed since the results were written');
    expect(server.requests).toHaveLength(1);
  });

  it('refuses to resume when records moved to other lines (a settled line has none any more)', async () => {
    createEverything();
    const file = fresh('p.jsonl', jsonl([1, 2, 3].map((n) => ({ signatory: person(n) }))));
    const output = join(dir, 'results.jsonl');
    expect((await batch([file, '--template', TEMPLATE, '--output', output])).code).toBe(0);
    // Someone deletes the first line: person 2 and 3 move up to lines 1 and 2.
    writeFileSync(file, jsonl([2, 3].map((n) => ({ signatory: person(n) }))));
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('line 1: this record changed since the results were written');
    expect(resumed.stderr).toContain(
      'line 3: the earlier run created the record here, and the input no longer has one',
    );
    expect(server.requests).toHaveLength(3);
  });

  it('one run at a time on an --output; a lock left by a dead process is taken over', async () => {
    createEverything(60);
    const file = fresh('p.jsonl', jsonl(Array.from({ length: 8 }, (_, i) => ({ signatory: person(i) }))));
    const output = join(dir, 'results.jsonl');
    const first = batch([file, '--template', TEMPLATE, '--output', output, '--concurrency', '1']);
    await waitFor(() => existsSync(`${output}.lock`), 'the first run to take the --output lock');
    const second = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`Another esign batch (process ${process.pid}) is writing to --output`);
    expect((await first).code).toBe(0);
    expect(server.requests).toHaveLength(8);
    expect(existsSync(`${output}.lock`)).toBe(false);

    createEverything();
    writeFileSync(`${output}.lock`, '2147483646\n'); // no such process
    const other = join(dir, 'other.jsonl');
    writeFileSync(`${other}.lock`, '2147483646\n');
    expect((await batch([file, '--template', TEMPLATE, '--output', other])).code).toBe(0);
    expect(existsSync(`${other}.lock`)).toBe(false);
  });

  it('an unfinished run is never started over: its journal needs --resume, even if --output is gone', async () => {
    createEverything();
    const file = fresh('p.jsonl', jsonl([1, 2, 3].map((n) => ({ signatory: person(n) }))));
    const output = join(dir, 'results.jsonl');
    // What a run killed before its first answer leaves: an empty output and a journal of what left.
    writeFileSync(output, '');
    const { fingerprintOf } = await import('../../src/batch/build-request.js');
    const body = JSON.stringify({ template_id: TEMPLATE, merge_data: {}, signatory: person(1) });
    writeFileSync(
      `${output}.pending`,
      `${JSON.stringify({ boot: 'linux:another-boot' })}\n${JSON.stringify({ line: 1, fingerprint: fingerprintOf(body), offset: 0, reserved: true })}\n`,
    );
    const again = await batch([file, '--template', TEMPLATE, '--output', output]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('An earlier run into --output');
    expect(again.stderr).toContain('--resume');
    expect(server.requests).toHaveLength(0);

    rmSync(output);
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(8);
    expect(resumed.stderr).toContain('2 created, 0 failed, 1 unknown');
    expect(bodies().map((b) => b.signatory.email)).toEqual(['p2@example.com', 'p3@example.com']);
    const line1 = parseLines(readFileSync(output, 'utf8')).find((r) => r.line === 1);
    expect(line1.error.code).toBe('outcome_unknown');
  });

  it('Ctrl-C while the records are being checked sends nothing and exits 130', async () => {
    createEverything();
    const controller = new AbortController();
    controller.abort(new Error('SIGINT'));
    const records = jsonl(Array.from({ length: 50 }, (_, i) => ({ signatory: person(i) })));
    const { code, stderr } = await batch(['-', '--format', 'jsonl', '--template', TEMPLATE], {
      stdin: records,
      signal: controller.signal,
    });
    expect(code).toBe(130);
    expect(stderr).toContain('Interrupted while checking the records; nothing was sent.');
    expect(server.requests).toHaveLength(0);
  });

  it('Ctrl-C stops starting records, lets in-flight ones finish and write, exits 130', async () => {
    createEverything(100);
    const file = fresh('p.jsonl', jsonl(Array.from({ length: 20 }, (_, i) => ({ signatory: person(i) }))));
    const output = join(dir, 'results.jsonl');
    const controller = new AbortController();
    // Ctrl-C once the run is sending.
    void waitFor(() => server.requests.length > 0, 'the first request').then(
      () => controller.abort(new Error('SIGINT')),
      () => undefined, // never sent: the run ends with 0, not 130, and the test says so
    );
    const { code, stderr } = await batch(
      [file, '--template', TEMPLATE, '--output', output, '--concurrency', '2'],
      {
        signal: controller.signal,
      },
    );
    expect(code).toBe(130);
    const written = parseLines(readFileSync(output, 'utf8'));
    expect(written.length).toBe(server.requests.length); // every request that went out has its result
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(20);
    expect(stderr).toContain('--resume');
  });
});

describe('envelope batch: crash safety (SIGKILL)', () => {
  const total = 200;
  const concurrency = 8;

  /** The built binary's environment: the scripted server, its token and a fresh config folder. */
  const binaryEnv = () => ({
    PATH: process.env.PATH ?? '',
    ESIGN_TOKEN: TOKEN,
    ESIGN_BASE_URL: server.baseUrl,
    ESIGN_CONFIG_DIR: join(dir, 'c'),
  });

  /** The arguments of a batch of `file` into `output` at `concurrency`, through the built binary. */
  const batchArgs = (file: string, output: string) => [
    BIN,
    'envelope',
    'batch',
    file,
    '--template',
    TEMPLATE,
    '--output',
    output,
    '--concurrency',
    String(concurrency),
  ];

  /** Runs the built binary over `total` records and kills it with SIGKILL after 60 requests. */
  async function killedRun() {
    createEverything(15);
    const file = fresh('p.jsonl', jsonl(Array.from({ length: total }, (_, i) => ({ signatory: person(i) }))));
    const output = join(dir, 'results.jsonl');
    const args = batchArgs(file, output);
    const env = binaryEnv();
    await signalAfterRequests(spawn(process.execPath, args, { env, stdio: 'ignore' }), 60, 'SIGKILL');
    const sentBeforeKill = server.requests.length;
    const resume = async () => {
      const resumed = spawn(process.execPath, [...args, '--resume'], { env, stdio: 'ignore' });
      return new Promise((resolve) => resumed.on('close', resolve));
    };
    return { output, sentBeforeKill, resume };
  }

  /** Each record's final state in the results, and the check that nobody got two envelopes. */
  function finalStates(output: string) {
    const received = new Map<string, number>();
    for (const body of bodies())
      received.set(body.signatory.email, (received.get(body.signatory.email) ?? 0) + 1);
    expect([...received.values()].every((count) => count === 1)).toBe(true); // nobody got two envelopes
    const final = new Map<number, { line: number; state: string; message?: string }>();
    for (const result of parseLines(readFileSync(output, 'utf8'))) {
      if (final.get(result.line)?.state !== 'created') {
        final.set(
          result.line,
          result.ok
            ? { line: result.line, state: 'created' }
            : { line: result.line, state: result.error.code, message: result.error.message },
        );
      }
    }
    expect(final.size).toBe(total); // every record is accounted for
    const states = [...final.values()];
    expect(states.every(({ state }) => state === 'created' || state === 'outcome_unknown')).toBe(true);
    const created = states.filter(({ state }) => state === 'created').length;
    expect(received.size).toBeGreaterThanOrEqual(created); // every created record reached the server once
    return states.filter(({ state }) => state === 'outcome_unknown');
  }

  it('a run killed mid-way, then resumed, never creates a record twice and accounts for every record', async () => {
    const { output, sentBeforeKill, resume } = await killedRun();
    expect(existsSync(`${output}.pending`)).toBe(true);
    const code = await resume();
    expect(code === 0 || code === 8).toBe(true);
    const unknown = finalStates(output);
    // In the same boot the journal says exactly which requests had left: at most those in flight.
    expect(unknown.length).toBeLessThanOrEqual(concurrency);
    expect(unknown.length).toBeLessThanOrEqual(sentBeforeKill);
    for (const record of unknown) expect(record.message).toContain('after this request was sent');
  });

  it('at every write a kill could follow, the journal leaves no more requests unanswered than were in flight', async () => {
    // A kill lands between two writes; the watch replays each write of the results and the journal
    // and counts what a resume would then call unknown. The results of a turn must be written
    // before the sent notes of the records that took their workers' places.
    createEverything(2);
    const file = fresh('p.jsonl', jsonl(Array.from({ length: 600 }, (_, i) => ({ signatory: person(i) }))));
    const output = join(dir, 'results.jsonl');
    const hook = await bundleHelper('write-watch', dir);
    const report = join(dir, 'watch.json');
    const run = spawn(process.execPath, ['--import', pathToFileURL(hook).href, ...batchArgs(file, output)], {
      env: { ...binaryEnv(), ESIGN_WATCH_OUTPUT: output, ESIGN_WATCH_REPORT: report },
      stdio: 'ignore',
    });
    expect(await new Promise((done) => run.on('close', done))).toBe(0);
    const watch = JSON.parse(readFileSync(report, 'utf8'));
    expect(watch).toMatchObject({ sent: 600, answered: 600 }); // the watch saw every write
    expect(watch.writes).toBeGreaterThan(100);
    expect(watch.worst).toBeLessThanOrEqual(concurrency);
  });

  it('after a restart of the machine, every reserved record without an answer counts as unknown', async () => {
    const { output, resume } = await killedRun();
    // A power cut can lose what was written but not synced; esign tells by the boot the journal names.
    const journal = readFileSync(`${output}.pending`, 'utf8').split('\n');
    expect(JSON.parse(journal[0] as string).boot).toEqual(expect.any(String));
    const answered = new Set(parseLines(readFileSync(output, 'utf8')).map((result) => result.line));
    const reserved = parseLines(journal.slice(1).join('\n'))
      .filter((entry) => entry.reserved)
      .map((entry) => entry.line);
    const expected = reserved.filter((line) => !answered.has(line));
    expect(expected.length).toBeGreaterThan(concurrency); // more than were in flight: the careful side
    writeFileSync(
      `${output}.pending`,
      [JSON.stringify({ boot: 'linux:an-earlier-boot' }), ...journal.slice(1)].join('\n'),
    );
    const code = await resume();
    expect(code === 0 || code === 8).toBe(true);
    const unknown = finalStates(output);
    const byLine = (a: number, b: number) => a - b;
    expect(unknown.map((record) => record.line).sort(byLine)).toEqual(expected.sort(byLine));
    for (const record of unknown) expect(record.message).toContain('machine restarted');
  });

  it('the built binary: SIGINT lets in-flight records finish, prints the summary and exits 130', async () => {
    createEverything(60);
    const file = fresh('p.jsonl', jsonl(Array.from({ length: 100 }, (_, i) => ({ signatory: person(i) }))));
    const output = join(dir, 'results.jsonl');
    const child = spawn(
      process.execPath,
      [BIN, 'envelope', 'batch', file, '--template', TEMPLATE, '--output', output],
      {
        env: binaryEnv(),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    expect(await signalAfterRequests(child, 8, 'SIGINT')).toBe(130);
    expect(stderr).toMatch(/Batch: \d+ created/);
    expect(stderr).toContain('Run the same command with --resume to finish.');
    const written = parseLines(readFileSync(output, 'utf8'));
    expect(written.length).toBe(server.requests.length); // every request that left has its result
    expect(written.length).toBeLessThan(100);
    expect(existsSync(`${output}.pending`)).toBe(false);
  });
});
