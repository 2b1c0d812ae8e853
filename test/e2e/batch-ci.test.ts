// `envelope batch` with issue 11's parts, through the built binary: in GitHub Actions (the runner's
// variables pointing at temporary files) the step outputs, the job summary, the masks before the
// URLs; template names from .esign.json in flags and records; the project file's defaults against
// the flags. Against the sandbox, or a scripted server where concurrency or timing must be seen.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { RATE_EXPECTED } from '../../src/text/units.js';
import { assertNoSecret } from '../helpers/context.js';
import { ok, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, gather, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, GLOBEX_SUPPLIER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
  token = tokenOf(sandbox);
});
afterAll(() => sandbox.close());

/** A repository with .esign.json at its root; the batch runs in a nested folder of it. */
function repository(project: Record<string, unknown>, files: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'esign-batch-ci-'));
  writeFileSync(join(root, '.esign.json'), JSON.stringify(project, null, 2));
  const cwd = join(root, 'hr', 'hires');
  mkdirSync(cwd, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);
  return { root, cwd };
}

/** The runner's files for one step; GITHUB_OUTPUT and the summary already hold an earlier step's text. */
function runnerFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-batch-gha-'));
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(files.GITHUB_OUTPUT, 'earlier=step\n');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '# Earlier step\n');
  return files;
}

const env = (extra: Record<string, string> = {}) => ({
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ESIGN_BASE_URL: sandbox.baseUrl,
  ESIGN_TOKEN: token,
  ...extra,
});

const record = (email: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    merge_data: { company: 'Acme Corp', role: 'Engineer' },
    signatory: { name: 'Ada Lovelace', email },
    ...extra,
  });

const lines = (...records: string[]) => `${records.join('\n')}\n`;

/** The bodies the sandbox received since `from` (its request log, as GET /_sandbox/requests lists it). */
const bodiesSince = (from: number) =>
  sandbox
    .requests()
    .slice(from)
    .map((request) => JSON.parse(request.body) as Record<string, unknown>);

/** Runs the binary with stderr and stdout on one pipe (2>&1): the order a log reader sees. */
function runMerged(args: string[], options: { env: Record<string, string>; cwd: string }): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" "$@" 2>&1`, 'sh', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    child.on('error', reject);
    child.on('close', () => resolvePromise(text));
  });
}

const OFFER = { templates: { 'offer-letter': ACME_OFFER, 'supplier-nda': GLOBEX_SUPPLIER } };

describe('the job summary leaves personal data out', () => {
  it('names failed records by line and error, not email, unless --summary-emails says to', async () => {
    const { cwd } = repository(OFFER, {
      'people.jsonl': lines(
        record('ada@example.com'),
        record('private.person@example.org', { template_id: 'supplier-nda' }),
      ),
    });
    for (const [flags, shown] of [
      [[], false],
      [['--summary-emails'], true],
    ] as const) {
      const files = runnerFiles();
      const result = await runBin(
        ['envelope', 'batch', 'people.jsonl', '--template', 'offer-letter', ...flags],
        { env: env({ GITHUB_ACTIONS: 'true', ...files }), cwd },
      );
      expect(result.code).toBe(8);
      const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
      expect(summary).toMatch(/\n\| 2 \|( private\\\.person@example\\\.org \|)? failed \| Forbidden \\\(403/);
      expect(summary.includes('private\\.person@example\\.org')).toBe(shown);
      expect(summary.includes('`--summary-emails` shows them here')).toBe(!shown);
      // The log, which the job's readers see too, names no email either (the results file has it).
      expect(result.stderr).not.toContain('private.person@example.org');
    }
  });
});

describe("the batch's hints name where the template came from", () => {
  it("a 403 for the records' own template_id says to check it, not --template", async () => {
    const { cwd } = repository(OFFER, {
      'people.jsonl': lines(record('a@example.com', { template_id: 'supplier-nda' })),
    });
    const result = await runBin(['envelope', 'batch', 'people.jsonl'], { env: env(), cwd });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(
      "hint: The template belongs to another organisation than your token's. Check the records' template_id, or log in with that organisation's token.",
    );
    expect(result.stderr).not.toContain('Check --template,');
    const both = await runBin(['envelope', 'batch', 'people.jsonl', '--template', 'offer-letter'], {
      env: env(),
      cwd,
    });
    expect(both.stderr).toContain("Check --template (or a record's own template_id), or log in");
  });
});

describe('an unknown outcome against the sandbox', () => {
  it("is checked in the sandbox's envelope list, not a dashboard it does not have", async () => {
    const { cwd } = repository(OFFER, { 'people.jsonl': lines(record('a@example.com')) });
    const output = join(cwd, 'results.jsonl');
    const queued = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.adminSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ next: ['500'] }),
    });
    expect(queued.status).toBe(200);
    const result = await runBin(
      ['envelope', 'batch', 'people.jsonl', '--template', 'offer-letter', '--output', output],
      { env: env(), cwd },
    );
    expect(result.code).toBe(8);
    const list = `curl -H 'Authorization: Bearer <admin secret>' ${sandbox.url}/_sandbox/envelopes`;
    expect(result.stderr).toContain(
      `Check in the sandbox's envelope list (${list}; \`esign sandbox\` printed the admin secret)`,
    );
    expect(result.stderr).not.toContain('dashboard');
    const stored = JSON.parse(readFileSync(output, 'utf8').trim()) as { error: { hint: string } };
    expect(stored.error.hint).toContain(`Check in the sandbox's envelope list (${list};`);
  });
});

