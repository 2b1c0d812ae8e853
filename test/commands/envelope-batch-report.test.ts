// What a batch tells at its end and while it runs (issue 21): the failed and unknown records by
// error on stderr with the command that lists them all; a batch whose first answers all fail the
// same way stops sending (--keep-going sends on); a plain progress line off a terminal; the words
// of a first interrupt; and, in GitHub Actions, the annotations, the job summary and the outputs.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { createTestContext, runCli } from '../helpers/context.js';
import { json, ok, type Reply, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, gather } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_batch_report_5c1e9a7b3d2f4860';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const server = useScriptedServer();

/** `count` records; `emailOf(n)` names the signatory of line n. */
function input(count: number, emailOf = (n: number) => `p${n}@example.com`) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-batch-report-'));
  const file = join(dir, 'people.jsonl');
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ signatory: { name: `Person ${i + 1}`, email: emailOf(i + 1) } }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { dir, file, output: join(dir, 'results.jsonl') };
}

const env = () => ({ ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl });
const batch = (file: string, ...extra: string[]) => [
  'envelope',
  'batch',
  file,
  '--template',
  TEMPLATE,
  ...extra,
];
const emailOf = (body: string) => (JSON.parse(body) as { signatory: { email: string } }).signatory.email;

/** The API's message for a wrong template: long, with the useful part at its end. */
const TEMPLATE_MESSAGE = `The merge data does not fit the template ${'(a long explanation of merge fields) '.repeat(5)}— its tags are company, role, start_date.`;

/** Answers by the signatory's email: `bad` 422 (each with its own request id), `forbidden` 403, `lost` a broken connection. */
function answerByEmail(request: { body: string }, index: number): Reply {
  const email = emailOf(request.body);
  if (email.startsWith('bad')) {
    return json(422, { message: TEMPLATE_MESSAGE }, { 'x-request-id': `req-422-${index}` });
  }
  if (email.startsWith('forbidden')) return json(403, { message: 'Forbidden.' });
  if (email.startsWith('lost')) return { kind: 'destroy' };
  return ok();
}

const kindOf = (n: number) => {
  if (n >= 2 && n <= 14) return 'bad'; // 13 records: more than the ten lines listed
  if (n === 16 || n === 17) return 'forbidden';
  if (n === 19) return 'lost';
  return 'p';
};

describe('envelope batch: failed and unknown records told at the end, by error', () => {
  it('groups them by error (not by request id): the first ten lines, the rest counted, the hint once, and the command that lists them all', async () => {
    const { dir, file, output } = input(20, (n) => `${kindOf(n)}${n}@example.com`);
    server.fallback(answerByEmail);
    const result = await runCli(batch(file, '--output', output, '--concurrency', '2'), { env: env() });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('Batch: 4 created, 15 failed, 1 unknown');
    // One error for the 13 refusals, whatever their request ids: its first ten lines, the rest counted.
    expect(result.stderr).toMatch(
      /error: line \d+ \(and 12 more records\): The API rejected the request \(422, request id req-422-\d+\)\. The API said: "The merge data/,
    );
    expect(result.stderr).toContain('\n  lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 3 more\n');
    expect(result.stderr.match(/The API rejected the request/g)).toHaveLength(1);
    // The 403s, once, with their hint once.
    expect(result.stderr).toMatch(/error: line 1[67] \(and 1 more record\): Forbidden \(403/);
    expect(result.stderr).toContain('\n  lines 16, 17\n');
    expect(result.stderr.match(/hint: The template belongs to another organisation/g)).toHaveLength(1);
    // The unknown one as a warning, with what to do.
    expect(result.stderr).toMatch(/warning: line 19: outcome unknown: .*connection/);
    // The command that lists them all, which does, run as printed.
    const listed = /Every failed and unknown record: (.*)\n/.exec(result.stderr)?.[1];
    expect(listed).toBe(`grep '"ok":false' ${output}`);
    const lines = execFileSync('sh', ['-c', listed as string], { cwd: dir })
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { line: number }).line)
      .sort((a, b) => a - b);
    expect(lines).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19]);
  });
});

