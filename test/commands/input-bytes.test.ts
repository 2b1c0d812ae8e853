// Bad bytes in input as a user meets them: a file that is not UTF-8 is exit 2 naming the file's line
// and byte offset, and nothing is sent (a line of hundreds of MiB: test/limits/enormous-input.test.ts).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';
import { useScriptedServer } from '../helpers/scripted-server.js';
import { BIN } from '../helpers/spawn.js';

const TOKEN = 'tok_bytes_7c1e3a5b9d2f4e6a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();

function file(name: string, content: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'esign-bytes-')), name);
  writeFileSync(path, content);
  return path;
}

const env = () => ({ ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl });
const latin1 = (text: string) => Buffer.from(text, 'latin1');
const create = ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'ada@example.com'];

describe('input that is not UTF-8', () => {
  it('envelope batch: a Latin-1 CSV from a spreadsheet is exit 2 naming each bad line and byte offset; nothing is sent', async () => {
    const csv = file(
      'people.csv',
      latin1(
        'signatory_name,signatory_email\nAda,ada@example.com\nRen\xe9e,renee@example.com\nBob,bob@example.com\n',
      ),
    );
    const result = await runCli(['envelope', 'batch', csv, '--template', TEMPLATE], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('1 of 3 records is invalid (1 problem); nothing was sent.');
    expect(result.stderr).toContain('line 3: not UTF-8 text: byte 0xE9 at byte offset 54 is not valid UTF-8');
    expect(result.stderr).not.toContain('\ufffd');
    expect(server.requests).toHaveLength(0);
  });

  it('envelope batch: a JSONL line in Latin-1 is exit 2 naming the line; nothing is sent', async () => {
    const jsonl = file(
      'people.jsonl',
      latin1(
        '{"signatory":{"name":"Ada","email":"ada@example.com"}}\n{"signatory":{"name":"Ren\xe9e","email":"renee@example.com"}}\n',
      ),
    );
    const result = await runCli(['envelope', 'batch', jsonl, '--template', TEMPLATE], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2: not UTF-8 text: byte 0xE9 at byte offset 80 ');
    expect(server.requests).toHaveLength(0);
  });

  it('envelope create --data: a Latin-1 file is exit 2 naming the file, line and byte offset; nothing is sent', async () => {
    const data = file('data.json', latin1('{\n  "company": "Soci\xe9t\xe9 G\xe9n\xe9rale"\n}\n'));
    const result = await runCli([...create, '--data', data], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--data ${data}: line 2: not UTF-8 text: byte 0xE9 at byte offset 20 is not valid UTF-8`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('envelope create --data - : Latin-1 on standard input is exit 2 too', async () => {
    // Through the binary: the test context's stdin is text, which would arrive as UTF-8.
    const bin = await runBinWithBytes(
      [...create, '--data', '-', '--dry-run'],
      latin1('{"company":"Soci\xe9t\xe9"}'),
    );
    expect(bin.code).toBe(2);
    expect(bin.stderr).toContain(
      '--data - (standard input): line 1: not UTF-8 text: byte 0xE9 at byte offset 16 is not valid UTF-8',
    );
    expect(bin.stdout).toBe('');
  });
});

async function runBinWithBytes(args: string[], stdin: Buffer) {
  const input = openSync(file('stdin.bin', stdin), 'r');
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env() },
      stdio: [input, 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(input);
      resolve({ code, stdout, stderr });
    });
  });
}
