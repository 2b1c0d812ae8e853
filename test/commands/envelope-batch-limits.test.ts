// The batch against rate-limited APIs, broken pipelines, Ctrl-C, --dry-run and its local files.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RateLimitHeaderStyle } from '../../src/sandbox/faults/rate-limit.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { assertNoSecret, runCli, type TestContextOptions } from '../helpers/context.js';
import { json, ok, type Reply, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN } from '../helpers/spawn.js';
import { hasTmux, openTerminal } from '../helpers/tmux.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_batch_limits_5e2c8a1f7b3d9e40';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();

const folder = () => mkdtempSync(join(tmpdir(), 'esign-batch-limits-'));
const jsonl = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
const person = (n: number) => ({ name: `Person ${n}`, email: `p${n}@example.com` });
const people = (count: number) =>
  jsonl(Array.from({ length: count }, (_, i) => ({ signatory: person(i + 1) })));
const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

function createEverything(delayMs = 0) {
  server.fallback((_request, index): Reply => {
    const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`;
    const reply = ok({ envelope_id: id, signing_url: `https://sign.example.com/s/${id}` });
    return reply.kind === 'json' ? { ...reply, delayMs, headers: { 'x-request-id': `req-${index}` } } : reply;
  });
}

async function batch(args: string[], options: TestContextOptions = {}, baseUrl = server.baseUrl) {
  const result = await runCli(['envelope', 'batch', ...args], {
    ...options,
    env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: baseUrl, ...options.env },
  });
  assertNoSecret(result, TOKEN);
  return result;
}