describe('envelope batch: a batch that fails the same way every time stops', () => {
  const everyCreateRefused = () =>
    server.fallback((_request, index) =>
      json(422, { message: 'The template has no signatory role.' }, { 'x-request-id': `req-${index}` }),
    );

  it('one at a time: exactly 20 requests, exit 8, how many were not sent and how to go on', async () => {
    const { file, output } = input(100);
    everyCreateRefused();
    const result = await runCli(batch(file, '--output', output, '--concurrency', '1'), { env: env() });
    expect(result.code).toBe(8);
    expect(server.requests).toHaveLength(20);
    expect(result.stderr).toContain('Batch: 0 created, 20 failed, 0 unknown, 0 skipped of 100 records');
    expect(result.stderr).toContain(
      'Stopped: the first 20 records the API answered all failed with the same error (above), so the others would too; 80 records were not sent.',
    );
    expect(result.stderr).toMatch(/Fix the cause, then finish with\n {2}esign envelope batch .* --resume\n/);
    expect(result.stderr).toContain('(--keep-going sends every record whatever the answers.)');
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(20);
  });

  it('several at a time: nothing sent past what was in flight when the 20th answer came', async () => {
    const { file, output } = input(100);
    everyCreateRefused();
    const result = await runCli(batch(file, '--output', output, '--concurrency', '4'), { env: env() });
    expect(result.code).toBe(8);
    expect(server.requests.length).toBeGreaterThanOrEqual(20);
    expect(server.requests.length).toBeLessThanOrEqual(20 + 3);
    expect(result.stderr).toContain(`${100 - server.requests.length} records were not sent`);
  });

  it('--keep-going sends every record; the resume command keeps it', async () => {
    const { file } = input(30);
    everyCreateRefused();
    const result = await runCli(batch(file, '--keep-going', '--concurrency', '4'), { env: env() });
    expect(result.code).toBe(8);
    expect(server.requests).toHaveLength(30);
    expect(result.stderr).not.toContain('Stopped:');
    expect(result.stderr).toContain('error: line 1 (and 29 more records)');
  });

  it('does not stop when one of the first answers differs: an envelope created, or another error', async () => {
    const { file } = input(30);
    server.fallback((request, index) =>
      emailOf(request.body) === 'p7@example.com'
        ? ok()
        : json(422, { message: 'The template has no signatory role.' }, { 'x-request-id': `r${index}` }),
    );
    const created = await runCli(batch(file, '--concurrency', '1'), { env: env() });
    expect(created.code).toBe(8);
    expect(server.requests).toHaveLength(30);
    server.reset();
    server.fallback((request) =>
      json(422, { message: emailOf(request.body) === 'p3@example.com' ? 'Other.' : 'Same.' }),
    );
    const other = await runCli(batch(file, '--concurrency', '1'), { env: env() });
    expect(other.code).toBe(8);
    expect(server.requests).toHaveLength(30);
  });
});

describe('envelope batch: progress', () => {
  it('off a terminal: a plain line at least every 10 s of the clock; none on a terminal, or in a short run', async () => {
    const { file } = input(12);
    server.fallback(() => ok());
    // A clock that moves 4 s each time it is read: the run "lasts" about a minute.
    let now = Date.parse('2026-11-24T09:00:00Z');
    const tick = () => {
      now += 4000;
      return new Date(now);
    };
    const slow = createTestContext({ env: env() });
    const clocked = { ...slow, now: tick };
    const plain = await runCli(batch(file, '--concurrency', '1'), clocked);
    expect(plain.code).toBe(0);
    const lines = plain.stderr.split('\n').filter((line) => line.startsWith('progress: '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line).toMatch(/^progress: \d+\/12 done · 0 failed or unknown · \d+(\.\d)?\/s( · \d+ s left)?$/);
    }

    server.reset();
    server.fallback(() => ok());
    const terminal = createTestContext({ env: env(), stderrTTY: true });
    const live = await runCli(batch(file, '--concurrency', '1'), {
      ...terminal,
      now: tick,
    });
    expect(live.code).toBe(0);
    expect(live.stderr).not.toContain('progress: ');

    // The real clock: a run of a moment says nothing but its summary.
    server.reset();
    server.fallback(() => ok());
    const short = await runCli(batch(file, '--concurrency', '1'), { env: env() });
    expect(short.code).toBe(0);
    expect(short.stderr).not.toContain('progress: ');
  });
});

