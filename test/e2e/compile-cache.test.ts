// Node's compile cache is kept per user: by default Node puts it in one folder of the system's
// temporary folder, which the first user to create it owns, and everyone else silently runs without.

import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/spawn.js';

// Node < 22.1 has no compile cache to place.
describe.skipIf(typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function')(
  'the compile cache',
  () => {
    it("lives in the user's cache folder (XDG_CACHE_HOME/esign/compile-cache)", async () => {
      const cache = mkdtempSync(join(tmpdir(), 'esign-cache-'));
      const help = await runBin(['--help'], { env: { XDG_CACHE_HOME: cache } });
      expect(help.code).toBe(0);
      const folder = join(cache, 'esign', 'compile-cache');
      expect(existsSync(folder)).toBe(true);
      expect(readdirSync(folder).length).toBeGreaterThan(0);
    });

    it('NODE_COMPILE_CACHE, when set, wins', async () => {
      const cache = mkdtempSync(join(tmpdir(), 'esign-cache-'));
      const chosen = join(cache, 'chosen');
      const help = await runBin(['--help'], { env: { XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: chosen } });
      expect(help.code).toBe(0);
      expect(readdirSync(chosen).length).toBeGreaterThan(0);
      expect(existsSync(join(cache, 'esign'))).toBe(false);
    });
  },
);