describe('envelope batch against a rate-limited API', () => {
  const cases: [RateLimitHeaderStyle, number][] = [
    ['x-ratelimit', 1],
    ['x-ratelimit', 16],
    ['ietf', 16],
    ['structured', 16],
    ['none', 16],
    ['x-ratelimit', 64],
    ['none', 64],
  ];
  for (const [style, concurrency] of cases) {
    it(`${style} headers, concurrency ${concurrency}: every record created, none failed`, async () => {
      // The sandbox itself: 20 creates a second per token, windows aligned to the second, 429 with
      // Retry-After (whole seconds) past them, its rate-limit headers in the chosen style.
      const api = await startSandbox({ port: 0, rateLimit: '20/s', rateLimitHeaders: style, latencyMs: 10 });
      try {
        const records = concurrency === 1 ? 30 : 60;
        const dir = folder();
        writeFileSync(join(dir, 'p.jsonl'), people(records));
        const { code, stdout, stderr } = await batch(
          [join(dir, 'p.jsonl'), '--template', TEMPLATE, '--concurrency', String(concurrency)],
          { env: { ESIGN_TOKEN: api.organisations[0]?.token ?? undefined } },
          api.baseUrl,
        );
        const arrivals = api.requests();
        const created = arrivals.filter((arrival) => arrival.status === 200).length;
        const rejected = arrivals.filter((arrival) => arrival.status === 429).length;
        expect(code).toBe(0);
        expect(parseLines(stdout).filter((r) => r.ok)).toHaveLength(records);
        expect(created).toBe(records);
        expect(stderr).not.toContain('MaxListenersExceededWarning');
        // Rejections stay few: with headers at most one a window (at its edge); without, the
        // first burst (one a request in flight: nothing is known yet) and a few a window after.
        const times = arrivals.map((arrival) => arrival.receivedAt);
        const windows = Math.ceil((Math.max(...times) - Math.min(...times)) / 1000) + 1;
        expect(rejected).toBeLessThanOrEqual(style === 'none' ? concurrency + 3 * windows : windows);
        if (rejected > 0) expect(stderr).toMatch(/The API rate-limited \d+ requests? \(429\)/);
      } finally {
        await api.close();
      }
    }, 30_000);
  }

  it('a 429 whose Retry-After is past --max-rate-wait fails the record with a clear message, not a retry', async () => {
    server.fallback(json(429, { message: 'Too Many Requests' }, { 'retry-after': '120' }));
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(1));
    const { code, stdout } = await batch([
      join(dir, 'p.jsonl'),
      '--template',
      TEMPLATE,
      '--max-rate-wait',
      '30s',
      '--max-retries',
      '0',
    ]);
    expect(code).toBe(8);
    const [result] = parseLines(stdout);
    expect(result.error.code).toBe('rate_limited');
    expect(result.error.message).toContain('past --max-rate-wait 30 s');
    expect(server.requests).toHaveLength(1);
  });

  it('429s do not count against --max-retries: every record waits with the others', async () => {
    let served = 0;
    server.fallback((_request, index) => {
      served++;
      return index < 3 ? json(429, { message: 'slow down' }, { 'retry-after': '0' }) : ok();
    });
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(1));
    const { code } = await batch([join(dir, 'p.jsonl'), '--template', TEMPLATE, '--max-retries', '0']);
    expect(code).toBe(0);
    expect(served).toBe(4);
  });

  it('--rate is honoured: the server sees no more than the ceiling', async () => {
    createEverything();
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(12));
    const arrivals: number[] = [];
    server.fallback((_request, index) => {
      arrivals.push(Date.now());
      const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`;
      return ok({ envelope_id: id });
    });
    const { code } = await batch([
      join(dir, 'p.jsonl'),
      '--template',
      TEMPLATE,
      '--rate',
      '20/s',
      '--concurrency',
      '8',
    ]);
    expect(code).toBe(0);
    expect(arrivals).toHaveLength(12);
    // 12 sends at 20/s: the last leaves at least 11 intervals of 50 ms after the first.
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThanOrEqual(500);
  });

  it('refuses a malformed --rate or --max-rate-wait, naming the flag', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(1));
    const rate = await batch([join(dir, 'p.jsonl'), '--template', TEMPLATE, '--rate', 'fast']);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toContain('--rate must be a count per time');
    const wait = await batch([join(dir, 'p.jsonl'), '--template', TEMPLATE, '--max-rate-wait', 'soon']);
    expect(wait.code).toBe(2);
    expect(wait.stderr).toContain('--max-rate-wait must be a duration');
  });
});

describe('envelope batch: --dry-run and duplicates', () => {
  it('counts what would be sent, skipped and left unknown, finds duplicates, sends nothing', async () => {
    createEverything();
    const dir = folder();
    const file = join(dir, 'p.jsonl');
    const output = join(dir, 'results.jsonl');
    writeFileSync(file, people(3));
    expect((await batch([file, '--template', TEMPLATE, '--output', output])).code).toBe(0);
    server.requests.length = 0;
    // Line 4 repeats line 1's person (any case), line 5 repeats line 4; line 6 is new.
    writeFileSync(
      file,
      `${people(3)}${jsonl([
        { signatory: { name: 'Again', email: 'P1@example.com' } },
        { signatory: { name: 'Again', email: 'p1@example.com' } },
        { signatory: person(6) },
      ])}`,
    );
    const dry = await batch([file, '--template', TEMPLATE, '--output', output, '--resume', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(
      'Dry run: 6 records valid; 3 would be sent, 3 skipped (already created), 0 left unknown',
    );
    expect(dry.stderr).toContain('line 4: same template, signatory email and merge data as line 1');
    expect(dry.stderr).toContain('line 5: same template, signatory email and merge data as line 1');
    expect(server.requests).toHaveLength(0);
    expect(parseLines(readFileSync(output, 'utf8'))).toHaveLength(3);
  });

  it('a dry run of invalid records exits 2, counting records and problems', async () => {
    const dir = folder();
    const file = join(dir, 'p.jsonl');
    writeFileSync(file, jsonl([{ signatory: person(1) }, { signatory: { name: '', email: 'nope' }, x: 1 }]));
    const { code, stderr } = await batch([file, '--template', TEMPLATE, '--dry-run']);
    expect(code).toBe(2);
    expect(stderr).toContain('1 of 2 records is invalid (3 problems); nothing would be sent.');
    expect(server.requests).toHaveLength(0);
  });

  it('a real run warns about duplicates; --allow-duplicates quiets it', async () => {
    createEverything();
    const dir = folder();
    const file = join(dir, 'p.jsonl');
    writeFileSync(file, jsonl([{ signatory: person(1) }, { signatory: person(1) }]));
    const warned = await batch([file, '--template', TEMPLATE]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('warning: 1 duplicate record');
    expect(warned.stderr).toContain('  Sending it anyway;');
    const quiet = await batch([file, '--template', TEMPLATE, '--allow-duplicates']);
    expect(quiet.stderr).not.toContain('duplicate');
  });
});

describe('envelope batch: local files', () => {
  it('results file 0600, lines redacted, request_id in each; a symlink to the same --output is the same lock', async () => {
    createEverything(150);
    const dir = folder();
    const file = join(dir, 'p.jsonl');
    writeFileSync(file, people(4));
    const output = join(dir, 'results.jsonl');
    symlinkSync(output, join(dir, 'link.jsonl'));
    const first = batch([file, '--template', TEMPLATE, '--output', output, '--concurrency', '1']);
    // The link resolves once the first run has created the file it points to.
    await waitFor(
      () => existsSync(`${output}.lock`) && existsSync(output),
      'the first run to take the --output lock and create the file',
    );
    const second = await batch([
      file,
      '--template',
      TEMPLATE,
      '--output',
      join(dir, 'link.jsonl'),
      '--resume',
    ]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('Another esign batch');
    expect((await first).code).toBe(0);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    const lines = parseLines(readFileSync(output, 'utf8'));
    expect(
      lines.every((line) => typeof line.request_id === 'string' && line.request_id.startsWith('req-')),
    ).toBe(true);
  });

  it('a link to a results file not written yet is the lock of that file: a run on its real name is refused while the first sends', async () => {
    // The first run's one request is held unanswered until the test lets the run go (Ctrl-C twice);
    // a run that got through would be answered at once.
    server.fallback((_request, index): Reply => (index === 0 ? { kind: 'hang' } : ok()));
    const dir = folder();
    const file = join(dir, 'p.jsonl');
    writeFileSync(file, people(1));
    const output = join(dir, 'results.jsonl');
    symlinkSync('results.jsonl', join(dir, 'link.jsonl')); // relative, and results.jsonl is not there
    const interrupt = new AbortController();
    const second = new AbortController();
    const first = batch([file, '--template', TEMPLATE, '--output', join(dir, 'link.jsonl')], {
      signal: interrupt.signal,
      secondSignal: second.signal,
    });
    await waitFor(
      () =>
        server.requests.length === 1 &&
        (existsSync(`${output}.lock`) || existsSync(join(dir, 'link.jsonl.lock'))),
      'the first run to take its --output lock and send',
    );
    const other = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    interrupt.abort();
    second.abort();
    expect(other.stderr).toContain('Another esign batch');
    expect(other.code).toBe(2);
    expect(server.requests).toHaveLength(1);
    expect((await first).code).toBe(130);
    expect(existsSync(`${output}.lock`)).toBe(false);
  });

  it('a loop of symbolic links as --output is a usage error before anything is sent', async () => {
    const dir = folder();
    const file = join(dir, 'p.jsonl');
    writeFileSync(file, people(1));
    symlinkSync('b.jsonl', join(dir, 'a.jsonl'));
    symlinkSync('a.jsonl', join(dir, 'b.jsonl'));
    const { code, stderr } = await batch([file, '--template', TEMPLATE, '--output', join(dir, 'a.jsonl')]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--output ${join(dir, 'a.jsonl')} is a loop of symbolic links`);
    expect(server.requests).toHaveLength(0);
  });

  it('a token echoed by the API is redacted in the results file', async () => {
    server.fallback(() => ok({ status: 'ready', signing_url: `https://sign.example.com/s/x?t=${TOKEN}` }));
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(1));
    const output = join(dir, 'results.jsonl');
    await batch([join(dir, 'p.jsonl'), '--template', TEMPLATE, '--output', output]);
    expect(readFileSync(output, 'utf8')).not.toContain(TOKEN);
  });
});

