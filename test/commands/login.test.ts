import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoSecret, createTestContext, runCli } from '../helpers/context.js';

const TOKEN = 'tok_live_8d2f6b1a9c4e7f3a5b0d';

function readConfig(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

/** When login stored a token: an ISO 8601 time (its value is the clock's). */
const STORED_AT = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
describe('esign login', () => {
  it('--with-token stores the piped token (trailing newline trimmed) with mode 0600 in a 0700 folder', async () => {
    const ctx = createTestContext({ stdin: `${TOKEN}\n` });
    const result = await runCli(
      ['login', '--with-token', '--base-url', 'https://esign.example.com/api/v1/'],
      ctx,
    );
    assertNoSecret(result, TOKEN);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("Token stored for profile 'default'");
    expect(readConfig(ctx.configDir)).toEqual({
      profiles: {
        default: { token: TOKEN, base_url: 'https://esign.example.com/api/v1', token_stored_at: STORED_AT },
      },
    });
    expect(statSync(join(ctx.configDir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(ctx.configDir).mode & 0o777).toBe(0o700);
  });

  it('keeps profiles apart', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    await runCli(['login', '--with-token', '--profile', 'staging'], ctx);
    const other = createTestContext({ stdin: 'tok_other_1234567890', configDir: ctx.configDir });
    await runCli(['login', '--with-token'], other);
    expect(readConfig(ctx.configDir).profiles).toEqual({
      staging: { token: TOKEN, token_stored_at: STORED_AT },
      default: { token: 'tok_other_1234567890', token_stored_at: STORED_AT },
    });
  });

  it.each([
    ['', 'The token is empty'],
    ['\n', 'The token is empty'],
    ['tok en', 'contains whitespace'],
    ['tok\tabc', 'contains whitespace'],
  ])('refuses %j with exit 2 and stores nothing', async (input, message) => {
    const ctx = createTestContext({ stdin: input });
    const { code, stderr } = await runCli(['login', '--with-token'], ctx);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(() => statSync(join(ctx.configDir, 'config.json'))).toThrow();
  });

  it('without --with-token and without a TTY exits 2 naming --with-token', async () => {
    const { code, stderr } = await runCli(['login'], { stdin: TOKEN });
    expect(code).toBe(2);
    expect(stderr).toContain('--with-token');
  });

  it('on a TTY asks with a hidden prompt that says where tokens are made', async () => {
    const ctx = createTestContext({ stdinTTY: true, stderrTTY: true, promptAnswer: TOKEN });
    const result = await runCli(['login'], ctx);
    assertNoSecret(result, TOKEN);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Settings → API Tokens → Create New Token');
    expect(ctx.prompts[0]).toContain('input is hidden');
    expect(readConfig(ctx.configDir).profiles.default.token).toBe(TOKEN);
  });

  it('refuses a base URL that is not https (exit 2) before storing anything', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    const { code, stderr } = await runCli(
      ['login', '--with-token', '--base-url', 'http://esign.example.com/api/v1'],
      ctx,
    );
    expect(code).toBe(2);
    expect(stderr).toContain('plain http:// is allowed only for loopback hosts');
    expect(() => statSync(join(ctx.configDir, 'config.json'))).toThrow();
  });

  it('never clears a config file it cannot parse: exit 1 with the path, file untouched', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    mkdirSync(ctx.configDir, { recursive: true });
    const path = join(ctx.configDir, 'config.json');
    writeFileSync(path, '{"profiles": {"default": {"token": "abc"}');
    const result = await runCli(['login', '--with-token'], ctx);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toContain('not valid JSON');
    expect(readFileSync(path, 'utf8')).toBe('{"profiles": {"default": {"token": "abc"}');
    const create = await runCli(['status'], createTestContext({ configDir: ctx.configDir }));
    expect(create.code).toBe(1);
    expect(create.stderr).toContain(path);
  });
});

