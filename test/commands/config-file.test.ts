// The config file as a local file: concurrent writers, an empty file, the folder's mode and the
// file's permissions.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPermissionWarning } from '../../src/config/store.js';
import { acquireLock, releaseLock } from '../../src/fs/lock.js';
import { runCli } from '../helpers/context.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const readConfig = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

/** When login stored a token: an ISO 8601 time (its value is the clock's). */
const STORED_AT = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
describe('the config file', () => {
  it('20 pairs of `login --profile alpha` and `--profile beta` at the same moment keep both profiles', async () => {
    for (let round = 0; round < 4; round++) {
      const dirs = Array.from({ length: 5 }, () => freshConfigDir());
      const results = await Promise.all(
        dirs.flatMap((dir) =>
          ['alpha', 'beta'].map((profile) =>
            runBin(['login', '--with-token', '--profile', profile], {
              env: { ESIGN_CONFIG_DIR: dir },
              stdin: `tok_${profile}_0123456789`,
              timeoutMs: 30_000,
            }),
          ),
        ),
      );
      for (const result of results) expect(result.stderr).toContain('Token stored');
      expect(results.map((result) => result.code)).toEqual(results.map(() => 0));
      for (const dir of dirs) {
        expect(readConfig(dir)).toEqual({
          profiles: {
            alpha: { token: 'tok_alpha_0123456789', token_stored_at: STORED_AT },
            beta: { token: 'tok_beta_0123456789', token_stored_at: STORED_AT },
          },
        });
        expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
        expect(() => statSync(join(dir, 'config.json.lock'))).toThrow();
      }
    }
  }, 120_000);

  it('a writer that cannot get the lock from a live owner fails non-zero, naming the lock, and changes nothing', async () => {
    const dir = freshConfigDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"alpha":{"token":"tok_alpha_0123456789"}}}');
    // This test's own process holds the lock for the whole wait (a lock naming it that it did not
    // take would be stale: left by an earlier process with the same id).
    const lockPath = join(dir, 'config.json.lock');
    await acquireLock(lockPath, { busy: () => new Error('busy'), failed: (error) => error as Error });
    const result = await runCli(['login', '--with-token', '--profile', 'beta'], {
      configDir: dir,
      stdin: 'tok_beta_0123456789',
    }).finally(() => releaseLock(lockPath));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`is being changed by another esign process (${process.pid})`);
    expect(result.stderr).toContain(join(dir, 'config.json.lock'));
    expect(result.stderr).not.toContain('Token stored');
    expect(readConfig(dir)).toEqual({ profiles: { alpha: { token: 'tok_alpha_0123456789' } } });
  }, 60_000);

  it.each(['', '  \n\t\n'])(
    'an empty or whitespace-only config.json (%j) is an empty config for login and config set',
    async (text) => {
      const dir = freshConfigDir();
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'config.json'), text);
      const login = await runCli(['login', '--with-token', '--profile', 'alpha'], {
        configDir: dir,
        stdin: 'tok_alpha_0123456789',
      });
      expect(login.stderr).toContain('Token stored');
      expect(login.code).toBe(0);
      expect(readConfig(dir)).toEqual({
        profiles: { alpha: { token: 'tok_alpha_0123456789', token_stored_at: STORED_AT } },
      });

      writeFileSync(join(dir, 'config.json'), text);
      const set = await runCli(['config', 'set', 'base_url', 'https://esign.example.com/api/v1'], {
        configDir: dir,
      });
      expect(set.code).toBe(0);
      expect(readConfig(dir)).toEqual({
        profiles: { default: { base_url: 'https://esign.example.com/api/v1' } },
      });
    },
  );

  it('an existing ESIGN_CONFIG_DIR keeps its mode (a shared 1777 folder keeps its sticky bit)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'esign-shared-')), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    const result = await runCli(['login', '--with-token'], {
      configDir: dir,
      stdin: 'tok_shared_0123456789',
    });
    expect(result.code).toBe(0);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('new folders are created 0700, parents included', async () => {
    const root = mkdtempSync(join(tmpdir(), 'esign-new-'));
    const dir = join(root, 'a', 'b');
    const result = await runCli(['login', '--with-token'], { configDir: dir, stdin: 'tok_new_0123456789' });
    expect(result.code).toBe(0);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it.runIf(process.platform !== 'win32')(
    'configPermissionWarning: one line when group or others can read the file, nothing otherwise',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'esign-perm-'));
      expect(configPermissionWarning(dir)).toBeUndefined(); // no file
      const path = join(dir, 'config.json');
      writeFileSync(path, '{}');
      chmodSync(path, 0o600);
      expect(configPermissionWarning(dir)).toBeUndefined();
      chmodSync(path, 0o644);
      const warning = configPermissionWarning(dir);
      expect(warning).toBe(
        `warning: the config file ${path} holds tokens and is readable by group or others (mode 0644); run: chmod 600 ${path}`,
      );
      expect(warning).not.toContain('\n');
      chmodSync(path, 0o640);
      expect(configPermissionWarning(dir)).toContain('(mode 0640)');
      expect(configPermissionWarning(dir, 'win32')).toBeUndefined();
    },
  );

  it('config list shows a preference not set with its default, marked as the default', async () => {
    const dir = freshConfigDir();
    const list = await runCli(['config', 'list'], { configDir: dir });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('accessible=false (default)\ntoken_age_reminder=true (default)\n');
    const set = await runCli(['config', 'set', 'token_age_reminder', 'off'], { configDir: dir });
    expect(set.code).toBe(0);
    const listed = await runCli(['config', 'list'], { configDir: dir });
    expect(listed.stdout).toContain('accessible=false (default)\ntoken_age_reminder=false\n');
    const json = JSON.parse((await runCli(['config', 'list', '--json'], { configDir: dir })).stdout);
    expect(json).toMatchObject({ accessible: false, token_age_reminder: false, defaults: ['accessible'] });
  });

  it('a config.json with a UTF-8 byte-order mark (PowerShell 5 writes one) is read by every command, and kept by login', async () => {
    const dir = freshConfigDir();
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    writeFileSync(
      path,
      '\ufeff{\r\n  "profiles": {"default": {"base_url": "https://esign.example.com/api/v1", "token": "tok_bom_0123456789"}}\r\n}\r\n',
      { mode: 0o600 },
    );
    const list = await runCli(['config', 'list'], { configDir: dir });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('base_url=https://esign.example.com/api/v1\n');
    const status = await runCli(['status', '--json'], { configDir: dir });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).base_url.value).toBe('https://esign.example.com/api/v1');
    const login = await runCli(['login', '--with-token', '--profile', 'beta'], {
      configDir: dir,
      stdin: 'tok_beta_0123456789',
    });
    expect(login.code).toBe(0);
    expect(readConfig(dir)).toEqual({
      profiles: {
        default: { base_url: 'https://esign.example.com/api/v1', token: 'tok_bom_0123456789' },
        beta: { token: 'tok_beta_0123456789', token_stored_at: STORED_AT },
      },
    });
  });

  it('a config.json with a syntax error names path:line:column and the reason, says what to do, and is never replaced', async () => {
    const dir = freshConfigDir();
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    const text = '{\n  "profiles": {\n    "default": {"token": "tok_x_0123456789",}\n  }\n}\n';
    writeFileSync(path, text, { mode: 0o600 });
    for (const argv of [['config', 'list'], ['status'], ['login', '--with-token']]) {
      const result = await runCli(argv, { configDir: dir, stdin: 'tok_new_0123456789' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `error: ${path}:3:45: the config file is not valid JSON: trailing comma before '}'.\n`,
      );
      expect(result.stderr).toContain('Fix the file by hand, or move it away to start afresh.');
      expect(result.stderr).not.toContain('tok_x_0123456789');
    }
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a config.json that is JSON but not an esign config points at the key', async () => {
    const dir = freshConfigDir();
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'config.json');
    writeFileSync(path, '{\n  "profiles": {\n    "default": {"token": 42}\n  }\n}\n', { mode: 0o600 });
    for (const argv of [
      ['config', 'list'],
      ['login', '--with-token'],
    ]) {
      const result = await runCli(argv, { configDir: dir, stdin: 'tok_new_0123456789' });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `error: ${path}:3:17: the config file is not an esign config: 'profiles.default.token' must be a string.\n`,
      );
    }
  });
});
