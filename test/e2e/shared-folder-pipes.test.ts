// A named pipe (FIFO) or a huge sparse file where esign opens a file in a folder others can write,
// through the built binary, planted as an attacker would: by another user (`nobody`) in a
// world-writable sticky folder, and by root. Opening a FIFO waits for ever for its other end (on the
// main thread no signal ends that wait), and reading a sparse lock of 300 MB took 1.6 GB; every such
// file is opened without blocking and refused at the open (src/fs/regular-file.ts): exit 2, the file
// named with what it is and what to do, and nothing sent.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/text/shell.js';
import { useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, runBin } from '../helpers/spawn.js';
import { hasTmux, openTerminal } from '../helpers/tmux.js';

const TOKEN = 'tok_shared_pipes_7b1d3f5a9c';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

/** Root, with a `nobody` to play the other user: what the test needs. */
const asRootWithNobody =
  process.platform === 'linux' &&
  process.geteuid?.() === 0 &&
  spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status === 0;

const server = useScriptedServer();

/** Runs a shell command as `who` (`nobody`, or root itself). */
function as(who: 'nobody' | 'root', script: string): void {
  const result =
    who === 'root'
      ? spawnSync('sh', ['-c', script], { encoding: 'utf8' })
      : spawnSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`as ${who}: ${script}: ${result.stderr}`);
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A world-writable sticky folder, as /tmp is, and the records to send (the user's own). */
function sharedFolder(records = 1) {
  const dir = mkdtempSync('/tmp/esign-pipes-');
  chmodSync(dir, 0o1777);
  made.push(dir);
  const input = join(mkdtempSync(join(tmpdir(), 'esign-input-')), 'people.jsonl');
  const line = `${JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' } })}\n`;
  writeFileSync(input, line.repeat(records));
  return { dir, input, output: join(dir, 'results.jsonl') };
}

const env = () => ({
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ESIGN_BASE_URL: server.baseUrl,
  ESIGN_TOKEN: TOKEN,
});

const batch = (input: string, output: string, ...more: string[]) =>
  runBin(['envelope', 'batch', input, '--template', TEMPLATE, '--output', output, ...more], {
    env: env(),
    timeoutMs: 20_000,
  });

describe.runIf(asRootWithNobody)(
  'a named pipe or a huge file where esign opens one, in a shared folder',
  () => {
    it.each(['nobody', 'root'] as const)(
      'a FIFO planted by %s as <output>.lock: refused at once, exit 2, nothing sent',
      async (who) => {
        const files = sharedFolder();
        as(who, `mkfifo ${shellQuote(`${files.output}.lock`)}`);
        for (const more of [[], ['--resume']]) {
          const result = await batch(files.input, files.output, ...more);
          expect(result.signal, result.stderr).toBeNull(); // not killed by the timeout: it did not hang
          expect(result.code, result.stderr).toBe(2);
          expect(result.stderr).toContain(
            `${files.output}.lock is a named pipe (FIFO), not a regular file: esign does not use it.`,
          );
          expect(result.stderr).toContain('use a folder that only you can write');
        }
        expect(server.requests).toHaveLength(0);
      },
      60_000,
    );

    it('a sparse lock of 300 MB planted by nobody: refused from its size, never read', async () => {
      const files = sharedFolder();
      as(
        'nobody',
        `printf '4242\\n' > ${shellQuote(`${files.output}.lock`)} && truncate -s 300M ${shellQuote(`${files.output}.lock`)}`,
      );
      const result = await batch(files.input, files.output);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${files.output}.lock holds 300 MiB, more than such a file ever holds`);
      expect(server.requests).toHaveLength(0);
    }, 60_000);

    it.runIf(hasTmux)(
      'a FIFO that nobody plants as <output> between the checks and the open: refused at the open, exit 2, nothing sent',
      async () => {
        // Two identical records: at a terminal the batch asks before sending duplicates, after every
        // check of --output and before the results file is opened. The FIFO appears then.
        const files = sharedFolder(2);
        // The test run itself may be in CI; the terminal in front of esign is not (under CI=true
        // esign asks nothing, and the duplicates would be sent without the question).
        const vars = { ...env(), CI: 'false', GITHUB_ACTIONS: '' };
        const term = openTerminal(
          'pipe-output',
          `${shellQuote(process.execPath)} ${shellQuote(BIN)} envelope batch ${shellQuote(files.input)} --template ${TEMPLATE} --output ${shellQuote(files.output)}; echo "EXIT=$?"`,
          { env: vars },
        );
        try {
          await term.waitFor(/Send (the duplicate|all 1 duplicates) anyway\?/, 20_000);
          as('nobody', `mkfifo ${shellQuote(files.output)}`);
          term.typeLine('y');
          const screen = await term.waitFor(/EXIT=\d+/, 20_000);
          expect(screen).toContain('EXIT=2');
          expect(screen.replace(/\s+/g, ' ')).toContain(`${files.output} is a named pipe (FIFO)`);
          expect(server.requests).toHaveLength(0);
        } finally {
          term.close();
        }
      },
      60_000,
    );

    it.each(['nobody', 'root'] as const)(
      'a FIFO planted by %s as config.json in a shared config folder: login and status refuse it at once',
      async (who) => {
        const dir = mkdtempSync('/tmp/esign-pipes-config-');
        chmodSync(dir, 0o755);
        made.push(dir);
        const config = join(dir, 'config');
        mkdirSync(config);
        chmodSync(config, 0o1777);
        as(who, `mkfifo ${shellQuote(join(config, 'config.json'))}`);
        const vars = { ESIGN_CONFIG_DIR: config };
        const login = await runBin(['login', '--with-token', '--profile', 'ci'], {
          env: vars,
          stdin: 'tok_ci_0123456789abcdef',
          timeoutMs: 20_000,
        });
        expect(login.signal, login.stderr).toBeNull();
        expect(login.code, login.stderr).toBe(2);
        expect(login.stderr).toContain(`${join(config, 'config.json')} is a named pipe (FIFO)`);
        const status = await runBin(['status'], { env: vars, timeoutMs: 20_000 });
        expect(status.signal, status.stderr).toBeNull();
        expect(status.code, status.stderr).toBe(2);
        expect(status.stderr).toContain(`${join(config, 'config.json')} is a named pipe (FIFO)`);
      },
      60_000,
    );

    it.each(['sandbox.json', 'sandbox.json.tmp', 'sandbox.json.journal', 'sandbox.json.lock'])(
      'a FIFO planted by nobody as %s beside a sandbox --state: the sandbox refuses to start, exit 2',
      async (name) => {
        const { dir } = sharedFolder();
        as('nobody', `mkfifo ${shellQuote(join(dir, name))}`);
        const state = join(dir, 'sandbox.json');
        const result = await runBin(['sandbox', '--port', '0', '--state', state], {
          env: { ESIGN_CONFIG_DIR: freshConfigDir() },
          timeoutMs: 20_000,
        });
        expect(result.signal, result.stderr).toBeNull(); // not killed by the timeout: it did not hang
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(`${join(dir, name)} is a named pipe (FIFO)`);
      },
      60_000,
    );
  },
);
