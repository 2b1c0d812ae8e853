// The built binary never prints the token, even when a server echoes it back: JSON-escaped under
// --json, cut short to a prefix, its secret part without the prefix, URL-encoded; and server text
// never becomes a workflow command on stderr.
import { describe, expect, it } from 'vitest';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { json, useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_"quoted\\slash_5f1c9a7e3b2d4c6a';

const server = useScriptedServer({ resetAfterEach: false });

const run = (args: string[]) =>
  runBin([...CREATE_ARGS, ...args], {
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

/** Every 16-character slice of `text`. */
const slicesOf = (text: string) => [...Array(text.length - 15).keys()].map((at) => text.slice(at, at + 16));
/** The slices of `secret` that `text` holds (none, when redaction did its work). */
const leaked = (text: string, secret: string) => slicesOf(secret).filter((slice) => text.includes(slice));

const runWith = (token: string, args: string[], env: Record<string, string> = {}) =>
  runBin([...CREATE_ARGS, ...args], {
    env: { ESIGN_TOKEN: token, ESIGN_BASE_URL: server.baseUrl, ESIGN_CONFIG_DIR: freshConfigDir(), ...env },
  });

describe('redaction of a slice of the token, in its encodings', () => {
  const LIVE = 'tok_live_9c2f4e6a8b0d1f3e5a7c9e1b3d5f7a9c';

  it('a 422 that echoes the secret part without the public prefix: no 16 characters of it on stderr', async () => {
    const secretPart = LIVE.slice('tok_live_'.length);
    server.fallback(
      json(422, {
        message: `The token ${secretPart} may not create envelopes for this template.`,
        errors: { template_id: [`not visible to ${secretPart.slice(3)}`] },
      }),
    );
    for (const args of [[], ['--json']]) {
      const { code, stderr } = await runWith(LIVE, args);
      expect(code).toBe(5);
      expect(leaked(stderr, LIVE)).toEqual([]);
      expect(stderr).toContain('The token [redacted] may not create envelopes');
    }
  });

  it('a message that carries the token URL-encoded (upper- or lower-case hex): masked', async () => {
    const sanctum = '42|Zx9Kq2Lm7Np4Rs8Tv1Wy5Ab3Cd6Ef0Gh';
    const upper = encodeURIComponent(sanctum);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    server.fallback(json(403, { message: `See https://api.example.com/debug?t=${upper} (or ?t=${lower})` }));
    for (const args of [[], ['--json']]) {
      const { code, stderr } = await runWith(sanctum, args, { GITHUB_ACTIONS: 'true' });
      expect(code).toBe(4);
      for (const form of [sanctum, upper, lower]) expect(leaked(stderr, form)).toEqual([]);
      expect(stderr).toContain('debug?t=[redacted] (or ?t=[redacted])');
    }
  });
});

describe('server text never becomes a workflow command on stderr', () => {
  /** A line the runner takes as a command: `::` after leading white space, or `##[` anywhere. */
  const commandLines = (text: string) =>
    text.split(/\r\n|\r|\n/).filter((line) => /^\p{White_Space}*::/u.test(line) || line.includes('##['));

  it('an error field named ::stop-commands::x, printed indented, is made inert (in Actions or not)', async () => {
    server.fallback(
      json(422, {
        message: 'The given data was invalid.',
        errors: { '::stop-commands::x': ['is invalid'], '\u00a0::warning::y': ['##[error]fake'] },
      }),
    );
    const plain = await runWith(TOKEN, []);
    expect(plain.code).toBe(5);
    expect(plain.stderr).toContain(':\\x3astop-commands::x: is invalid');
    expect(commandLines(plain.stderr)).toEqual([]);

    const actions = await runWith(TOKEN, [], { GITHUB_ACTIONS: 'true' });
    expect(actions.code).toBe(5);
    // esign's own annotation is the one command
    expect(commandLines(actions.stderr)).toEqual([
      expect.stringMatching(/^::error title=esign%3A rejected \(exit 5\)::/),
    ]);

    const json_ = await runWith(TOKEN, ['--json'], { GITHUB_ACTIONS: 'true' });
    expect(json_.code).toBe(5);
    const lines = json_.stderr.trimEnd().split('\n');
    expect(commandLines(json_.stderr)).toEqual([lines[0]]);
    expect(JSON.parse(lines[1] as string).error.details).toContain('::stop-commands::x: is invalid');
  });
});
