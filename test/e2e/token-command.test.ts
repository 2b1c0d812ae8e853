// The token from where the user keeps it, through the built binary against the sandbox: a token
// command (`esign login --token-command`, ESIGN_TOKEN_COMMAND) runs when a command needs the token
// and once more after a 401, its first line is the token, never stored or shown; a failing, empty
// or slow command is an error that names it and never its output; `status` names it without
// running it. And the token's age: recorded by login, shown by status, a reminder after 90 days.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { shellQuote } from '../../src/text/shell.js';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { admin, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
  token = tokenOf(sandbox);
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await admin(sandbox, 'DELETE', 'requests');
});

/** The Authorization headers of the creates the sandbox received. */
async function sentTokens(): Promise<string[]> {
  const seen = (await admin(sandbox, 'GET', 'requests')).json as {
    requests: { path: string; status: number }[];
  };
  return seen.requests.filter((r) => r.path.endsWith('/envelopes/create')).map((r) => String(r.status));
}

/** A shell script in a folder of its own; each run appends a line to `runs` beside it. */
function script(body: string): { path: string; runs: () => number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'esign-token-cmd-'));
  const path = join(dir, 'token.sh');
  writeFileSync(path, `#!/bin/sh\necho run >> ${shellQuote(join(dir, 'runs'))}\n${body}\n`);
  chmodSync(path, 0o755);
  const runs = () =>
    existsSync(join(dir, 'runs')) ? readFileSync(join(dir, 'runs'), 'utf8').split('\n').length - 1 : 0;
  return { path, runs, dir };
}

function env(extra: Record<string, string> = {}) {
  return {
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ESIGN_BASE_URL: sandbox.baseUrl,
    GITHUB_ACTIONS: '',
    CI: '',
    ...extra,
  };
}