describe('esign logout', () => {
  it('removes the stored token and reminds that it stays valid on the server', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    await runCli(['login', '--with-token', '--base-url', 'https://esign.example.com/api/v1'], ctx);
    const result = await runCli(['logout'], createTestContext({ configDir: ctx.configDir }));
    assertNoSecret(result, TOKEN);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('stays valid on the server until you revoke it');
    expect(readConfig(ctx.configDir)).toEqual({
      profiles: { default: { base_url: 'https://esign.example.com/api/v1' } },
    });
  });

  it('exits 0 when there was no token', async () => {
    const { code, stderr } = await runCli(['logout', '--profile', 'nobody']);
    expect(code).toBe(0);
    expect(stderr).toContain("No token is stored for profile 'nobody'");
  });
});

describe('esign status', () => {
  it('shows profile, base URL, masked token and their sources as JSON', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    await runCli(['login', '--with-token', '--base-url', 'https://esign.example.com/api/v1'], ctx);
    const result = await runCli(['status', '--json'], createTestContext({ configDir: ctx.configDir }));
    assertNoSecret(result, TOKEN);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      profile: { value: 'default', source: 'default' },
      base_url: { value: 'https://esign.example.com/api/v1', source: 'profile default' },
      token: {
        value: `****${TOKEN.slice(-4)}`,
        source: 'profile default',
        overrides_profile: false,
        command: null,
        stored_at: STORED_AT,
        age_days: 0,
      },
      timeout_seconds: { value: 30, source: 'default' },
      config_file: { path: join(ctx.configDir, 'config.json'), exists: true },
      project_file: null,
    });
  });

  it('follows the precedence flag > environment > profile, and says when ESIGN_TOKEN overrides', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    await runCli(['login', '--with-token', '--base-url', 'https://profile.example.com/api/v1'], ctx);
    const envCtx = createTestContext({
      configDir: ctx.configDir,
      env: {
        ESIGN_BASE_URL: 'https://env.example.com/api/v1',
        ESIGN_TOKEN: 'tok_env_abcdef123456',
        ESIGN_TIMEOUT: '5',
      },
    });
    const fromEnv = await runCli(['status', '--json'], envCtx);
    const report = JSON.parse(fromEnv.stdout);
    expect(report.base_url).toEqual({
      value: 'https://env.example.com/api/v1',
      source: 'env ESIGN_BASE_URL',
    });
    expect(report.token).toEqual({
      value: '****3456',
      source: 'env ESIGN_TOKEN',
      overrides_profile: true,
      command: null,
      stored_at: null,
      age_days: null,
    });
    expect(report.timeout_seconds).toEqual({ value: 5, source: 'env ESIGN_TIMEOUT' });
    const flagCtx = createTestContext({
      configDir: ctx.configDir,
      env: { ESIGN_BASE_URL: 'https://env.example.com/api/v1' },
    });
    const fromFlag = await runCli(
      ['status', '--json', '--base-url', 'https://flag.example.com/api/v1', '--timeout', '2'],
      flagCtx,
    );
    expect(JSON.parse(fromFlag.stdout).base_url).toEqual({
      value: 'https://flag.example.com/api/v1',
      source: 'flag',
    });
    expect(JSON.parse(fromFlag.stdout).timeout_seconds).toEqual({ value: 2, source: 'flag' });
  });

  it('exits 3 and says how to log in when there is no token', async () => {
    const { code, stdout, stderr } = await runCli(['status']);
    expect(code).toBe(3);
    expect(stdout).toContain('Token');
    expect(stdout).toContain('none');
    expect(stderr).toContain('esign login');
  });

  it('an ESIGN_TOKEN of spaces is no token: exit 3, as a create would fail', async () => {
    const { code, stdout } = await runCli(['status'], createTestContext({ env: { ESIGN_TOKEN: '   ' } }));
    expect(code).toBe(3);
    expect(stdout).toContain('none');
  });

  it('uses ESIGN_PROFILE, and rejects a bad profile name', async () => {
    const ctx = createTestContext({ stdin: TOKEN });
    await runCli(['login', '--with-token', '--profile', 'ci'], ctx);
    const viaEnv = await runCli(
      ['status', '--json'],
      createTestContext({ configDir: ctx.configDir, env: { ESIGN_PROFILE: 'ci' } }),
    );
    expect(JSON.parse(viaEnv.stdout).profile).toEqual({ value: 'ci', source: 'env ESIGN_PROFILE' });
    const bad = await runCli(['status', '--profile', '../etc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a valid profile name');
  });
});

