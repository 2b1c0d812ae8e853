// A command whose run never settles (a promise nothing resolves: a bug) must not end the process
// with exit 0 and nothing said. The status command's module is swapped, in the built binary, for one
// whose run waits for ever (module.registerHooks, Node >= 22.15): the process ends with nothing left
// to do, and says that it ended before the command finished, with the internal exit code.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, freshConfigDir, gather } from '../helpers/spawn.js';

const HOOK = `
import { registerHooks } from 'node:module';
registerHooks({
  load(url, context, nextLoad) {
    if (/\\/dist\\/chunks\\/status-[A-Z0-9]+\\.js$/.test(url)) {
      return { format: 'module', shortCircuit: true, source: 'export async function run() { await new Promise(() => {}); }' };
    }
    return nextLoad(url, context);
  },
});
`;

describe('a run that never finishes', () => {
  it.skipIf(!('registerHooks' in nodeModule))(
    'is an internal error (exit 1), said on stderr, never exit 0',
    async () => {
      const hook = join(mkdtempSync(join(tmpdir(), 'esign-unfinished-')), 'hook.mjs');
      writeFileSync(hook, HOOK);
      const child = spawn(process.execPath, ['--import', pathToFileURL(hook).href, BIN, 'status'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          ESIGN_CONFIG_DIR: freshConfigDir(),
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.end();
      const result = await gather(child, 15_000).done;
      expect(result.stderr).toContain('esign ended before the command finished');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
    },
  );
});
