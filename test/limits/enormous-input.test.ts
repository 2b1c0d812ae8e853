// A line of hundreds of MiB, as a user meets it through the built binary: exit 2 naming the file's
// line, never a RangeError or a stack trace, and nothing is sent. Run by `npm run test:limits`.
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useScriptedServer } from '../helpers/scripted-server.js';
import { runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_bytes_7c1e3a5b9d2f4e6a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();

function file(name: string, content: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'esign-bytes-')), name);
  writeFileSync(path, content);
  return path;
}

const env = () => ({ ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl });
const create = ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'ada@example.com'];

describe('an enormous line (600 MiB without a line break) through the built binary', () => {
  const HUGE = 600 * 1024 * 1024;
  const noStack = (stderr: string) => {
    expect(stderr).not.toContain('RangeError');
    expect(stderr).not.toMatch(/^\s+at /m);
  };

  it('in a JSONL batch: exit 2 naming the line; the lines around it are still checked; nothing is sent', async () => {
    const path = file(
      'huge.jsonl',
      '{"signatory":{"name":"Ada","email":"ada@example.com"}}\n{"merge_data":{"x":"',
    );
    truncateSync(path, HUGE); // a sparse file: 600 MiB of NUL bytes, no line break
    const result = await runBin(['envelope', 'batch', path, '--template', TEMPLATE], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 2: the line is longer than 64 MiB, the most one record may hold');
    noStack(result.stderr);
    expect(server.requests).toHaveLength(0);
  }, 60_000);

  it('in a CSV batch: exit 2 naming the line', async () => {
    const path = file('huge.csv', 'signatory_name,signatory_email\nAda,ada@example.com\nBob,');
    truncateSync(path, HUGE);
    const result = await runBin(['envelope', 'batch', path, '--template', TEMPLATE], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('line 3: the line is longer than 64 MiB');
    noStack(result.stderr);
    expect(server.requests).toHaveLength(0);
  }, 60_000);

  it('as a --data file: exit 2 naming the file and the limit', async () => {
    const path = file('huge.json', '{"x":"');
    truncateSync(path, HUGE);
    const result = await runBin([...create, '--data', path], { env: env(), timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--data ${path}: the file is larger than 64 MiB, the most merge data may hold.`,
    );
    noStack(result.stderr);
    expect(server.requests).toHaveLength(0);
  }, 60_000);
});