describe('envelope batch: the first interrupt says what it waits for, truthfully', () => {
  it('nothing in flight (a pause for the API): no "waiting for 0 requests"', async () => {
    const { file } = input(3);
    server.script({ ...json(429, { message: 'Slow down.' }, { 'retry-after': '60' }) });
    const interrupt = new AbortController();
    const ctx = createTestContext({ env: env(), signal: interrupt.signal });
    const running = runCli(batch(file, '--concurrency', '1', '--verbose'), ctx);
    await waitFor(() => ctx.err.text.includes('retrying in'), 'the 429 to be answered');
    interrupt.abort(new InterruptedError('Interrupted (SIGINT).', {}, 'SIGINT'));
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/(^|\n)stopping: no request is in flight; no new record is sent\n/);
    // Off a terminal (a CI log), no empty line before it: that one is for the ^C a terminal echoes.
    expect(result.stderr).not.toMatch(/(^|\n)\nstopping/);
    expect(result.stderr).not.toContain('waiting for 0');
  });

  it('SIGTERM (a CI runner cancelling) is named as such, not as Ctrl-C', async () => {
    const { file } = input(3);
    server.script({ kind: 'hang' });
    const interrupt = new AbortController();
    const second = new AbortController();
    const ctx = createTestContext({ env: env(), signal: interrupt.signal, secondSignal: second.signal });
    const running = runCli(batch(file, '--concurrency', '1'), ctx);
    await waitFor(() => server.requests.length === 1, 'the first request');
    interrupt.abort(new InterruptedError('Interrupted (SIGTERM).', {}, 'SIGTERM'));
    await waitFor(() => ctx.err.text.includes('stopping'), 'the stopping line');
    second.abort(new InterruptedError('Interrupted again (SIGTERM).', {}, 'SIGTERM'));
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(
      /(^|\n)stopping \(SIGTERM\): waiting for 1 request in flight; a second SIGTERM or Ctrl-C abandons them\n/,
    );
    expect(result.stderr).not.toMatch(/(^|\n)\nstopping/);
    expect(result.stderr).not.toContain('Ctrl-C again');
  });
});

describe('envelope batch: SIGTERM through the built binary', () => {
  it('the first says it is a SIGTERM and what a second does; the second abandons the request, exit 130', async () => {
    const { file } = input(3);
    server.script({ kind: 'hang' });
    const child = spawn(process.execPath, [BIN, ...batch(file, '--concurrency', '1')], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        ESIGN_CONFIG_DIR: freshConfigDir(),
        ...env(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run = gather(child, 15_000);
    await waitFor(() => server.requests.length === 1, 'the first request');
    child.kill('SIGTERM');
    await waitFor(() => run.output.stderr.includes('stopping'), 'the stopping line');
    child.kill('SIGTERM');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(
      'stopping (SIGTERM): waiting for 1 request in flight; a second SIGTERM or Ctrl-C abandons them',
    );
    expect(result.stderr).not.toMatch(/(^|\n)\nstopping/);
  });
});

describe('envelope batch: small words', () => {
  it('a dry run with one duplicate says "1 duplicate"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-batch-dup-'));
    const same = join(dir, 'same.jsonl');
    const record = JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' } });
    writeFileSync(same, `${record}\n${record}\n`);
    const result = await runCli(batch(same, '--dry-run'), { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('; 1 duplicate. Nothing was sent.');
  });
});

/** The runner's files for one step, each already holding an earlier step's text. */
function runnerFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-batch-report-gha-'));
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(files.GITHUB_OUTPUT, 'earlier=step\n');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '# Earlier step\n');
  return files;
}

