// A batch killed (kill -9) while requests were in flight, then resumed: the records it left with an
// unknown outcome are listed by input line (their signatories left out, as the job summary leaves
// them out, or named with --summary-emails), with where to check each (here, a loopback base URL:
// the sandbox's envelope list), through the built binary against a scripted slow server.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type Reply, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, runBin } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'tok_resume_unknown_6c1d9e2a4b7f3058';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const RECORDS = 12;

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const emailOf = (line: number) => `person${line}@example.com`;

/** The lines of the results file whose latest result is an unknown outcome. */
function unknownLines(results: string): number[] {
  const latest = new Map<number, { ok: boolean; error?: { code: string } }>();
  for (const text of readFileSync(results, 'utf8').trim().split('\n')) {
    const result = JSON.parse(text) as { line: number; ok: boolean; error?: { code: string } };
    if (latest.get(result.line)?.ok !== true) latest.set(result.line, result);
  }
  return [...latest]
    .filter(([, result]) => result.error?.code === 'outcome_unknown')
    .map(([line]) => line)
    .sort((a, b) => a - b);
}

describe('--resume after a batch killed in flight', () => {
  it('lists the records left with an unknown outcome by line, and says where to check each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-resume-unknown-'));
    writeFileSync(
      join(dir, 'people.jsonl'),
      `${Array.from({ length: RECORDS }, (_, i) =>
        JSON.stringify({ signatory: { name: `Person ${i + 1}`, email: emailOf(i + 1) } }),
      ).join('\n')}\n`,
    );
    const results = join(dir, 'results.jsonl');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ESIGN_CONFIG_DIR: freshConfigDir(),
      ESIGN_TOKEN: TOKEN,
      ESIGN_BASE_URL: server.baseUrl,
    };
    const args = ['envelope', 'batch', 'people.jsonl', '--template', TEMPLATE, '--output', 'results.jsonl'];

    // A slow server: each create is answered after 400 ms. Killed once one result is stored and
    // more requests have arrived since.
    server.fallback({ ...(ok() as Extract<Reply, { kind: 'json' }>), delayMs: 400 });
    const first = spawn(process.execPath, [BIN, ...args, '--concurrency', '4'], {
      env,
      cwd: dir,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => first.on('exit', resolve));
    await waitFor(
      () =>
        existsSync(results) && readFileSync(results, 'utf8').includes('\n') && server.requests.length >= 3,
      'a stored result and requests in flight',
    );
    first.kill('SIGKILL');
    await exited;

    // The resume: the server answers at once now.
    server.fallback(ok());
    const resumed = await runBin([...args, '--concurrency', '4', '--resume'], { env, cwd: dir });
    expect(resumed.code).toBe(8);
    const unknown = unknownLines(results);
    expect(unknown.length).toBeGreaterThan(0);
    const listed = `${unknown.length === 1 ? 'line' : 'lines'} ${unknown.join(', ')}`;
    expect(resumed.stderr).toContain(
      `${unknown.length} ${unknown.length === 1 ? 'record' : 'records'} an earlier run left with an unknown outcome ${unknown.length === 1 ? 'is' : 'are'} held back: ${listed}.\n`,
    );
    expect(resumed.stderr).toContain(
      '(Their signatories are left out, as in the job summary: the input has them at those lines.)',
    );
    for (const line of unknown) expect(resumed.stderr).not.toContain(emailOf(line));
    expect(resumed.stderr).toContain(
      `Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${server.url}/_sandbox/envelopes;`,
    );

    // With --summary-emails, each is named by its signatory too, as the job summary would.
    const named = await runBin([...args, '--concurrency', '4', '--resume', '--summary-emails'], {
      env,
      cwd: dir,
    });
    expect(named.code).toBe(8);
    const each = unknown.map((line) => `line ${line} (${emailOf(line)})`).join(', ');
    expect(named.stderr).toContain(`held back: ${each}.\n`);
    expect(named.stderr).not.toContain('Their signatories are left out');
  });
});