describe('envelope batch in GitHub Actions', () => {
  it('results on stdout: every URL masked before the line that holds it; the outputs and the summary appended', async () => {
    const { cwd } = repository(OFFER, {
      'hires.jsonl': lines(record('a@example.com'), record('b@example.com'), record('c@example.com')),
    });
    const files = runnerFiles();
    const runEnv = env({ GITHUB_ACTIONS: 'true', ...files });

    // stdout alone: exactly the result lines, one JSON object each.
    const result = await runBin(['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'], {
      env: runEnv,
      cwd,
    });
    assertNoSecret(result, token);
    expect(result.code).toBe(0);
    const results = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; ok: boolean; signing_url: string });
    expect(results.map((r) => [r.line, r.ok]).sort()).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    const masks = result.stderr.split('\n').filter((line) => line.startsWith('::add-mask::'));
    expect(masks.sort()).toEqual(results.map((r) => `::add-mask::${r.signing_url}`).sort());
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe(
      'earlier=step\ncreated=3\nfailed=0\nunknown=0\nresults_file=\n',
    );
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary.startsWith('# Earlier step\n### esign envelope batch: ✅ all created\n')).toBe(true);
    expect(summary).toMatch(/\n\| 3 \| 0 \| 0 \| 0 \| 3 \| \d+\.\d s \| [^|]+ \| 0 \| 0\.0 s \|\n/);
    expect(summary).not.toContain('Failed and unknown records');

    // On one pipe, as the runner's log shows it: each mask comes before its URL's first line.
    const merged = (
      await runMerged(['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'], {
        env: env({ GITHUB_ACTIONS: 'true', ...runnerFiles() }),
        cwd,
      })
    ).split('\n');
    const urls = merged
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { signing_url: string }).signing_url);
    expect(urls).toHaveLength(3);
    for (const url of urls) {
      const mask = merged.indexOf(`::add-mask::${url}`);
      const first = merged.findIndex((line) => line.includes(url) && !line.startsWith('::add-mask::'));
      expect(mask).toBeGreaterThanOrEqual(0);
      expect(mask).toBeLessThan(first);
    }
  });

  it('results in --output: results_file in the outputs; the failed record in the summary table; no URL on the log to mask', async () => {
    const { cwd } = repository(OFFER, {
      // Line 2 names Globex's template with Acme's token: the API refuses it.
      'hires.jsonl': lines(
        record('a@example.com'),
        record('grace_hopper@example.com', { template_id: 'supplier-nda' }),
      ),
    });
    const files = runnerFiles();
    const result = await runBin(
      ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter', '-o', 'results.jsonl'],
      { env: env({ GITHUB_ACTIONS: 'true', ...files }), cwd },
    );
    assertNoSecret(result, token);
    expect(result.code).toBe(8); // ExitCode.batchIncomplete
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('::add-mask::');
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe(
      `earlier=step\ncreated=1\nfailed=1\nunknown=0\nresults_file=${join(cwd, 'results.jsonl')}\n`,
    );
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('### esign envelope batch: ⚠️ some records did not end with an envelope');
    expect(summary).toMatch(/\n\| 1 \| 1 \| 0 \| 0 \| 2 \| /);
    // By line and error: a summary is public on a public repository (see the test above).
    expect(summary).toMatch(/\n\| 2 \| failed \| .+ \|\n/);
    expect(summary).not.toContain('grace');
    expect(summary).toContain(`Results: \`${join(cwd, 'results.jsonl')}\``);
  });

  it('a runner file that cannot be written: exit 9 when the batch succeeded, a warning beside exit 8 when it did not', async () => {
    const { cwd } = repository(OFFER, {
      'good.jsonl': lines(record('a@example.com')),
      'mixed.jsonl': lines(record('a@example.com'), record('b@example.com', { template_id: 'supplier-nda' })),
    });
    const files = { ...runnerFiles(), GITHUB_OUTPUT: join(tmpdir(), 'esign-no-such-folder', 'output') };
    const good = await runBin(['envelope', 'batch', 'good.jsonl', '--template', 'offer-letter'], {
      env: env({ GITHUB_ACTIONS: 'true', ...files }),
      cwd,
    });
    expect(good.code).toBe(9);
    expect(good.stdout.trim().split('\n')).toHaveLength(1);
    expect(good.stderr).toContain('$GITHUB_OUTPUT');
    expect(good.stderr).toContain('Do not run it again without --resume');
    const mixed = await runBin(['envelope', 'batch', 'mixed.jsonl', '--template', 'offer-letter'], {
      env: env({ GITHUB_ACTIONS: 'true', ...files }),
      cwd,
    });
    expect(mixed.code).toBe(8);
    expect(mixed.stderr).toMatch(/warning: .*\$GITHUB_OUTPUT/);
    // The summary file could be written, and was.
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toContain('| 1 | 1 | 0 | 0 | 2 |');
  });

  it('off with --ci-output none: no masks, outputs or summary', async () => {
    const { cwd } = repository(OFFER, { 'hires.jsonl': lines(record('a@example.com')) });
    const files = runnerFiles();
    const result = await runBin(
      ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter', '--ci-output', 'none'],
      { env: env({ GITHUB_ACTIONS: 'true', ...files }), cwd },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('::add-mask::');
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe('earlier=step\n');
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toBe('# Earlier step\n');
  });
});