describe('envelope batch in GitHub Actions: failures on the job page', () => {
  it('exit 8: an ::error per error and a ::warning for unknown outcomes; the summary groups them, with the whole message and the hint', async () => {
    const { file, output } = input(20, (n) => `${kindOf(n)}${n}@example.com`);
    server.fallback(answerByEmail);
    const files = runnerFiles();
    const result = await runCli(batch(file, '--output', output, '--concurrency', '2'), {
      env: { ...env(), GITHUB_ACTIONS: 'true', ...files },
    });
    expect(result.code).toBe(8);
    const annotations = result.stderr.split('\n').filter((line) => /^::(error|warning) /.test(line));
    expect(annotations).toHaveLength(3);
    expect(annotations[0]).toMatch(
      /^::error title=esign%3A 13 records failed \(rejected%2C 422\)::lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 3 more: The API rejected the request \(422\)\. The API said: "The merge data .*its tags are company, role, start_date\."$/,
    );
    expect(annotations[1]).toMatch(
      /^::error title=esign%3A 2 records failed \(forbidden%2C 403\)::lines 16, 17: Forbidden \(403.*%0AThe template belongs to another organisation/,
    );
    expect(annotations[2]).toMatch(
      /^::warning title=esign%3A 1 record with an unknown outcome .*::line 19: /,
    );

    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('### esign envelope batch: ⚠️ some records did not end with an envelope');
    expect(summary).toContain('#### Errors');
    // The whole API message, to its useful end, and no request id taking its room.
    expect(summary).toContain(
      '- **13 failed** (lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 3 more): The API rejected the request \\(422\\)\\. The API said: "The merge data',
    );
    expect(summary).toContain('its tags are company, role, start\\_date\\."');
    expect(summary).not.toContain('req-422');
    expect(summary).toContain('- **2 failed** (lines 16, 17): Forbidden');
    expect(summary).toContain('  - hint: The template belongs to another organisation');
    expect(summary).toContain('- **1 outcome unknown** (line 19)');
  });

  it('a 401 stops the run: its error annotated and printed once, the errors before it by group', async () => {
    const { file } = input(5);
    server.script(json(422, { message: 'No role.' }), json(401, { message: 'Unauthenticated.' }));
    const files = runnerFiles();
    const result = await runCli(batch(file, '--concurrency', '1'), {
      env: { ...env(), GITHUB_ACTIONS: 'true', ...files },
    });
    expect(result.code).toBe(3);
    const annotations = result.stderr.split('\n').filter((line) => line.startsWith('::error '));
    expect(annotations).toHaveLength(2);
    expect(annotations[0]).toMatch(/^::error title=esign%3A 1 record failed \(rejected%2C 422\)::line 1: /);
    expect(annotations[1]).toMatch(/^::error title=esign%3A unauthenticated \(exit 3\)::/);
    expect(result.stderr.match(/The API refused the token/g)).toHaveLength(2); // its annotation and its error
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      '### esign envelope batch: ⛔ stopped: the API refused the token',
    );
  });

  it('every record failed: the heading says so', async () => {
    const { file } = input(3);
    server.fallback(() => json(422, { message: 'No.' }));
    const files = runnerFiles();
    const result = await runCli(batch(file), { env: { ...env(), GITHUB_ACTIONS: 'true', ...files } });
    expect(result.code).toBe(8);
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      '### esign envelope batch: ❌ every record sent failed',
    );
  });

  it('a stop for the same failure: the heading says so and how many were not sent', async () => {
    const { file, output } = input(30);
    server.fallback(() => json(422, { message: 'No.' }));
    const files = runnerFiles();
    const result = await runCli(batch(file, '--output', output, '--concurrency', '1'), {
      env: { ...env(), GITHUB_ACTIONS: 'true', ...files },
    });
    expect(result.code).toBe(8);
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      '### esign envelope batch: ⛔ stopped: the first 20 answers were all the same error; 10 not sent',
    );
  });

  it('a run refused before sending (results already in --output): exit 2, and the step outputs and summary say nothing was sent', async () => {
    const { file, output } = input(2);
    writeFileSync(output, `${JSON.stringify({ line: 1, ok: true, envelope_id: 'x' })}\n`);
    const files = runnerFiles();
    const result = await runCli(batch(file, '--output', output), {
      env: { ...env(), GITHUB_ACTIONS: 'true', ...files },
    });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe(
      'earlier=step\ncreated=0\nfailed=0\nunknown=0\nresults_file=\n',
    );
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('### esign envelope batch: ⛔ refused; nothing was sent');
    // The message and its hint, Markdown-escaped (a `-` is `\-` there).
    expect(summary).toContain('already holds results');
    expect(summary).toContain('Add \\-\\-resume to continue');
  });

  it('invalid records: exit 2, nothing sent; the step outputs, a summary listing the lines, an annotation naming them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-batch-invalid-'));
    const file = join(dir, 'people.jsonl');
    const good = JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' } });
    const bad = JSON.stringify({ signatory: { name: 'Bob', email: 'not-an-email' } });
    writeFileSync(file, `${good}\n${bad}\n${good.replace('ada@', 'grace@')}\n{"signatory": {}}\n`);
    const files = runnerFiles();
    const result = await runCli(batch(file), { env: { ...env(), GITHUB_ACTIONS: 'true', ...files } });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe(
      'earlier=step\ncreated=0\nfailed=0\nunknown=0\nresults_file=\ninvalid=2\n',
    );
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('### esign envelope batch: ❌ 2 of 4 records are invalid; nothing was sent');
    expect(summary).toMatch(/\n\| 2 \| signatory\\\.email.*\|\n/);
    expect(summary).toMatch(/\n\| 4 \| .*\|\n/);
    const annotation = result.stderr.split('\n').find((line) => line.startsWith('::error '));
    expect(annotation).toMatch(
      /^::error title=esign%3A invalid_input \(exit 2\)::2 of 4 records are invalid/,
    );
    expect(annotation).toMatch(/%0Aline 2: signatory\.email/);
    expect(annotation).toMatch(/%0Aline 4: /);
  });
});
