// What `esign --help` loads, watched from inside the built binary (test/helpers/process-watch.ts):
// start-up is a feature, and a Node built-in loaded for every command is paid by every command.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, bundleHelper, freshConfigDir, gather } from '../helpers/spawn.js';

let dir: string;
let hook: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'esign-startup-'));
  hook = await bundleHelper('process-watch', dir);
});

async function builtinsOf(args: string[]): Promise<string[]> {
  const report = join(dir, `watch-${Math.random().toString(36).slice(2)}.json`);
  const child = spawn(process.execPath, ['--import', pathToFileURL(hook).href, BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ESIGN_CONFIG_DIR: freshConfigDir(),
      ESIGN_WATCH_REPORT: report,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = await gather(child, 15_000).done;
  expect(result.code).toBe(0);
  return (JSON.parse(readFileSync(report, 'utf8')) as { builtins: string[] }).builtins;
}

describe('start-up', () => {
  it('--help loads no node:crypto (it was loaded for every command, for one randomUUID)', async () => {
    const builtins = await builtinsOf(['--help']);
    expect(builtins).toContain('NativeModule fs');
    expect(builtins.filter((name) => /^NativeModule (internal\/)?crypto\b/.test(name))).toEqual([]);
  });
});
