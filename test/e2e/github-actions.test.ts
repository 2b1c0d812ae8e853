// GitHub Actions mode through the built binary, with the runner's variables pointing at temporary
// files, against the sandbox: step outputs, the mask before the URL, stdout untouched, annotations,
// and the composite action's script end to end.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { assertNoSecret } from '../helpers/context.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, gather, runBin, type SpawnResult } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
  token = tokenOf(sandbox);
});
afterAll(() => sandbox.close());

const CREATE = [
  'envelope',
  'create',
  '--template',
  ACME_OFFER,
  '--set',
  'company=Acme Corp',
  '--set',
  'role=Engineer',
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
];

/** A runner's files for one step, in a fresh folder; GITHUB_OUTPUT already holds an earlier line. */
function runnerFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-gha-'));
  const files = {
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    GITHUB_PATH: join(dir, 'path'),
    RUNNER_TEMP: join(dir, 'runner-temp'),
  };
  writeFileSync(files.GITHUB_OUTPUT, 'earlier=step\n');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '');
  writeFileSync(files.GITHUB_PATH, '');
  mkdirSync(files.RUNNER_TEMP);
  return { dir, files };
}

function actionsEnv(files: Record<string, string>, extra: Record<string, string> = {}) {
  return {
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ESIGN_BASE_URL: sandbox.baseUrl,
    ESIGN_TOKEN: token,
    GITHUB_ACTIONS: 'true',
    ...files,
    ...extra,
  };
}

const outputsFor = (envelope: Record<string, string>) =>
  `earlier=step\nenvelope_id=${envelope.envelope_id}\nsigning_url=${envelope.signing_url}\nstatus=${envelope.status}\nexpires_at=${envelope.expires_at}\n`;

/** The index of the first line holding `url` that is not its mask, or -1. */
function firstUnmaskedLine(text: string, url: string): number {
  return text.split('\n').findIndex((line) => line.includes(url) && line !== `::add-mask::${url}`);
}

