// Profiles as a new user meets them (issue 21): login says it did not check the token and when it
// replaced one, logout of a profile that is not there says "did you mean" as other commands do,
// `esign profile list|delete`, and `esign templates` for a profile only the project file knows.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertNoSecret, runCli } from '../helpers/context.js';
import { freshConfigDir } from '../helpers/spawn.js';

const FIRST = 'tok_live_first_1a2b3c4d5e6f7a8b';
const SECOND = 'tok_live_second_9f8e7d6c5b4a3c2d';
const OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const PROD_OFFER = '01JF2K8W0R3M7Q5N9T1V4XBYCD';

const readConfig = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

async function loggedIn(profiles: string[]): Promise<string> {
  const configDir = freshConfigDir();
  for (const profile of profiles) {
    const result = await runCli(['login', '--with-token', '--profile', profile], { configDir, stdin: FIRST });
    expect(result.code).toBe(0);
  }
  return configDir;
}

describe('esign login tells what it did', () => {
  it('says the token was not checked, and that logging in again replaced the stored one', async () => {
    const configDir = freshConfigDir();
    const first = await runCli(['login', '--with-token'], { configDir, stdin: FIRST });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('note: the token was not checked');
    expect(first.stderr).not.toContain('replaced');
    const again = await runCli(['login', '--with-token'], { configDir, stdin: SECOND });
    assertNoSecret(again, FIRST);
    assertNoSecret(again, SECOND);
    expect(again.stderr).toContain(
      "note: this replaced the token stored before for profile 'default' (****7a8b).",
    );
    expect(readConfig(configDir).profiles.default.token).toBe(SECOND);
    const same = await runCli(['login', '--with-token'], { configDir, stdin: SECOND });
    expect(same.stderr).toContain("note: profile 'default' already had this token.");
  });
});

describe('esign logout of a profile that is not there', () => {
  it('says did-you-mean while other profiles exist, as every other command, but stays exit 0 as the contract says (nothing to remove); exit 0 with none stored', async () => {
    const configDir = await loggedIn(['staging']);
    const typo = await runCli(['logout', '--profile', 'stagin'], { configDir });
    expect(typo.code).toBe(0);
    expect(typo.stderr).toContain(
      "warning: Profile 'stagin' does not exist (named by --profile). Did you mean 'staging'? Nothing was removed.",
    );
    expect(readConfig(configDir).profiles.staging.token).toBe(FIRST);
    const none = await runCli(['logout', '--profile', 'nobody'], { configDir: freshConfigDir() });
    expect(none.code).toBe(0);
  });
});

describe('esign profile list and delete', () => {
  it('lists the profiles, the active one marked, for people and as JSON; none is said on stderr', async () => {
    const empty = await runCli(['profile', 'list'], { configDir: freshConfigDir() });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('No profiles are stored in');
    const configDir = await loggedIn(['default', 'staging']);
    await runCli(['config', 'set', 'base_url', 'https://esign.example.com/api/v1'], { configDir });
    const human = await runCli(['profile', 'list'], { configDir, env: { ESIGN_PROFILE: 'staging' } });
    assertNoSecret(human, FIRST);
    expect(human.stdout).toBe(
      '  default  https://esign.example.com/api/v1  token ****7a8b\n* staging  (no base URL)  token ****7a8b\n',
    );
    const json = JSON.parse((await runCli(['profile', 'list', '--json'], { configDir })).stdout);
    expect(json.active).toBe('default');
    expect(json.profiles).toEqual([
      {
        name: 'default',
        active: true,
        base_url: 'https://esign.example.com/api/v1',
        token: '****7a8b',
        token_command: null,
      },
      { name: 'staging', active: false, base_url: null, token: '****7a8b', token_command: null },
    ]);
  });

  it('delete removes the profile with its base URL and token; a typo is exit 2 with did-you-mean', async () => {
    const configDir = await loggedIn(['default', 'staging']);
    const typo = await runCli(['profile', 'delete', 'stagng'], { configDir });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "Profile 'stagng' does not exist; nothing was deleted. Did you mean 'staging'?",
    );
    const deleted = await runCli(['profile', 'delete', 'staging'], { configDir });
    assertNoSecret(deleted, FIRST);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain("Deleted profile 'staging' (its base URL and token)");
    expect(deleted.stderr).toContain('stays valid on the server');
    expect(Object.keys(readConfig(configDir).profiles)).toEqual(['default']);
  });
});

describe('esign templates reads only the project file', () => {
  it('lists the names of a profile that is not in the config (exit 0), with a note when the file has no names for it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'esign-profiles-'));
    mkdirSync(join(root, 'app'));
    writeFileSync(
      join(root, '.esign.json'),
      JSON.stringify({
        templates: { 'offer-letter': PROD_OFFER },
        profiles: { sandbox: { templates: { 'offer-letter': OFFER } } },
      }),
    );
    const configDir = await loggedIn(['default']);
    const sandbox = await runCli(['templates', '--profile', 'sandbox', '--json'], {
      cwd: join(root, 'app'),
      configDir,
    });
    expect(sandbox.code).toBe(0);
    expect(JSON.parse(sandbox.stdout).templates).toEqual({ 'offer-letter': OFFER });
    const typo = await runCli(['templates', '--profile', 'sandbx'], { cwd: join(root, 'app'), configDir });
    expect(typo.code).toBe(0);
    expect(typo.stdout).toContain(PROD_OFFER);
    expect(typo.stderr).toContain(
      "has no profiles.sandbx, only sandbox: the names below are the top-level ones. Did you mean 'sandbox'?",
    );
  });
});

describe('the config file, as the project file, is data', () => {
  it('a config nested too deep is a clear error (exit 1), not a crash; its keys are escaped in messages', async () => {
    const configDir = freshConfigDir();
    mkdirSync(configDir, { recursive: true });
    const path = join(configDir, 'config.json');
    writeFileSync(path, `{"profiles": {"a": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}`, { mode: 0o600 });
    const deep = await runCli(['status'], { configDir });
    expect(deep.code).toBe(1);
    expect(deep.stderr).toContain(
      `error: ${path}:1:82: the config file nests objects or arrays more than 64 levels deep; it is not an esign config.`,
    );
    writeFileSync(path, '{"profiles": {"a\\u001b[2J": 5}}', { mode: 0o600 });
    const keyed = await runCli(['profile', 'list'], { configDir });
    expect(keyed.code).toBe(1);
    expect(keyed.stderr).not.toContain('\u001b');
    expect(keyed.stderr).toContain("'profiles.a\\x1b[2J' must be a JSON object");
  });
});