/** Runs a shell pipeline with the built binary; resolves with its stderr and the batch's exit code. */
function pipeline(command: string, env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -o pipefail; ${command}; echo "exit=\${PIPESTATUS[0]}" >&2`], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', () => resolve({ code: Number(/exit=(\d+)/.exec(stderr)?.[1]), stderr }));
  });
}

describe('envelope batch: pipelines that break (built binary)', () => {
  const env = (dir: string) => ({
    ESIGN_TOKEN: TOKEN,
    ESIGN_BASE_URL: server.baseUrl,
    ESIGN_CONFIG_DIR: join(dir, 'c'),
  });
  const esign = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} envelope batch`;

  it('| head -1: no new record after the pipe closes, every created envelope reported, exit 9', async () => {
    createEverything(20);
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(400));
    const { code, stderr } = await pipeline(
      `${esign} ${join(dir, 'p.jsonl')} --template ${TEMPLATE} --concurrency 4 | head -1`,
      env(dir),
    );
    expect(code).toBe(9);
    expect(stderr).toContain('Could not write to standard output: the reader closed the pipe (EPIPE)');
    expect(server.requests.length).toBeLessThan(400);
    // Every envelope created except the one head printed is on stderr (or in the file it names).
    const file = /their result lines are in (\S+)/.exec(stderr)?.[1];
    const reported = file ? readFileSync(file, 'utf8') : stderr;
    const ids = server.requests.map((_r, index) => `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`);
    const missing = ids.filter((id) => !reported.includes(id));
    expect(missing.length).toBeLessThanOrEqual(1);
  });

  it('stdout to /dev/full: exit 9, every created envelope reported', async () => {
    createEverything();
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(3));
    const { code, stderr } = await pipeline(
      `${esign} ${join(dir, 'p.jsonl')} --template ${TEMPLATE} > /dev/full`,
      env(dir),
    );
    expect(code).toBe(9);
    expect(stderr).toContain('the disk is full (ENOSPC)');
    for (let index = 0; index < server.requests.length; index++) {
      expect(stderr).toContain(`01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`);
    }
  });

  const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;
  it.skipIf(!canMount)(
    '--output on a full tmpfs: exit 9, unwritten envelopes reported, a resume sends no duplicate',
    async () => {
      createEverything();
      const dir = folder();
      const disk = join(dir, 'disk');
      mkdirSync(disk);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
      try {
        // Records with long merge data: their results fill 64 KiB quickly.
        const filler = 'x'.repeat(900);
        writeFileSync(
          join(dir, 'p.jsonl'),
          jsonl(
            Array.from({ length: 200 }, (_, i) => ({
              signatory: person(i + 1),
              merge_data: { note: filler },
            })),
          ),
        );
        server.fallback((request, index) => {
          const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`;
          const note = JSON.parse(request.body).merge_data.note;
          return ok({ envelope_id: id, signing_url: `https://sign.example.com/s/${id}?n=${note}` });
        });
        const output = join(disk, 'results.jsonl');
        const args = `${join(dir, 'p.jsonl')} --template ${TEMPLATE} --output ${output} --concurrency 2`;
        const first = await pipeline(`${esign} ${args}`, env(dir));
        expect(first.code).toBe(9);
        expect(first.stderr).toContain(`Could not write to --output ${output}`);
        expect(first.stderr).toContain('--resume');
        const sentFirst = server.requests.length;
        expect(sentFirst).toBeLessThan(200);
        // Make room, then resume: nobody gets a second envelope.
        execFileSync('mount', ['-o', 'remount,size=1m', disk]);
        const second = await pipeline(`${esign} ${args} --resume`, env(dir));
        expect([0, 8]).toContain(second.code);
        const emails = server.requests.map((request) => JSON.parse(request.body).signatory.email);
        expect(new Set(emails).size).toBe(emails.length);
        expect(existsSync(`${output}.pending`)).toBe(false);
      } finally {
        spawnSync('umount', [disk]);
      }
    },
    30_000,
  );
});