describe('envelope create in GitHub Actions', () => {
  it('--json: stdout is exactly the envelope; stderr only the mask; the outputs file exactly the four outputs', async () => {
    const { files } = runnerFiles();
    const result = await runBin([...CREATE, '--json'], { env: actionsEnv(files) });
    assertNoSecret(result, token);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const envelope = JSON.parse(result.stdout);
    expect(Object.keys(envelope)).toEqual([
      'envelope_id',
      'signing_url',
      'status',
      'created_at',
      'expires_at',
    ]);
    expect(result.stderr).toBe(`::add-mask::${envelope.signing_url}\n`);
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe(outputsFor(envelope));
  });

  it('-q: stdout is exactly the URL and a newline; the mask comes first on stderr', async () => {
    const { files } = runnerFiles();
    const result = await runBin([...CREATE, '-q'], { env: actionsEnv(files) });
    expect(result.code).toBe(0);
    const url = result.stdout.slice(0, -1);
    expect(result.stdout).toBe(`${url}\n`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\//);
    expect(result.stderr.split('\n')[0]).toBe(`::add-mask::${url}`);
    expect(firstUnmaskedLine(result.stderr, url)).toBe(-1);
    const lines = readFileSync(files.GITHUB_OUTPUT, 'utf8').split('\n');
    expect(lines[2]).toBe(`signing_url=${url}`);
  });

  it('written to one pipe (2>&1), the mask line comes before the line with the URL', async () => {
    const { files } = runnerFiles();
    const env = actionsEnv(files);
    const result = await new Promise<string>((resolvePromise, reject) => {
      const child = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" "$@" 2>&1`, 'sh', ...CREATE], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      child.on('error', reject);
      child.on('close', () => resolvePromise(text));
    });
    const url = /signing_url=(.*)\n/.exec(readFileSync(files.GITHUB_OUTPUT, 'utf8'))?.[1] as string;
    const lines = result.split('\n');
    expect(lines[0]).toBe(`::add-mask::${url}`);
    expect(lines.slice(1).some((line) => line.includes(url))).toBe(true);
  });

  it('for a person (and with --verbose): the mask is the first line on stderr, before any line with the URL', async () => {
    const { files } = runnerFiles();
    const result = await runBin([...CREATE, '--verbose'], { env: actionsEnv(files) });
    expect(result.code).toBe(0);
    const url = /signing_url=(.*)\n/.exec(readFileSync(files.GITHUB_OUTPUT, 'utf8'))?.[1] as string;
    expect(result.stdout).toContain(`Signing URL  ${url}`);
    const stderrLines = result.stderr.split('\n');
    const mask = stderrLines.indexOf(`::add-mask::${url}`);
    expect(mask).toBeGreaterThanOrEqual(0);
    const unmasked = firstUnmaskedLine(result.stderr, url);
    expect(unmasked === -1 || unmasked > mask).toBe(true);
  });

  it('a failure is an ::error annotation beside the message; under --json the JSON object stays the last line', async () => {
    const { files } = runnerFiles();
    const env = actionsEnv(files, { ESIGN_TOKEN: 'sbx_not_a_real_token_123456' });
    const plain = await runBin(CREATE, { env });
    expect(plain.code).toBe(3);
    expect(plain.stdout).toBe('');
    const [annotation = '', message = '', hint = ''] = plain.stderr.trimEnd().split('\n');
    // The annotation says what the message and the hint say (the hint on its second line).
    expect(message).toMatch(/^error: .*401/);
    expect(hint).toMatch(/^hint: /);
    expect(annotation).toBe(
      `::error title=esign%3A unauthenticated (exit 3)::${message.slice(7)}%0A${hint.slice(6)}`,
    );

    const json = await runBin([...CREATE, '--json'], { env });
    expect(json.code).toBe(3);
    expect(json.stdout).toBe('');
    const lines = json.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^::error title=esign%3A unauthenticated \(exit 3\)::/);
    expect(JSON.parse(lines[1] as string).error).toMatchObject({ code: 'unauthenticated', status: 401 });
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe('earlier=step\n'); // nothing created, no outputs

    const usage = await runBin(['envelope', 'create', '--template', 'x', '--json'], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr.split('\n')[0]).toMatch(/^::error title=esign%3A usage \(exit 2\)::/);
  });

  it('--json: stderr stays one JSON object when the error quotes a ##[ the user typed (the command guard never writes \\x5b into it)', async () => {
    const { files } = runnerFiles();
    for (const template of ['##[warning]x', '#\u00ad#[stop-commands]x']) {
      const result = await runBin(
        ['envelope', 'create', '--template', template, '--name', 'A', '--email', 'a@example.com', '--json'],
        {
          env: actionsEnv(files, { GITHUB_ACTIONS: '' }),
        },
      );
      expect(result.code).toBe(2);
      const last = result.stderr.trimEnd().split('\n').at(-1) ?? '';
      expect(last).not.toContain('##[');
      expect((JSON.parse(last) as { error: { message: string } }).error.message).toContain(`'${template}'`);
    }
  });

  it('--ci-output none and ESIGN_CI=none turn it all off', async () => {
    for (const [args, extra] of [
      [['--ci-output', 'none'], {}],
      [[], { ESIGN_CI: 'none' }],
    ] as const) {
      const { files } = runnerFiles();
      const ok = await runBin([...CREATE, '-q', ...args], { env: actionsEnv(files, extra) });
      expect(ok.code).toBe(0);
      expect(ok.stderr).toBe('');
      expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe('earlier=step\n');
      const failed = await runBin([...CREATE, ...args], {
        env: actionsEnv(files, { ...extra, ESIGN_TOKEN: 'sbx_not_a_real_token_123456' }),
      });
      expect(failed.code).toBe(3);
      expect(failed.stderr).not.toContain('::error');
    }
  });

  it('an outputs file that cannot be written: exit 9, the envelope reported, never created twice', async () => {
    const { dir, files } = runnerFiles();
    const before = sandbox.envelopeCount();
    const result = await runBin([...CREATE, '-q'], {
      env: actionsEnv(files, { GITHUB_OUTPUT: join(dir, 'missing', 'output') }),
    });
    expect(result.code).toBe(9);
    expect(sandbox.envelopeCount() - before).toBe(1);
    const url = result.stdout.trim();
    expect(result.stderr.split('\n')[0]).toBe(`::add-mask::${url}`);
    expect(result.stderr).toContain('Could not write to $GITHUB_OUTPUT');
    expect(result.stderr).toContain(`The envelope was created (${url.split('/').pop()})`);
  });
});

