// The spinner of `envelope create` follows the run's terminal decision (ctx.terminal): coloured
// only when the context says so, plain with FORCE_COLOR=0 or NO_COLOR, absent with TERM=dumb, in
// CI and where stderr is not a terminal. Through the CLI with a TTY-flagged stderr.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';
import { CREATE_ARGS, LIVE_TOKEN } from '../helpers/create-command.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';

const server = useScriptedServer();
// SGR: the escape sequences that set colours (ESC [ … m).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is the point
const COLOUR = /\u001b\[[\d;]*m/;

async function createWith(env: Record<string, string>, stderrTTY = true) {
  server.script(ok());
  const result = await runCli(CREATE_ARGS, {
    stderrTTY,
    env: { ESIGN_TOKEN: LIVE_TOKEN, ESIGN_BASE_URL: server.baseUrl, ...env },
  });
  expect(result.code).toBe(0);
  return result.stderr;
}

describe('envelope create: the spinner asks the context', () => {
  it('is drawn and coloured on a terminal the context calls colourful (FORCE_COLOR=1)', async () => {
    const stderr = await createWith({ FORCE_COLOR: '1' });
    expect(stderr).toContain('Creating envelope…');
    expect(stderr).toMatch(COLOUR);
  });

  it.each([
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }],
    ['NO_COLOR=1', { NO_COLOR: '1' }],
  ])('is drawn without colour with %s', async (_name, env) => {
    const stderr = await createWith(env);
    expect(stderr).toContain('Creating envelope…');
    expect(stderr).not.toMatch(COLOUR);
  });

  it.each([
    ['TERM=dumb', { TERM: 'dumb' }, true],
    ['TERM=dumb with FORCE_COLOR=1', { TERM: 'dumb', FORCE_COLOR: '1' }, true],
    ['CI=true', { CI: 'true' }, true],
    ['stderr not a terminal', { FORCE_COLOR: '1' }, false],
  ])('is not drawn at all with %s: no escape sequence on stderr', async (_name, env, tty) => {
    const stderr = await createWith(env, tty);
    expect(stderr).not.toContain('Creating envelope…');
    expect(stderr).not.toContain('\u001b[');
  });
});

describe('envelope batch: the progress line asks the context', () => {
  async function batchWith(env: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'esign-progress-'));
    const file = join(dir, 'people.jsonl');
    writeFileSync(file, `${JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' } })}\n`);
    server.fallback(ok());
    const result = await runCli(
      [
        'envelope',
        'batch',
        file,
        '--template',
        '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
        '--output',
        join(dir, 'out.jsonl'),
      ],
      { stderrTTY: true, env: { ESIGN_TOKEN: LIVE_TOKEN, ESIGN_BASE_URL: server.baseUrl, ...env } },
    );
    expect(result.code).toBe(0);
    return result.stderr;
  }

  it('is drawn in colour where the context says so (FORCE_COLOR=1)', async () => {
    const stderr = await batchWith({ FORCE_COLOR: '1' });
    expect(stderr).toContain('0/1');
    expect(stderr).toMatch(COLOUR);
  });

  it('is drawn without colour with FORCE_COLOR=0', async () => {
    const stderr = await batchWith({ FORCE_COLOR: '0' });
    expect(stderr).toContain('0/1');
    expect(stderr).not.toMatch(COLOUR);
  });

  it('is not drawn with TERM=dumb: no escape sequence on stderr', async () => {
    const stderr = await batchWith({ TERM: 'dumb' });
    expect(stderr).not.toContain('0/1');
    expect(stderr).not.toContain('\u001b[');
  });
});
