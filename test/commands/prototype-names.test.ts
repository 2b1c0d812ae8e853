// Names that are also properties of every plain object (`constructor`, `toString`, `valueOf`,
// `hasOwnProperty`) are names like any other: a profile, a help topic, a project file's profile or
// a request field, never Object.prototype's function of that name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';
import { postCreate, sandboxPerTest, validBody } from '../sandbox/helpers.js';

const TOKEN = 'tok_live_proto_9e7c5a3b1d2f4a6c';
const NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'];

const startSandbox = sandboxPerTest();

describe('names that plain objects inherit', () => {
  it.each(NAMES)(
    'profile %s: login stores the token, config list shows it, logout removes it',
    async (name) => {
      const login = await runCli(['login', '--with-token', '--profile', name], { stdin: TOKEN });
      expect(login.code).toBe(0);
      const { configDir } = login.ctx;
      const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
      expect(Object.getOwnPropertyDescriptor(config.profiles, name)?.value).toEqual({
        token: TOKEN,
        token_stored_at: expect.any(String),
      });
      const list = await runCli(['config', 'list', '--profile', name, '--json'], { configDir });
      expect(JSON.parse(list.stdout)).toMatchObject({ profile: name, token: '****4a6c', profiles: [name] });
      const logout = await runCli(['logout', '--profile', name], { configDir });
      expect(logout.code).toBe(0);
      expect(logout.stderr).toContain(`Removed the token of profile '${name}'`);
    },
  );

  it('a profile named like an inherited property that is not stored is unknown, not a function', async () => {
    const login = await runCli(['login', '--with-token', '--profile', 'real'], { stdin: TOKEN });
    const { configDir } = login.ctx;
    for (const command of [['config', 'list'], ['logout'], ['profile', 'delete']]) {
      const argv = command[1] === 'delete' ? [...command, 'toString'] : [...command, '--profile', 'toString'];
      const result = await runCli(argv, { configDir });
      // logout: the contract's exit 0 when there is no token to remove; the same words, as a warning.
      expect(result.code, argv.join(' ')).toBe(command[0] === 'logout' ? 0 : 2);
      expect(result.stderr, argv.join(' ')).toContain("Profile 'toString' does not exist");
    }
    const login2 = await runCli(['login', '--with-token', '--profile', 'toString'], {
      configDir,
      stdin: TOKEN,
    });
    expect(login2.stderr).not.toContain('replaced');
  });

  it.each(NAMES)('esign help %s is an unknown topic (exit 2), not a crash', async (name) => {
    const result = await runCli(['help', name]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`unknown command or topic '${name}'`);
  });

  it.each(NAMES)('the sandbox answers 422 for a request field named %s', async (name) => {
    const sandbox = await startSandbox();
    const answer = await postCreate(sandbox, { ...validBody(), [name]: 'x' });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.json)).toContain('is not a field of this request');
  });
});