const REPO = resolve(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'scripts', 'action-create.sh');

function runScript(env: Record<string, string>, cwd: string): Promise<SpawnResult> {
  const child = spawn('bash', [SCRIPT], {
    cwd,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return gather(child).done;
}

describe('the composite action (scripts/action-create.sh)', () => {
  it('creates the envelope from its inputs, with a template name from .esign.json, and sets the outputs', async () => {
    const { dir, files } = runnerFiles();
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'deploy'), { recursive: true });
    writeFileSync(
      join(repo, '.esign.json'),
      JSON.stringify({ templates: { 'offer-letter': ACME_OFFER }, defaults: { expires_in_days: 10 } }),
    );
    writeFileSync(
      join(repo, 'deploy', 'offer.json'),
      JSON.stringify({ company: 'Acme Corp', role: 'Tester' }),
    );
    const before = sandbox.envelopeCount();
    const result = await runScript(
      {
        ...actionsEnv(files),
        ESIGN_CI: 'none', // set for the workflow's own esign steps: the action still sets its outputs
        ESIGN_BASE_URL: '',
        INPUT_BASE_URL: sandbox.baseUrl,
        INPUT_TEMPLATE: 'offer-letter',
        INPUT_NAME: 'Grace Hopper',
        INPUT_EMAIL: 'grace@example.com',
        INPUT_DATA: 'offer.json',
        INPUT_SET: 'role=Engineer\r\nstart_date=2027-01-04\n',
        INPUT_PHONE: '',
        INPUT_EXPIRES_IN_DAYS: '',
        INPUT_PROFILE: '',
      },
      join(repo, 'deploy'),
    );
    assertNoSecret(result, token);
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(sandbox.envelopeCount() - before).toBe(1);

    const outputs = readFileSync(files.GITHUB_OUTPUT, 'utf8').split('\n');
    expect(outputs[0]).toBe('earlier=step');
    const value = (name: string) =>
      outputs.find((line) => line.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    const url = value('signing_url');
    expect(value('envelope_id')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(value('status')).toBe('ready');
    // .esign.json's default: 10 days
    expect(Date.parse(value('expires_at')) - Date.now()).toBeGreaterThan(9.9 * 24 * 3600 * 1000);
    expect(Date.parse(value('expires_at')) - Date.now()).toBeLessThan(10 * 24 * 3600 * 1000);
    // The URL reaches the log only as its mask: never on stdout, and masked first on stderr.
    expect(result.stdout).not.toContain(url);
    expect(result.stdout).toContain(`Envelope ${value('envelope_id')} created (ready)`);
    expect(firstUnmaskedLine(result.stderr, url)).toBe(-1);
    expect(result.stderr).toContain(`::add-mask::${url}`);
    // The merge data reached the server: the signing page shows it.
    const page = await (await fetch(url)).text();
    expect(page).toContain('Grace Hopper');
    expect(page).toContain('2027-01-04');

    // esign is on PATH for later steps.
    const binDir = readFileSync(files.GITHUB_PATH, 'utf8').trim();
    expect(binDir).toBe(join(files.RUNNER_TEMP, 'esign-bin'));
    const version = await new Promise<string>((resolvePromise) => {
      const child = spawn(join(binDir, 'esign'), ['--version'], {
        env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      child.on('close', () => resolvePromise(out));
    });
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('builds a checkout that has no dist/ yet with the runtime dependencies and esbuild only', async () => {
    const { dir, files } = runnerFiles();
    // The action's checkout as GitHub puts it on the runner: sources, no dist/, no node_modules.
    const action = join(dir, 'action');
    mkdirSync(action, { recursive: true });
    for (const path of ['bin', 'src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json']) {
      cpSync(join(REPO, path), join(action, path), { recursive: true });
    }
    // npm, as a stand-in that notes how it was called and installs from this machine's node_modules:
    // `ci` everything but esbuild, `install --prefix` esbuild alone. The build itself is the real one.
    const tools = join(dir, 'tools');
    mkdirSync(tools);
    const calls = join(dir, 'npm-calls');
    const modules = JSON.stringify(join(REPO, 'node_modules'));
    writeFileSync(
      join(tools, 'npm'),
      [
        '#!/usr/bin/env bash',
        `echo "$PWD $*" >> ${JSON.stringify(calls)}`,
        'if [[ "$1" == ci ]]; then',
        `  mkdir node_modules && ln -s ${modules}/* node_modules/ && rm node_modules/esbuild node_modules/@esbuild`,
        'elif [[ "$1" == install ]]; then',
        `  mkdir -p "$3/node_modules" && ln -s ${modules}/esbuild ${modules}/@esbuild "$3/node_modules/"`,
        'fi',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const esbuildVersion = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')).packages[
      'node_modules/esbuild'
    ].version;
    const result = await runScript(
      {
        ...actionsEnv(files),
        PATH: `${tools}:${dirname(process.execPath)}:/usr/bin:/bin`,
        GITHUB_ACTION_PATH: action,
        INPUT_TEMPLATE: ACME_OFFER,
        INPUT_NAME: 'Grace Hopper',
        INPUT_EMAIL: 'grace@example.com',
        INPUT_SET: 'company=Acme Corp\nrole=Engineer',
      },
      dir,
    );
    expect(result.stderr).toContain('Installing esign from');
    expect(result.code).toBe(0);
    const buildTools = join(files.RUNNER_TEMP, 'esign-build-tools');
    expect(readFileSync(calls, 'utf8')).toBe(
      `${action} ci --omit=dev --ignore-scripts --no-audit --no-fund\n` +
        `${dir} install --prefix ${buildTools} --no-save --ignore-scripts --no-audit --no-fund esbuild@${esbuildVersion}\n`,
    );
    // Built here, from the copied sources; esbuild was linked in for the build only.
    expect(existsSync(join(action, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(action, 'node_modules', 'esbuild'))).toBe(false);
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toMatch(
      /\nsigning_url=http:\/\/127\.0\.0\.1:\d+\/sign\//,
    );
    expect(readFileSync(join(files.RUNNER_TEMP, 'esign-bin', 'esign'), 'utf8')).toContain(
      join(action, 'bin', 'esign.js'),
    );
    // A real esbuild build of the whole bundle: seconds on a busy machine.
  }, 60_000);

  it("its errors name the action's inputs (`email`), not esign's flags (`--email`), in the log and the annotation", async () => {
    const { dir, files } = runnerFiles();
    const before = sandbox.envelopeCount();
    const result = await runScript(
      {
        ...actionsEnv(files),
        GITHUB_ACTION_PATH: REPO,
        INPUT_TEMPLATE: ACME_OFFER,
        INPUT_NAME: 'Grace Hopper',
        INPUT_EMAIL: 'grace@',
        INPUT_EXPIRES_IN_DAYS: 'soon',
      },
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/--(email|expires-in-days|help)\b/);
    expect(result.stderr).toContain('the `email` input: must be an email address, like ada@example.com.');
    expect(result.stderr).toContain(
      "the `expires-in-days` input: 'soon' is not a positive whole number of days.",
    );
    expect(result.stderr).toContain('hint: See the inputs in the action’s action.yml.');
    expect(result.stderr).toMatch(
      /^::error title=esign%3A usage \(exit 2\)::2 problems with the input.*the `email` input/m,
    );
    expect(sandbox.envelopeCount()).toBe(before);
  });

  it('an empty token names the action’s token input: exit 3, nothing installed or sent', async () => {
    const { dir, files } = runnerFiles();
    const tools = join(dir, 'tools');
    mkdirSync(tools);
    const calls = join(dir, 'npm-calls');
    writeFileSync(join(tools, 'npm'), `#!/usr/bin/env bash\necho "$*" >> ${JSON.stringify(calls)}\n`, {
      mode: 0o755,
    });
    const before = sandbox.envelopeCount();
    const result = await runScript(
      {
        ...actionsEnv(files),
        ESIGN_TOKEN: '',
        PATH: `${tools}:${dirname(process.execPath)}:/usr/bin:/bin`,
        GITHUB_ACTION_PATH: join(dir, 'no-checkout'),
        INPUT_TEMPLATE: ACME_OFFER,
        INPUT_NAME: 'Grace Hopper',
        INPUT_EMAIL: 'grace@example.com',
      },
      dir,
    );
    expect(result.code).toBe(3);
    const [annotation = '', message = '', hint = ''] = result.stderr.trimEnd().split('\n');
    expect(annotation).toMatch(
      /^::error title=esign%3A unauthenticated \(exit 3\)::The action's `token` input is empty/,
    );
    expect(message).toBe("error: The action's `token` input is empty: no API token reached esign.");
    expect(hint).toContain('token: $' + '{{ secrets.ESIGN_TOKEN }}');
    expect(existsSync(calls)).toBe(false);
    expect(sandbox.envelopeCount()).toBe(before);
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe('earlier=step\n');
  });

  it('server text in the error it prints cannot act as a workflow command (a field named ::stop-commands::x)', async () => {
    const server = await startScriptedServer();
    try {
      server.script({
        kind: 'json',
        status: 422,
        body: {
          message: 'Bad ##[stop-commands]x',
          errors: { '::stop-commands::x': ['is not a tag'], '::error::pwn': ['x'] },
        },
      });
      const { dir, files } = runnerFiles();
      const result = await runScript(
        {
          ...actionsEnv(files),
          ESIGN_BASE_URL: '',
          INPUT_BASE_URL: server.baseUrl,
          INPUT_TEMPLATE: ACME_OFFER,
          INPUT_NAME: 'Grace Hopper',
          INPUT_EMAIL: 'grace@example.com',
        },
        dir,
      );
      expect(result.code).toBe(5);
      const lines = result.stderr.trimEnd().split('\n');
      // esign's own annotation is the only command; the error is told as message, details and hint.
      expect(lines.filter((line) => /^\s*::/.test(line))).toEqual([
        expect.stringMatching(/^::error title=esign%3A rejected/),
      ]);
      expect(lines.filter((line) => line.includes('##['))).toEqual([]);
      expect(lines).toContain('  :\\x3astop-commands::x: is not a tag');
      expect(lines).toContain('  :\\x3aerror::pwn: x');
    } finally {
      await server.close();
    }
  });

  it('fails with esign’s exit code and annotation when an input is wrong', async () => {
    const { dir, files } = runnerFiles();
    const result = await runScript(
      {
        ...actionsEnv(files),
        INPUT_TEMPLATE: 'offer-leter',
        INPUT_NAME: 'Grace Hopper',
        INPUT_EMAIL: 'grace@example.com',
      },
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('::error title=esign%3A usage (exit 2)::');
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toBe('earlier=step\n');
    // The log reads as esign's plain errors do: the message and the hint, no JSON object.
    expect(result.stderr).not.toContain('{"error"');
    expect(result.stderr).toMatch(
      /\nerror: the `template` input: must be a ULID or a template name, and no template is named 'offer-leter'/,
    );
    expect(result.stderr).toMatch(/\nhint: .+/);
  });
});
