// The first hour with profiles, through the built binary: after the README's "Try it locally"
// (`login --profile sandbox`), a plain `status` or `envelope create` names the stored profile and how
// to use it; `esign profile use <name>` makes it the default.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

async function loggedInToSandbox(): Promise<Record<string, string>> {
  const env = { ESIGN_CONFIG_DIR: freshConfigDir(), GITHUB_ACTIONS: '', CI: '' };
  const login = await runBin(
    ['login', '--with-token', '--profile', 'sandbox', '--base-url', sandbox.baseUrl],
    {
      env,
      stdin: tokenOf(sandbox),
    },
  );
  expect(login.code).toBe(0);
  return env;
}

describe('the profile in use is empty while another is stored', () => {
  it('status and create name the stored profile and how to use it', async () => {
    const env = await loggedInToSandbox();
    const status = await runBin(['status'], { env });
    expect(status.code).toBe(3);
    const hint =
      "Profile 'default' is empty; the stored profile is 'sandbox'. Use one with --profile sandbox, or make it the default: esign profile use sandbox.";
    expect(status.stderr).toContain(`hint: ${hint}`);
    const create = await runBin([...CREATE_ARGS, '-q'], { env });
    expect(create.code).toBe(2);
    expect(create.stderr).toContain('error: No API base URL is set.');
    expect(create.stderr).toContain(`hint: ${hint}`);
    const json = JSON.parse((await runBin([...CREATE_ARGS, '--json'], { env })).stderr);
    expect(json.error.hint).toBe(hint);
  });

  it('esign profile use makes it the default, below --profile, ESIGN_PROFILE and the base URL given', async () => {
    const env = await loggedInToSandbox();
    const use = await runBin(['profile', 'use', 'sandbox'], { env });
    expect(use.code).toBe(0);
    expect(use.stderr).toContain("Commands now use profile 'sandbox'");
    const config = JSON.parse(readFileSync(join(env.ESIGN_CONFIG_DIR as string, 'config.json'), 'utf8'));
    expect(config.default_profile).toBe('sandbox');
    const create = await runBin([...CREATE_ARGS, '-q'], { env });
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\//);
    const status = JSON.parse((await runBin(['status', '--json'], { env })).stdout);
    expect(status.profile).toEqual({
      value: 'sandbox',
      source: `config ${join(env.ESIGN_CONFIG_DIR as string, 'config.json')}`,
    });
    expect((await runBin(['status'], { env })).stdout).toMatch(
      /Profile {7}sandbox \(the default chosen with `esign profile use`/,
    );
    // --profile and ESIGN_PROFILE still win; a base URL from the environment has no stored profile.
    expect(
      (await runBin(['login', '--with-token', '--profile', 'other'], { env, stdin: 'tok_other_0123456789' }))
        .code,
    ).toBe(0);
    expect(
      JSON.parse((await runBin(['status', '--json', '--profile', 'other'], { env })).stdout).profile.value,
    ).toBe('other');
    const named = await runBin(['status', '--json'], { env: { ...env, ESIGN_PROFILE: 'other' } });
    expect(JSON.parse(named.stdout).profile.value).toBe('other');
    const viaEnv = await runBin(['status', '--json'], { env: { ...env, ESIGN_BASE_URL: sandbox.baseUrl } });
    expect(JSON.parse(viaEnv.stdout).profile.value).toBe('default');
    expect((await runBin(['profile', 'list'], { env })).stdout).toMatch(/^\* sandbox/m);
  });

  it('a base URL from ESIGN_BASE_URL or --base-url that sets aside the profile chosen says so where it fails; --verbose shows each source, no stack', async () => {
    const env = await loggedInToSandbox();
    expect((await runBin(['profile', 'use', 'sandbox'], { env })).code).toBe(0);
    const viaEnv = await runBin(CREATE_ARGS, { env: { ...env, ESIGN_BASE_URL: sandbox.baseUrl } });
    expect(viaEnv.code).toBe(3);
    expect(viaEnv.stderr).toContain(
      "error: Not logged in: no token for profile 'default'. ESIGN_BASE_URL gives the base URL, so profile 'sandbox' (chosen by `esign profile use`) is set aside and the profile is 'default'.",
    );
    expect(viaEnv.stderr).toContain(
      "hint: To use profile 'sandbox' with this base URL, add --profile sandbox or set ESIGN_PROFILE=sandbox.",
    );
    const viaFlag = await runBin([...CREATE_ARGS, '--base-url', sandbox.baseUrl, '--json'], { env });
    expect(viaFlag.code).toBe(3);
    expect(JSON.parse(viaFlag.stderr).error.message).toContain(
      "--base-url gives the base URL, so profile 'sandbox' (chosen by `esign profile use`) is set aside",
    );
    // --verbose: each setting and its source, then the error; no stack trace.
    const verbose = await runBin([...CREATE_ARGS, '--verbose'], {
      env: { ...env, ESIGN_BASE_URL: sandbox.baseUrl },
    });
    expect(verbose.code).toBe(3);
    for (const line of [
      'profile: default (default)',
      "  ESIGN_BASE_URL gives the base URL, so profile 'sandbox' (chosen by `esign profile use`) is set aside",
      `base URL: ${sandbox.baseUrl} (environment variable ESIGN_BASE_URL)`,
      'token: none',
      'timeout: 30 s (default)',
      `config file: ${join(env.ESIGN_CONFIG_DIR as string, 'config.json')}`,
    ])
      expect(verbose.stderr).toContain(line);
    expect(verbose.stderr).not.toMatch(/^\s+at /m);
    expect(verbose.stderr).not.toContain('NotAuthenticatedError');
    // status says it under the profile, and its hint is how to use the profile set aside.
    const status = await runBin(['status'], { env: { ...env, ESIGN_BASE_URL: sandbox.baseUrl } });
    expect(status.code).toBe(3);
    expect(status.stdout).toMatch(
      /Profile {7}default \(default\)\n {16}ESIGN_BASE_URL gives the base URL, so profile 'sandbox' \(chosen by `esign profile use`\) is set aside/,
    );
    expect(status.stderr).toContain(
      "hint: To use profile 'sandbox' with this base URL, add --profile sandbox or set ESIGN_PROFILE=sandbox.",
    );
    // Named with --profile, it is used with that base URL, and nothing is said of setting it aside.
    const named = await runBin([...CREATE_ARGS, '-q', '--profile', 'sandbox'], {
      env: { ...env, ESIGN_BASE_URL: sandbox.baseUrl },
    });
    expect(named.code).toBe(0);
    expect(named.stderr).not.toContain('set aside');
  });

  it("the project file's profile set aside by ESIGN_BASE_URL: a name not in force says which setting set it aside", async () => {
    const env = await loggedInToSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'esign-set-aside-'));
    writeFileSync(
      join(dir, '.esign.json'),
      JSON.stringify({ profile: 'sandbox', profiles: { sandbox: { templates: { offer: ACME_OFFER } } } }),
    );
    const args = ['envelope', 'create', '--template', 'offer', '--name', 'Ada', '--email', 'ada@example.com'];
    const result = await runBin(args, {
      env: { ...env, ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: tokenOf(sandbox) },
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `ESIGN_BASE_URL gives the base URL, so profile 'sandbox' (chosen by the "profile" of project file ${join(dir, '.esign.json')}) is set aside and the profile is 'default'. To use profile 'sandbox' with this base URL, add --profile sandbox or set ESIGN_PROFILE=sandbox.`,
    );
  });

  it('a profile that is not stored is refused with "did you mean"; default goes back; delete forgets it', async () => {
    const env = await loggedInToSandbox();
    const typo = await runBin(['profile', 'use', 'sandbx'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "Profile 'sandbx' does not exist; the default is unchanged. Did you mean 'sandbox'?",
    );
    expect((await runBin(['profile', 'use', 'sandbox'], { env })).code).toBe(0);
    expect((await runBin(['profile', 'use', 'default'], { env })).code).toBe(0);
    const path = join(env.ESIGN_CONFIG_DIR as string, 'config.json');
    expect(JSON.parse(readFileSync(path, 'utf8')).default_profile).toBeUndefined();
    expect((await runBin(['profile', 'use', 'sandbox'], { env })).code).toBe(0);
    expect((await runBin(['profile', 'delete', 'sandbox'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8')).default_profile).toBeUndefined();
  });
});
