// Taking a lock on a full disk (issue 21): the draft the lock is written to first is removed on
// every failure, and the error names the full disk and says to free space (not permissions). On a
// real tmpfs of 64 KiB (test/helpers/full-disk.ts).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/commands/sandbox.js';
import { acquireLock } from '../../src/fs/lock.js';
import { runCli } from '../helpers/context.js';
import { fillDisk, useSmallDisk } from '../helpers/full-disk.js';
import { useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_batch_9a8b7c6d5e4f3a2b';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();
const disk = useSmallDisk('esign-lock-full-');
const folder = disk.folder;
const outside = mkdtempSync(join(tmpdir(), 'esign-lock-full-input-'));

beforeAll(() => {
  if (disk.mounted) {
    mkdirSync(join(folder, 'config'), { recursive: true });
    fillDisk(join(folder, 'filler'));
  }
});

afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
});

const leftovers = () => readdirSync(folder).filter((name) => name !== 'filler' && name !== 'config');

describe('a lock on a full disk', () => {
  it('fails with the disk-full error and leaves no draft behind, however often it is tried', async (context) => {
    if (!disk.present(context)) return;
    const failures: unknown[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(
        acquireLock(join(folder, 'x.lock'), {
          busy: () => new Error('busy'),
          failed: (error) => {
            failures.push(error);
            return new Error('failed');
          },
        }),
      ).rejects.toThrow('failed');
    }
    expect(failures.map((error) => (error as NodeJS.ErrnoException).code)).toEqual([
      'ENOSPC',
      'ENOSPC',
      'ENOSPC',
    ]);
    expect(leftovers()).toEqual([]);
  });

  it('a batch names the full disk, says to free space, sends nothing and leaves nothing', async (context) => {
    if (!disk.present(context)) return;
    const input = join(outside, 'people.jsonl');
    writeFileSync(input, '{"signatory":{"name":"A","email":"a@example.com"}}\n');
    const output = join(folder, 'results.jsonl');
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await runCli(['envelope', 'batch', input, '--template', TEMPLATE, '--output', output], {
        env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `Cannot create ${output}.lock: no space left on the disk. Nothing was sent.`,
      );
      expect(result.stderr).toContain('Free some space on the disk that holds --output');
      expect(result.stderr).not.toContain('writable');
    }
    expect(server.requests).toHaveLength(0);
    expect(leftovers()).toEqual([]);
  });

  it('storing a token names the full disk too, and leaves the config folder as it was', async (context) => {
    if (!disk.present(context)) return;
    const configDir = join(folder, 'config');
    const result = await runCli(['login', '--with-token'], { configDir, stdin: TOKEN });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('no space left on the disk');
    expect(result.stderr).toContain('Free some space on the disk that holds the config folder');
    expect(result.stderr).not.toContain(TOKEN);
    expect(readdirSync(configDir)).toEqual([]);
  });

  it('a sandbox with --state there says the disk is full', async (context) => {
    if (!disk.present(context)) return;
    const started = startSandbox({ port: 0, statePath: join(folder, 'state.json') });
    await expect(started).rejects.toMatchObject({
      message: expect.stringContaining('no space left on'),
      hint: 'The disk is full: free some space on the disk that holds --state, or put --state on another disk.',
    });
    expect(leftovers()).toEqual([]);
  });
});
