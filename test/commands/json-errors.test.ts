// `--json` means one JSON object on stderr when a command fails, always: whatever the command, the
// failure, and whatever notes or warnings it had on the way (they go inside the object, or nowhere).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, runCli, type TestContextOptions } from '../helpers/context.js';
import { json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_json_purity_5f1c9a7e3b2d4c6a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const CREATE = [
  'envelope',
  'create',
  '--template',
  TEMPLATE,
  '--name',
  'Ada',
  '--email',
  'ada@example.com',
  '--json',
];

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** A config folder whose profile 'default' holds a stored token (so ESIGN_TOKEN overrides it). */
function storedTokenConfig(): string {
  const dir = join(createTestContext().configDir, 'stored');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ profiles: { default: { token: 'tok_stored_abcdef123456' } } }),
    {
      mode: 0o600,
    },
  );
  return dir;
}

function brokenConfig(): string {
  const dir = join(createTestContext().configDir, 'broken');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), '{"profiles": ', { mode: 0o600 });
  return dir;
}

interface Case {
  name: string;
  argv: string[];
  options?: () => TestContextOptions;
  before?: () => void;
  code: number;
  errorCode: string;
  /** Must be folded into the object as a note. */
  note?: RegExp;
}

const api = () => ({ ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl });

const cases: Case[] = [
  { name: 'create: missing flags', argv: ['envelope', 'create', '--json'], code: 2, errorCode: 'usage' },
  {
    name: 'create: a bad option value in a global flag',
    argv: [...CREATE, '--timeout', 'soon'],
    options: () => ({ env: api() }),
    code: 2,
    errorCode: 'usage',
  },
  { name: 'create: an unknown flag', argv: [...CREATE, '--colour'], code: 2, errorCode: 'usage' },
  {
    name: 'create: unreadable --data',
    argv: [...CREATE, '--data', '/nonexistent/file.json'],
    options: () => ({ env: api() }),
    code: 2,
    errorCode: 'invalid_input',
  },
  {
    name: 'create: no base URL',
    argv: CREATE,
    options: () => ({ env: { ESIGN_TOKEN: TOKEN } }),
    code: 2,
    errorCode: 'missing_setting',
  },
  {
    name: 'create: no token',
    argv: CREATE,
    options: () => ({ env: { ESIGN_BASE_URL: server.baseUrl } }),
    code: 3,
    errorCode: 'unauthenticated',
  },
  {
    name: 'create: 401 with ESIGN_TOKEN overriding a stored token (the note goes inside)',
    argv: CREATE,
    options: () => ({ env: api(), configDir: storedTokenConfig() }),
    before: () => server.script(json(401, { message: 'Unauthenticated.' })),
    code: 3,
    errorCode: 'unauthenticated',
    note: /ESIGN_TOKEN/,
  },
  {
    name: 'create: 403',
    argv: CREATE,
    options: () => ({ env: api() }),
    before: () => server.script(json(403, { message: 'Forbidden.' })),
    code: 4,
    errorCode: 'forbidden',
  },
  {
    name: 'create: 422',
    argv: CREATE,
    options: () => ({ env: api() }),
    before: () =>
      server.script(json(422, { message: 'Invalid.', errors: { merge_data: ['salary is required'] } })),
    code: 5,
    errorCode: 'rejected',
  },
  {
    name: 'create: 500',
    argv: CREATE,
    options: () => ({ env: api() }),
    before: () => server.script(json(500, { message: 'Oops.' })),
    code: 7,
    errorCode: 'server_error',
  },
  {
    name: 'create: connection refused',
    argv: CREATE,
    options: () => ({ env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: 'http://127.0.0.1:9/api/v1' } }),
    code: 6,
    errorCode: 'network',
  },
  {
    name: 'status --json: a broken config file',
    argv: ['status', '--json'],
    options: () => ({ configDir: brokenConfig() }),
    code: 1,
    errorCode: 'config_file',
  },
  {
    name: 'config list --json: a broken config file',
    argv: ['config', 'list', '--json'],
    options: () => ({ configDir: brokenConfig() }),
    code: 1,
    errorCode: 'config_file',
  },
  {
    name: 'config list --json: a bad profile name',
    argv: ['config', 'list', '--json', '--profile', 'no spaces'],
    code: 2,
    errorCode: 'usage',
  },
  {
    name: 'sandbox --json: a bad flag',
    argv: ['sandbox', '--json', '--port', 'x'],
    code: 2,
    errorCode: 'usage',
  },
];

describe('--json failures are exactly one JSON object on stderr', () => {
  it.each(cases)('$name', async (c) => {
    c.before?.();
    const result = await runCli(c.argv, c.options?.() ?? {});
    expect(result.code).toBe(c.code);
    expect(result.stdout).toBe('');
    const parsed = JSON.parse(result.stderr) as { error: Record<string, unknown> };
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(Object.keys(parsed)).toEqual(['error']);
    expect(parsed.error.code).toBe(c.errorCode);
    expect(typeof parsed.error.message).toBe('string');
    expect(result.stderr).not.toContain(TOKEN);
    if (c.note) expect((parsed.error.notes as string[]).join('\n')).toMatch(c.note);
  });

  it('`--set --json` gives --set the value "--json": the error is plain text, not JSON', async () => {
    const result = await runCli(['envelope', 'create', '--template', 'nope', '--set', '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: /);
    expect(() => JSON.parse(result.stderr)).toThrow();
  });

  it('--verbose with --json puts the trace inside the object', async () => {
    const result = await runCli([...CREATE, '--verbose'], {
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: 'http://127.0.0.1:9/api/v1' },
    });
    expect(result.code).toBe(6);
    const parsed = JSON.parse(result.stderr) as { error: { trace?: string; notes?: string[] } };
    expect(parsed.error.trace).toMatch(/NetworkError/);
    expect(parsed.error.notes?.join('\n')).toMatch(/base URL/);
  });
});
