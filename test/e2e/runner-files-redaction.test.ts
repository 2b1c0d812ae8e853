// What esign writes to the GitHub Actions runner's files goes through the one redaction before any
// escaping, through the built binary against a hostile scripted server: a signing URL that carries
// the token, and an API message that echoes it (with the underscores Markdown escaping would turn
// into `tok\_live\_…`, which neither our redaction nor the runner's masker would then recognise).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, ok, useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_live_9c2f4e6a8b0d1f3e5a7c9e1b3d5f7a9c';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const server = useScriptedServer();

/** Every 16-character slice of `secret` that `text` holds. */
const leaked = (text: string, secret: string) =>
  [...Array(secret.length - 15).keys()]
    .map((at) => secret.slice(at, at + 16))
    .filter((slice) => text.includes(slice));
/** The token as the job summary's Markdown escaping would write it. */
const markdownEscaped = TOKEN.replace(/[\\`*_{}[\]()#+\-.!|~]/g, (c) => `\\${c}`);

function runnerFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-runner-redact-'));
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(files.GITHUB_OUTPUT, '');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '');
  return { dir, files };
}

const env = (files: Record<string, string>) => ({
  ESIGN_TOKEN: TOKEN,
  ESIGN_BASE_URL: server.baseUrl,
  ESIGN_CONFIG_DIR: freshConfigDir(),
  GITHUB_ACTIONS: 'true',
  ...files,
});

describe('the runner files hold no token, and a mask names exactly what is written', () => {
  it('create: a signing URL that carries the token is written redacted to $GITHUB_OUTPUT, stdout and its mask alike', async () => {
    server.script(ok({ signing_url: `https://sign.example.com/s/${TEMPLATE}?token=${TOKEN}` }));
    const { files } = runnerFiles();
    const result = await runBin(
      ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'a@example.com', '-q'],
      {
        env: env(files),
      },
    );
    expect(result.code).toBe(0);
    const outputs = readFileSync(files.GITHUB_OUTPUT, 'utf8');
    expect(leaked(outputs, TOKEN)).toEqual([]);
    const written = /^signing_url=(.*)$/m.exec(outputs)?.[1];
    expect(written).toBe(`https://sign.example.com/s/${TEMPLATE}?token=[redacted]`);
    expect(result.stdout).toBe(`${written}\n`);
    expect(result.stderr).toBe(`::add-mask::${written}\n`);
  });

  it('batch: an API message that echoes the token is redacted in the job summary (before its Markdown escaping) and in the results file', async () => {
    server.fallback(json(422, { message: `Template ${TEMPLATE} is not shared with token ${TOKEN}.` }));
    const { dir, files } = runnerFiles();
    const input = join(dir, 'records.jsonl');
    writeFileSync(
      input,
      `${JSON.stringify({ signatory: { name: 'Ada', email: 'a@example.com' } })}\n${JSON.stringify({ signatory: { name: 'Bob', email: 'b@example.com' } })}\n`,
    );
    const results = join(dir, 'results.jsonl');
    const result = await runBin(['envelope', 'batch', input, '--template', TEMPLATE, '--output', results], {
      env: env(files),
    });
    expect(result.code).toBe(8);
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('\\[redacted\\]');
    expect(leaked(summary, TOKEN)).toEqual([]);
    expect(leaked(summary, markdownEscaped)).toEqual([]);
    expect(leaked(readFileSync(results, 'utf8'), TOKEN)).toEqual([]);
    expect(leaked(readFileSync(files.GITHUB_OUTPUT, 'utf8'), TOKEN)).toEqual([]);
    expect(leaked(result.stderr, TOKEN)).toEqual([]);
    // The batch's own annotation reaches the runner as a command (not made inert), redacted.
    const annotation = result.stderr
      .split('\n')
      .find((line) => line.startsWith('::error title=esign%3A 2 records failed'));
    expect(annotation).toContain('token [redacted]');
  });
});
