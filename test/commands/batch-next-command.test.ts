// The command a batch tells the user to run next keeps every flag that decides where and how the
// records are sent, works pasted into a POSIX shell as printed, and the results file says which
// API created its envelopes: a resume against another API is refused before anything is sent.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoSecret, runCli } from '../helpers/context.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_next_3e5a7c9b1d2f4a6c';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const server = useScriptedServer();

/** Three records, and a folder whose name needs quoting in a shell. */
function inputFile(): { dir: string; file: string; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "esign next 'step' "));
  const file = join(dir, 'people.jsonl');
  const people = [1, 2, 3].map((n) => ({ signatory: { name: `Person ${n}`, email: `p${n}@example.com` } }));
  writeFileSync(file, `${people.map((p) => JSON.stringify(p)).join('\n')}\n`);
  return { dir, file, output: join(dir, 'results.jsonl') };
}

/** The words a POSIX shell makes of a printed command line (after its `esign`). */
function shellWords(commandLine: string): string[] {
  expect(commandLine.startsWith('esign ')).toBe(true);
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${commandLine.slice('esign '.length)}`]);
  return out.toString('utf8').split('\0').slice(0, -1);
}

/** The command printed after "run" on its own indented line. */
function printedCommand(stderr: string): string {
  const line = stderr.split('\n').find((text) => text.startsWith('  esign envelope batch '));
  expect(line, stderr).toBeDefined();
  return (line as string).trim();
}

const p2Unknown = () =>
  server.fallback((request) =>
    JSON.parse(request.body).signatory.email === 'p2@example.com' ? { kind: 'destroy' } : ok(),
  );

describe('envelope batch: the command to run next', () => {
  it('keeps every sending flag and, pasted into sh as printed, sends to the same API', async () => {
    const { file, output } = inputFile();
    p2Unknown();
    const flags = [
      file,
      '--template',
      TEMPLATE,
      '--set',
      `company=Ada's "Engines"`,
      '--expires-in-days',
      '5',
      '--base-url',
      server.baseUrl,
      '--rate',
      '6000/30s',
      '--concurrency',
      '2',
      '--max-retries',
      '0',
      '--max-rate-wait',
      '90s',
      '--timeout',
      '10',
      '--allow-duplicates',
      '--output',
      output,
    ];
    const first = await runCli(['envelope', 'batch', ...flags], { env: { ESIGN_TOKEN: TOKEN } });
    assertNoSecret(first, TOKEN);
    expect(first.code).toBe(8);
    const command = printedCommand(first.stderr);
    for (const expected of [
      `--base-url ${server.baseUrl}`,
      '--rate 6000/30s',
      '--concurrency 2',
      '--max-retries 0',
      '--max-rate-wait 90s',
      '--timeout 10',
      '--allow-duplicates',
      '--expires-in-days 5',
      '--resume --retry-unknown',
    ]) {
      expect(command).toContain(expected);
    }
    expect(command).not.toContain(TOKEN);
    const words = shellWords(command);
    expect(words).toContain(`company=Ada's "Engines"`);
    expect(words).toContain(output);

    // Pasted in a shell whose environment names another API: the printed --base-url wins.
    server.requests.length = 0;
    server.fallback(ok());
    const pasted = await runCli(words, {
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: 'http://127.0.0.1:9/api/v1' },
    });
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(server.requests.map((r) => JSON.parse(r.body).signatory.email)).toEqual(['p2@example.com']);
    expect(JSON.parse(server.requests[0]?.body ?? '{}').merge_data).toEqual({ company: `Ada's "Engines"` });
  });

  it('after Ctrl-C, the resume command printed keeps the flags too and finishes the run pasted', async () => {
    const { file, output } = inputFile();
    const interrupt = new AbortController();
    // The first request is answered after Ctrl-C is pressed: the others are never sent.
    server.fallback(() => {
      interrupt.abort();
      return { ...ok(), delayMs: 50 } as ReturnType<typeof ok>;
    });
    const flags = [
      '--template',
      TEMPLATE,
      '--base-url',
      server.baseUrl,
      '--rate',
      '5/s',
      '--max-rate-wait',
      '2m',
    ];
    const first = await runCli(
      ['envelope', 'batch', file, ...flags, '--concurrency', '1', '--output', output],
      {
        env: { ESIGN_TOKEN: TOKEN },
        signal: interrupt.signal,
      },
    );
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('Run the same command with --resume to finish.');
    const command = printedCommand(first.stderr);
    for (const expected of [
      `--base-url ${server.baseUrl}`,
      '--rate 5/s',
      '--max-rate-wait 2m',
      '--concurrency 1',
    ]) {
      expect(command).toContain(expected);
    }
    expect(command.endsWith(' --resume')).toBe(true);
    const sentFirst = server.requests.length;
    server.fallback(ok());
    const pasted = await runCli(shellWords(command), { env: { ESIGN_TOKEN: TOKEN } });
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(server.requests.length - sentFirst).toBe(3 - sentFirst);
  });

  it('names the base URL, profile and timeout that came from the environment, so that it works in another shell', async () => {
    const { file, output } = inputFile();
    p2Unknown();
    const first = await runCli(['envelope', 'batch', file, '--template', TEMPLATE, '--output', output], {
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ESIGN_TIMEOUT: '12', ESIGN_PROFILE: 'ci' },
    });
    expect(first.code).toBe(8);
    const command = printedCommand(first.stderr);
    for (const expected of ['--profile ci', `--base-url ${server.baseUrl}`, '--timeout 12']) {
      expect(command).toContain(expected);
    }
    server.requests.length = 0;
    server.fallback(ok());
    const pasted = await runCli(shellWords(command), { env: { ESIGN_TOKEN: TOKEN } });
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('the results file records the base URL each envelope was created at', async () => {
    const { file, output } = inputFile();
    server.fallback(ok());
    const run = await runCli(['envelope', 'batch', file, '--template', TEMPLATE, '--output', output], {
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
    });
    expect(run.code).toBe(0);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.base_url).toBe(server.baseUrl);
  });

  it.each([
    ['a real run', []],
    ['a dry run', ['--dry-run']],
  ])(
    '--resume against another base URL is refused, naming both, with nothing sent (%s)',
    async (_name, extra) => {
      const { file, output } = inputFile();
      p2Unknown();
      const first = await runCli(['envelope', 'batch', file, '--template', TEMPLATE, '--output', output], {
        env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
      });
      expect(first.code).toBe(8);
      const before = readFileSync(output, 'utf8');
      server.requests.length = 0;
      // The same server under another name: a different API as far as the results file can tell.
      const other = server.baseUrl.replace('127.0.0.1', 'localhost');
      const resumed = await runCli(
        [
          'envelope',
          'batch',
          file,
          '--template',
          TEMPLATE,
          '--output',
          output,
          '--resume',
          '--retry-unknown',
          ...extra,
        ],
        { env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: other } },
      );
      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toContain(`created at ${server.baseUrl}; this run would send to ${other}`);
      expect(resumed.stderr).toContain(`hint: Resume with --base-url ${server.baseUrl}`);
      expect(server.requests).toHaveLength(0);
      expect(readFileSync(output, 'utf8')).toBe(before);
    },
  );

  it('a results file of an earlier version (no base_url) still resumes', async () => {
    const { file, output } = inputFile();
    p2Unknown();
    const env = { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl };
    const args = ['envelope', 'batch', file, '--template', TEMPLATE, '--output', output];
    expect((await runCli(args, { env })).code).toBe(8);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const earlier = lines.map(({ base_url: _dropped, ...rest }) => JSON.stringify(rest));
    writeFileSync(output, `${earlier.join('\n')}\n`);
    server.requests.length = 0;
    server.fallback(ok());
    const resumed = await runCli([...args, '--resume', '--retry-unknown'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests.map((r) => JSON.parse(r.body).signatory.email)).toEqual(['p2@example.com']);
  });
});