describe('a token command', () => {
  it('login stores the command, not a token; a create runs it each time and sends the first line it prints', async () => {
    const helper = script(`printf '%s\\n%s\\n' ${shellQuote(token)} 'second line ignored'`);
    const e = env();
    const login = await runBin(['login', '--token-command', helper.path], { env: e });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`Token command stored for profile 'default'`);
    expect(helper.runs()).toBe(0);
    const config = readFileSync(join(e.ESIGN_CONFIG_DIR, 'config.json'), 'utf8');
    expect(JSON.parse(config).profiles.default).toEqual({ token_command: helper.path });
    for (let i = 1; i <= 2; i++) {
      const created = await runBin([...CREATE_ARGS, '--json'], { env: e });
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout).status).toBe('ready');
      expect(helper.runs()).toBe(i);
    }
    expect(await sentTokens()).toEqual(['200', '200']);
    // Nothing esign wrote holds the token.
    expect(readFileSync(join(e.ESIGN_CONFIG_DIR, 'config.json'), 'utf8')).not.toContain(token);
  });

  it('after a 401 it runs once more and sends once more with the new token; the same token again is the 401', async () => {
    // First run: a revoked-looking token; every later run: the real one.
    const helper = script(
      `if [ "$(wc -l < "$(dirname "$0")/runs")" -le 1 ]; then echo sbx_not_a_token_0000000000000000; else echo ${shellQuote(token)}; fi`,
    );
    const result = await runBin([...CREATE_ARGS, '-q'], { env: env({ ESIGN_TOKEN_COMMAND: helper.path }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\//);
    expect(helper.runs()).toBe(2);
    expect(await sentTokens()).toEqual(['401', '200']);

    await admin(sandbox, 'DELETE', 'requests');
    const stale = script('echo sbx_not_a_token_0000000000000000');
    const refused = await runBin(CREATE_ARGS, { env: env({ ESIGN_TOKEN_COMMAND: stale.path }) });
    expect(refused.code).toBe(3);
    expect(stale.runs()).toBe(2);
    expect(await sentTokens()).toEqual(['401']);
    expect(refused.stderr).toContain('The token comes from a token command');
    expect(refused.stderr).not.toContain('sbx_not_a_token');
  });

  it.each([
    [
      'fails',
      `echo ${'tok_live_1234567890abcdefSECRET'}; echo oops >&2; exit 4`,
      /exited with status 4; there is no token\./,
    ],
    ['prints nothing', 'true', /printed no token: the first line of its output is empty/],
    ['prints no token', "echo 'two words'", /printed something that is not a token/],
    ['runs a program that is not installed', 'exec /nonexistent/helper', /a program it runs was not found/],
  ])('a command that %s is exit 3, naming the command and never its output', async (_what, body, told) => {
    const helper = script(body);
    const result = await runBin(CREATE_ARGS, { env: env({ ESIGN_TOKEN_COMMAND: helper.path }) });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(told);
    expect(result.stderr).toContain(
      `The token command \`${helper.path}\` (from environment variable ESIGN_TOKEN_COMMAND)`,
    );
    expect(result.stderr).toContain(`Run it yourself to see`);
    for (const printed of ['SECRET', 'oops', 'two words']) expect(result.stderr).not.toContain(printed);
    expect(await sentTokens()).toEqual([]);
  });

  it('a command whose program is not installed is "not found", naming the program, not "status 127"', async () => {
    const result = await runBin(CREATE_ARGS, {
      env: env({ ESIGN_TOKEN_COMMAND: 'esign-no-such-vault read "vault://esign/token"' }),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'The token command `esign-no-such-vault read "vault://esign/token"` (from environment variable ESIGN_TOKEN_COMMAND) was not found: there is no program `esign-no-such-vault` on PATH; there is no token.',
    );
    expect(result.stderr).toContain('Install esign-no-such-vault, or put its folder on PATH');
    expect(result.stderr).not.toContain('127');
    const byPath = await runBin(CREATE_ARGS, {
      env: env({ ESIGN_TOKEN_COMMAND: '/nonexistent/vault --get' }),
    });
    expect(byPath.code).toBe(3);
    expect(byPath.stderr).toContain('was not found: there is no program `/nonexistent/vault` at that path');
    expect(await sentTokens()).toEqual([]);
  });

  it('a process the command leaves behind holding its output does not keep esign running', async () => {
    // The command prints the token and leaves a `sleep` that holds its standard output open (as a
    // daemon a vault starts may). esign sends, prints, and exits without waiting for the sleep.
    const SLEEP_S = 30;
    const dir = mkdtempSync(join(tmpdir(), 'esign-token-held-'));
    const pidFile = join(dir, 'pid');
    const started = Date.now();
    try {
      const result = await runBin([...CREATE_ARGS, '-q'], {
        env: env({
          ESIGN_TOKEN_COMMAND: `echo ${shellQuote(token)}; sleep ${SLEEP_S} & echo $! > ${shellQuote(pidFile)}`,
        }),
        timeoutMs: (SLEEP_S + 30) * 1000,
      });
      const took = Date.now() - started;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\//);
      // Well under the sleep: before the fix esign exited only when the sleep did.
      expect(took).toBeLessThan((SLEEP_S * 1000) / 3);
      // The sleep was left alone (esign does not wait on it, nor stop it).
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(() => process.kill(pid, 0)).not.toThrow();
    } finally {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    expect(await sentTokens()).toEqual(['200']);
  }, 90_000);

  it('a slow command is stopped after the request timeout: exit 3, nothing sent', async () => {
    const helper = script('sleep 30; echo late');
    const started = Date.now();
    const result = await runBin([...CREATE_ARGS, '--timeout', '1', '--json'], {
      env: env({ ESIGN_TOKEN_COMMAND: helper.path }),
    });
    expect(result.code).toBe(3);
    const error = JSON.parse(result.stderr).error;
    expect(error.code).toBe('unauthenticated');
    expect(error.message).toContain('did not finish within 1 s and was stopped');
    expect(error.hint).toContain('--timeout');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await sentTokens()).toEqual([]);
  });

  it('ESIGN_TOKEN wins over a token command, ESIGN_TOKEN_COMMAND over the profile', async () => {
    const helper = script(`echo ${shellQuote(token)}`);
    const unused = script('echo never');
    const e = env();
    expect((await runBin(['login', '--token-command', unused.path], { env: e })).code).toBe(0);
    expect((await runBin(CREATE_ARGS, { env: { ...e, ESIGN_TOKEN: token } })).code).toBe(0);
    expect(unused.runs()).toBe(0);
    const overriding = await runBin(CREATE_ARGS, { env: { ...e, ESIGN_TOKEN_COMMAND: helper.path } });
    expect(overriding.code).toBe(0);
    expect(overriding.stderr).toContain(
      "note: using the token from the token command in environment variable ESIGN_TOKEN_COMMAND; it overrides the token stored in profile 'default'",
    );
    expect(unused.runs()).toBe(0);
    expect(helper.runs()).toBe(1);
  });

  it('status names the command and where it comes from, and never runs it (it may ask for a password)', async () => {
    const helper = script(`echo ${shellQuote(token)}`);
    const e = env();
    expect((await runBin(['login', '--token-command', helper.path], { env: e })).code).toBe(0);
    const shown = await runBin(['status'], { env: e });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /Token {9}from a command: .*token\.sh \(the token command in profile 'default', run when a command needs the token, not by status\)/,
    );
    const json = JSON.parse((await runBin(['status', '--json'], { env: e })).stdout);
    expect(json.token).toMatchObject({
      value: null,
      source: 'command profile default',
      command: helper.path,
    });
    expect(helper.runs()).toBe(0);
    // logout forgets the command.
    const logout = await runBin(['logout'], { env: e });
    expect(logout.stderr).toContain("Removed the token command of profile 'default'");
    expect((await runBin(['status'], { env: e })).code).toBe(3);
  });

  it("the settings guide's lines for 1Password, pass, the macOS keychain, Secret Service and PowerShell run as written", async () => {
    const guide = readFileSync(join(import.meta.dirname, '../../docs/settings.md'), 'utf8');
    const lines = [...guide.matchAll(/esign login --token-command '([^']+)'/g)].map((m) => m[1] as string);
    const tools = ['op', 'pass', 'security', 'secret-tool', 'pwsh'];
    for (const tool of tools)
      expect(
        lines.some((line) => line.startsWith(`${tool} `)),
        tool,
      ).toBe(true);
    // Stand-ins for the tools, on PATH: each prints the token for exactly the arguments the guide gives.
    const bin = mkdtempSync(join(tmpdir(), 'esign-vaults-'));
    for (const line of lines) {
      const [tool, ...args] = line.match(/"[^"]*"|\S+/g) as string[];
      const expected = args.map((arg) => `${arg.replace(/^"|"$/g, '')}|`).join('');
      const path = join(bin, tool as string);
      writeFileSync(
        path,
        `#!/bin/sh\n[ "$(printf '%s|' "$@")" = ${shellQuote(expected)} ] || { echo "unexpected: $*" >&2; exit 9; }\necho ${shellQuote(token)}\n`,
      );
      chmodSync(path, 0o755);
    }
    for (const line of lines) {
      const result = await runBin([...CREATE_ARGS, '-q'], {
        env: env({ ESIGN_TOKEN_COMMAND: line, PATH: `${bin}:${process.env.PATH}` }),
      });
      expect(result.code, `${line}: ${result.stderr}`).toBe(0);
    }
  });
});

describe("the token's age", () => {
  /** A config whose profile holds the sandbox's token, stored `days` ago. */
  function storedDaysAgo(days: number): Record<string, string> {
    const e = env();
    const at = new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString();
    const profiles = { default: { base_url: sandbox.baseUrl, token, token_stored_at: at } };
    const { mkdirSync } = process.getBuiltinModule('node:fs');
    mkdirSync(e.ESIGN_CONFIG_DIR, { recursive: true, mode: 0o700 });
    writeFileSync(join(e.ESIGN_CONFIG_DIR, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
    return e;
  }
  const REMINDER =
    /note: the token of profile 'default' was stored (\d+) days ago; the service advises rotating tokens regularly/;

  it('login records when the token was stored, and status shows its age', async () => {
    const e = env();
    expect((await runBin(['login', '--with-token'], { env: e, stdin: token })).code).toBe(0);
    const stored = JSON.parse(readFileSync(join(e.ESIGN_CONFIG_DIR, 'config.json'), 'utf8')).profiles.default;
    expect(Date.now() - Date.parse(stored.token_stored_at)).toBeLessThan(60_000);
    expect((await runBin(['status'], { env: e })).stdout).toContain("(profile 'default', stored today)");
    const old = storedDaysAgo(120);
    const status = await runBin(['status'], { env: old });
    expect(status.stdout).toContain('stored 120 days ago; rotate it: 90 days or more');
    expect(JSON.parse((await runBin(['status', '--json'], { env: old })).stdout).token.age_days).toBe(120);
  });

  it('after 90 days a create reminds once on stderr, at most once a day; never under --json, -q or CI, nor once silenced', async () => {
    const fresh = storedDaysAgo(89);
    expect((await runBin(CREATE_ARGS, { env: fresh })).stderr).not.toMatch(REMINDER);
    for (const [what, args, extra] of [
      ['--json', ['--json'], {}],
      ['-q', ['-q'], {}],
      ['CI', [], { CI: 'true' }],
    ] as const) {
      const result = await runBin([...CREATE_ARGS, ...args], { env: { ...storedDaysAgo(100), ...extra } });
      expect(result.code, what).toBe(0);
      expect(result.stderr, what).not.toMatch(REMINDER);
    }
    const old = storedDaysAgo(100);
    const first = await runBin(CREATE_ARGS, { env: old });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(REMINDER);
    expect(first.stderr).toContain('`esign config set token_age_reminder false` turns this off');
    const second = await runBin(CREATE_ARGS, { env: old });
    expect(second.stderr).not.toMatch(REMINDER);
    const silenced = storedDaysAgo(100);
    expect((await runBin(['config', 'set', 'token_age_reminder', 'false'], { env: silenced })).code).toBe(0);
    expect((await runBin(CREATE_ARGS, { env: silenced })).stderr).not.toMatch(REMINDER);
  });
});