describe('template names of .esign.json in envelope batch', () => {
  it("resolves --template and records' template_id (JSON Lines and CSV), the profile's names over the top-level ones", async () => {
    const { cwd } = repository(
      {
        // Top level points offer-letter at the wrong organisation's template; the default profile's wins.
        templates: { 'offer-letter': GLOBEX_SUPPLIER, other: ACME_OFFER },
        profiles: { default: { templates: { 'offer-letter': ACME_OFFER } } },
      },
      {
        'hires.jsonl': lines(record('a@example.com'), record('b@example.com', { template_id: 'other' })),
        'hires.csv':
          'template_id,signatory_name,signatory_email,company,role\noffer-letter,Ada Lovelace,c@example.com,Acme Corp,Engineer\n',
      },
    );
    const from = sandbox.requests().length;
    const jsonl = await runBin(['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'], {
      env: env(),
      cwd,
    });
    expect(jsonl.stderr).toContain('2 created, 0 failed');
    expect(jsonl.code).toBe(0);
    const csv = await runBin(['envelope', 'batch', 'hires.csv'], { env: env(), cwd });
    expect(csv.code).toBe(0);
    expect(bodiesSince(from).map((body) => body.template_id)).toEqual([ACME_OFFER, ACME_OFFER, ACME_OFFER]);
  });

  it('an unknown name in a record: its line, "did you mean" and the names there are; exit 2, nothing sent', async () => {
    const { root, cwd } = repository(OFFER, {
      'hires.jsonl': lines(record('a@example.com'), record('b@example.com', { template_id: 'ofer-letter' })),
    });
    const from = sandbox.requests().length;
    const result = await runBin(['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'], {
      env: env(),
      cwd,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `line 2: template_id: no template named 'ofer-letter'. Did you mean 'offer-letter'? Names in ${join(root, '.esign.json')}: offer-letter, supplier-nda.`,
    );
    expect(result.stderr).toContain('nothing was sent');
    expect(sandbox.requests().length).toBe(from);
  });

  it('an unknown name in --template: exit 2 before anything is sent, also for --dry-run', async () => {
    const { cwd } = repository(OFFER, { 'hires.jsonl': lines(record('a@example.com')) });
    const from = sandbox.requests().length;
    for (const extra of [[], ['--dry-run']]) {
      const result = await runBin(
        ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-leter', ...extra],
        {
          env: env(),
          cwd,
        },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "--template: no template named 'offer-leter'. Did you mean 'offer-letter'?",
      );
    }
    expect(sandbox.requests().length).toBe(from);
  });
});

describe("the project file's defaults in envelope batch (flag > project file > default)", () => {
  it('expires_in_days: the project file over nothing, the flag over the project file, the record over both', async () => {
    const { cwd } = repository(
      { ...OFFER, defaults: { expires_in_days: 7 } },
      { 'hires.jsonl': lines(record('a@example.com'), record('b@example.com', { expires_in_days: 2 })) },
    );
    const from = sandbox.requests().length;
    const fromProject = await runBin(['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'], {
      env: env(),
      cwd,
    });
    expect(fromProject.code).toBe(0);
    const fromFlag = await runBin(
      ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter', '--expires-in-days', '3'],
      { env: env(), cwd },
    );
    expect(fromFlag.code).toBe(0);
    const byLine = (bodies: Record<string, unknown>[]) =>
      bodies
        .map((body) => [(body.signatory as { email: string }).email, body.expires_in_days])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const bodies = bodiesSince(from);
    expect(byLine(bodies.slice(0, 2))).toEqual([
      ['a@example.com', 7],
      ['b@example.com', 2],
    ]);
    expect(byLine(bodies.slice(2))).toEqual([
      ['a@example.com', 3],
      ['b@example.com', 2],
    ]);
  });

  describe('against a scripted server', () => {
    let server: ScriptedServer;
    afterAll(() => server?.close());

    /** A fresh server that creates every envelope after `delayMs`; maxInFlight shows the concurrency. */
    async function slowServer(delayMs: number) {
      await server?.close();
      server = await startScriptedServer();
      server.fallback((_request, index) => {
        const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`;
        return { ...ok({ envelope_id: id, signing_url: `https://sign.example.com/s/${id}` }), delayMs };
      });
      return server;
    }

    const many = lines(...Array.from({ length: 12 }, (_, i) => record(`p${i}@example.com`)));
    const scriptedEnv = () => ({
      ESIGN_CONFIG_DIR: freshConfigDir(),
      ESIGN_BASE_URL: server.baseUrl,
      ESIGN_TOKEN: 'tok_x_5f1c9a7e3b2d4c6a',
    });

    it('concurrency: 4 by default, the project file over that, the flag over the project file', async () => {
      const plain = repository(OFFER, { 'hires.jsonl': many });
      const set = repository({ ...OFFER, defaults: { concurrency: 2 } }, { 'hires.jsonl': many });
      const cases: [string, string[], number][] = [
        [plain.cwd, [], 4],
        [set.cwd, [], 2],
        [set.cwd, ['--concurrency', '3'], 3],
      ];
      for (const [cwd, extra, expected] of cases) {
        await slowServer(150);
        const result = await runBin(
          ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter', ...extra],
          {
            env: scriptedEnv(),
            cwd,
          },
        );
        expect(result.code).toBe(0);
        expect(server.requests).toHaveLength(12);
        expect(server.maxInFlight, `${extra.join(' ') || 'no flag'} in ${cwd}`).toBe(expected);
      }
    });

    it('rate: the project file holds the second send (1/h); --rate overrides it', async () => {
      const { cwd } = repository(
        { ...OFFER, defaults: { rate: '1/h' } },
        { 'hires.jsonl': lines(record('a@example.com'), record('b@example.com')) },
      );
      await slowServer(0);
      const args = ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'];
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...scriptedEnv() },
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run = gather(child);
      let closed = false;
      const exited = run.done.then(({ code }) => {
        closed = true;
        return code;
      });
      // Once the first result is out (without the project's rate, both records are sent at once).
      while (!run.output.stdout.includes('\n') && !closed) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(server.requests).toHaveLength(1);
      expect(run.output.stderr).toContain('1 created, 0 failed');

      await slowServer(0);
      const fast = await runBin([...args, '--rate', '100/s'], { env: scriptedEnv(), cwd });
      expect(fast.code).toBe(0);
      expect(server.requests).toHaveLength(2);
    });

    it('a rate in the project file the limiter cannot use is a usage error naming the file', async () => {
      const { root, cwd } = repository(
        { ...OFFER, defaults: { rate: '0/s' } },
        { 'hires.jsonl': lines(record('a@example.com')) },
      );
      await slowServer(0);
      const result = await runBin(['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'], {
        env: scriptedEnv(),
        cwd,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${join(root, '.esign.json')}: 'defaults.rate' must be`);
      expect(server.requests).toHaveLength(0);
    });

    it('defaults.rate and --rate refuse the same text in the same words', async () => {
      const { cwd } = repository(
        { ...OFFER, defaults: { rate: '0/s' } },
        { 'hires.jsonl': lines(record('a@example.com')) },
      );
      await slowServer(0);
      const args = ['envelope', 'batch', 'hires.jsonl', '--template', 'offer-letter'];
      const fromFile = await runBin(args, { env: scriptedEnv(), cwd });
      const fromFlag = await runBin([...args, '--rate', '0/s'], { env: scriptedEnv(), cwd });
      expect(fromFlag.code).toBe(2);
      const said = `must be ${RATE_EXPECTED} (got "0/s")`;
      expect(fromFlag.stderr).toContain(`--rate ${said}`);
      expect(fromFile.stderr).toContain(`'defaults.rate' ${said}`);
      expect(server.requests).toHaveLength(0);
    });
  });
});
