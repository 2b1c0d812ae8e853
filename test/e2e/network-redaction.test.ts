// The built binary never prints the token, even when a server echoes it back: JSON-escaped under
// --json, or cut short to a prefix.
import { describe, expect, it } from 'vitest';
import { json, useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_"quoted\\slash_5f1c9a7e3b2d4c6a';
const CREATE = [
  'envelope',
  'create',
  '--template',
  '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  '--name',
  'Ada',
  '--email',
  'a@example.com',
];

const server = useScriptedServer({ resetAfterEach: false });

const run = (args: string[]) =>
  runBin([...CREATE, ...args], {
    env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ESIGN_CONFIG_DIR: freshConfigDir() },
  });

describe('redaction of a token echoed by the server', () => {
  it('under --json, the JSON-escaped token is masked', async () => {
    server.fallback((request) => json(500, { message: `bad header: ${request.headers.authorization}` }));
    const { code, stderr } = await run(['--json']);
    expect(code).toBe(7);
    const escaped = JSON.stringify(TOKEN).slice(1, -1);
    expect(stderr).not.toContain(escaped);
    expect(JSON.parse(stderr).error.message).toContain('bad header: Bearer [redacted]');
  });

  it('a prefix of 16 characters or more is masked too', async () => {
    server.fallback((request) =>
      json(401, { message: `token ${String(request.headers.authorization).slice(7, 7 + 20)}… is unknown` }),
    );
    const { code, stderr } = await run([]);
    expect(code).toBe(3);
    expect(stderr).not.toContain(TOKEN.slice(0, 16));
    expect(stderr).toContain('token [redacted]… is unknown');
  });
});