describe('esign config', () => {
  it('sets, gets, lists and unsets base_url per profile', async () => {
    const ctx = createTestContext();
    const set = await runCli(
      ['config', 'set', 'base_url', 'https://esign.example.com/api/v1/', '--profile', 'prod'],
      ctx,
    );
    expect(set.code).toBe(0);
    const get = await runCli(
      ['config', 'get', 'base_url', '--profile', 'prod'],
      createTestContext({ configDir: ctx.configDir }),
    );
    expect(get.stdout).toBe('https://esign.example.com/api/v1\n');
    const list = await runCli(
      ['config', 'list', '--json', '--profile', 'prod'],
      createTestContext({ configDir: ctx.configDir }),
    );
    expect(JSON.parse(list.stdout)).toEqual({
      profile: 'prod',
      base_url: 'https://esign.example.com/api/v1',
      token: null,
      profiles: ['prod'],
      // Preferences not set: their defaults, and which keys are defaults.
      accessible: false,
      token_age_reminder: true,
      defaults: ['accessible', 'token_age_reminder'],
    });
    const unset = await runCli(
      ['config', 'unset', 'base_url', '--profile', 'prod'],
      createTestContext({ configDir: ctx.configDir }),
    );
    expect(unset.code).toBe(0);
    expect(readConfig(ctx.configDir)).toEqual({ profiles: {} });
  });

  it('refuses the token, unknown keys and bad URLs with exit 2', async () => {
    const token = await runCli(['config', 'set', 'token', 'abc']);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('esign login');
    const unknown = await runCli(['config', 'get', 'colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown setting 'colour'");
    const badUrl = await runCli(['config', 'set', 'base_url', 'ftp://x']);
    expect(badUrl.code).toBe(2);
  });
});

describe('esign completion', () => {
  it.each(['bash', 'zsh', 'fish'])('prints a %s script that asks esign what comes next', async (shell) => {
    const { code, stdout } = await runCli(['completion', shell]);
    expect(code).toBe(0);
    expect(stdout).toContain('esign __complete --');
    // What the script gets back knows the commands and flags at every depth.
    const top = await runCli(['__complete', '--', '']);
    for (const word of ['login', 'envelope', 'config', 'sandbox'])
      expect(top.stdout).toMatch(new RegExp(`^${word}\t`, 'm'));
    const flags = await runCli(['__complete', '--', 'envelope', 'create', '--']);
    for (const word of ['--template', '--expires-in-days', '--profile'])
      expect(flags.stdout).toMatch(new RegExp(`^${word}$`, 'm'));
  });

  it('rejects an unknown shell with exit 2', async () => {
    const { code, stderr } = await runCli(['completion', 'powershell']);
    expect(code).toBe(2);
    expect(stderr).toContain('bash, zsh, fish');
  });
});

describe('help and version', () => {
  it('--version prints the version; --help shows examples; unknown commands suggest', async () => {
    expect((await runCli(['--version'])).stdout).toBe('0.0.0-test\n');
    const help = await runCli(['envelope', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('URL=$(esign envelope create');
    expect(help.stdout).toContain('ESIGN_TOKEN');
    const typo = await runCli(['envelop']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean 'envelope'?");
  });
});
