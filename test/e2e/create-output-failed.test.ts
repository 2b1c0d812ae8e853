// `envelope create` whose standard output cannot be written (`-q > /dev/full`, `--json | true`):
// the envelope exists, so exit 9 names it on stderr (id and signing URL) and says not to create it
// again. Through the built binary, against a scripted server that counts the creates.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, gather, type SpawnResult } from '../helpers/spawn.js';

const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const ID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3F';
const URL_ = `https://sign.example.com/s/${ID}`;
const CREATE = ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'a@example.com'];
const server = useScriptedServer();

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  ESIGN_TOKEN: 'tok_live_9c2f4e6a8b0d1f3e5a7c9e1b3d5f7a9c',
  ESIGN_BASE_URL: server.baseUrl,
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ...extra,
});

/** Runs esign with stdout on /dev/full (every write fails with ENOSPC). */
function toDevFull(args: string[], extra: Record<string, string> = {}): Promise<SpawnResult> {
  const full = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [BIN, ...args], { env: env(extra), stdio: ['ignore', full, 'pipe'] });
  closeSync(full);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr }));
  });
}

describe.skipIf(!existsSync('/dev/full'))('create whose standard output fails', () => {
  it('-q > /dev/full: exit 9, the envelope id and signing URL on stderr, "do not create it again"', async () => {
    server.script(ok({ envelope_id: ID, signing_url: URL_ }));
    const { code, stderr } = await toDevFull([...CREATE, '-q']);
    expect(code).toBe(9);
    expect(server.requests).toHaveLength(1);
    expect(stderr).toContain('Could not write to standard output: the disk is full (ENOSPC).');
    expect(stderr).toContain(`envelope ${ID}, signing URL ${URL_}`);
    expect(stderr).toContain(`The envelope was created (${ID})`);
    expect(stderr).toContain('Do not create it again.');
  });

  it('--json | (a reader that is gone): exit 9, stderr exactly one JSON error that names the envelope', async () => {
    server.script(ok({ envelope_id: ID, signing_url: URL_ }));
    const child = spawn(process.execPath, [BIN, ...CREATE, '--json'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader closes its end before esign writes (it writes only after the server's answer).
    child.stdout.destroy();
    const { code, stderr } = await gather(child).done;
    expect(code).toBe(9);
    const error = JSON.parse(stderr).error;
    expect(error).toMatchObject({ code: 'output_failed', status: null });
    expect(error.message).toContain('the reader closed the pipe (EPIPE)');
    expect(error.details).toEqual([`envelope ${ID}, signing URL ${URL_}`]);
    expect(error.hint).toContain('Do not create it again.');
    // Under --json nothing is "above": the envelope is in the details beside the hint.
    expect(error.hint).not.toContain('above');
    expect(error.hint).toContain('details');
  });

  it('in GitHub Actions: the URL is masked before it is reported, and the step outputs are still written', async () => {
    server.script(ok({ envelope_id: ID, signing_url: URL_ }));
    const dir = mkdtempSync(join(tmpdir(), 'esign-create-full-'));
    const output = join(dir, 'output');
    writeFileSync(output, '');
    const { code, stderr } = await toDevFull([...CREATE, '-q'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: output,
    });
    expect(code).toBe(9);
    const lines = stderr.split('\n');
    expect(lines[0]).toBe(`::add-mask::${URL_}`);
    expect(lines[1]).toMatch(
      /^::error title=esign%3A output_failed \(exit 9\)::Could not write to standard output/,
    );
    expect(stderr).toContain(`envelope ${ID}, signing URL ${URL_}`);
    expect(readFileSync(output, 'utf8')).toContain(`envelope_id=${ID}\nsigning_url=${URL_}\n`);
  });
});
