// The npm install runs wherever npm put it: a folder whose path holds a space, `#` or `%` (a user
// named "Ada Lovelace", a project folder "esign #2") must not change how bin/esign.js finds dist/
// and the HTTP parser in it (dist/llhttp/, read by path, never through a URL in which `#` would
// start a fragment).
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CREATE_ARGS, LIVE_TOKEN } from '../helpers/create-command.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const server = useScriptedServer();
const root = resolve(import.meta.dirname, '../..');

describe('an install folder with a space, # and % in its path', () => {
  it('sends a create and prints its URL, as from the checkout', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'esign install #2 ')), 'Ada Lovelace 100%20');
    for (const part of ['bin', 'dist', 'package.json'])
      cpSync(join(root, part), join(folder, part), { recursive: true });
    server.script(ok());
    const result = await runBin([...CREATE_ARGS, '-q'], {
      bin: join(folder, 'bin', 'esign.js'),
      env: { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: LIVE_TOKEN },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^https:\/\/\S+\n$/);
    expect(server.requests).toHaveLength(1);
  });
});