describe.skipIf(!hasTmux)('envelope batch: Ctrl-C on a terminal (tmux)', () => {
  it('first Ctrl-C says what it waits for; the second still prints the summary and the resume command, exit 130', async () => {
    server.fallback(() => ({ kind: 'hang' }));
    const dir = folder();
    writeFileSync(join(dir, 'p.jsonl'), people(50));
    const output = join(dir, 'results.jsonl');
    const terminal = openTerminal(
      'esign-batch-ctrlc',
      `${process.execPath} ${BIN} envelope batch p.jsonl --template ${TEMPLATE} --output results.jsonl --concurrency 3; echo "exit=$?"`,
      {
        cwd: dir,
        env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ESIGN_CONFIG_DIR: join(dir, 'c') },
      },
    );
    try {
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (server.requests.length >= 1) {
            clearInterval(poll);
            resolve();
          }
        }, 20);
      });
      terminal.press('C-c');
      // The first request goes alone (the limiter's slow start), and this server never answers it.
      await terminal.waitFor(/stopping: waiting for 1 request in flight; Ctrl-C again to abort/);
      terminal.press('C-c');
      const screen = await terminal.waitFor(/exit=\d+/);
      expect(screen).toContain('exit=130');
      expect(screen).toMatch(/Batch: 0 created/);
      expect(screen).toContain('--output results.jsonl --resume');
      expect(screen).toContain('1 request in flight was abandoned');
      expect(existsSync(`${output}.pending`)).toBe(true); // the requests that left are on record
    } finally {
      terminal.close();
    }
  }, 20_000);
});
