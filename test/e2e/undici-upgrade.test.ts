// Dependencies are bundled as published (scripts/build.mjs): an upgrade within a dependency's semver
// range never needs a change to esign's build. Here, for undici: a copy of the project whose undici
// is a later 7.x whose files read differently (requires spelled otherwise, where the old build's
// exact-text patches looked for them, and a new internal module), built with the project's own build
// script, sends a real create to the sandbox.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { projectWithOwnCopyOf, scriptsUnder as scripts } from '../helpers/project-copy.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const run = promisify(execFile);
const MARKER = 'esign-upgrade-test-undici-7.99.0';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

/** Replaces every `from` in `file` (which must hold it) with `to`. */
function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text, `${file} holds ${from}`).toContain(from);
  writeFileSync(file, text.replaceAll(from, to));
}

/** A later undici 7: the same behaviour, other text. */
function upgrade(undici: string): void {
  const manifest = JSON.parse(readFileSync(join(undici, 'package.json'), 'utf8'));
  expect(manifest.version).toMatch(/^7\./);
  writeFileSync(join(undici, 'package.json'), JSON.stringify({ ...manifest, version: '7.99.0' }, null, 2));
  for (const file of scripts(join(undici, 'lib'))) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replaceAll("require('node:assert')", "require('assert')"));
  }
  const lib = (path: string) => join(undici, 'lib', path);
  edit(lib('dispatcher/client.js'), "const http = require('node:http')", "const http = require('http')");
  edit(lib('dispatcher/client.js'), "require('./client-h2.js')", "require('./client-h2')");
  edit(
    lib('dispatcher/client-h1.js'),
    "require('../llhttp/llhttp_simd-wasm.js')",
    "require('../llhttp/llhttp_simd-wasm')",
  );
  edit(
    lib('core/util.js'),
    "const { IncomingMessage } = require('node:http')",
    "const { IncomingMessage } = require('http')",
  );
  writeFileSync(lib('core/release.js'), `'use strict'\nmodule.exports = { release: '${MARKER}' }\n`);
  edit(
    lib('dispatcher/client-h1.js'),
    "const util = require('../core/util.js')",
    "const util = require('../core/util.js')\nconst { release } = require('../core/release.js')\nif (!release) throw new Error('no release')",
  );
}

describe('undici upgraded within its semver range', () => {
  it('builds with the unchanged build script and sends a real create', async () => {
    const { project, dependency: undici } = projectWithOwnCopyOf('undici');
    upgrade(undici);
    const build = await run(process.execPath, [join(project, 'scripts', 'build.mjs')], { cwd: project });
    expect(build.stderr).toBe('');
    // The bundle holds the upgraded undici, as published.
    const dist = join(project, 'dist');
    expect(scripts(dist).some((file) => readFileSync(file, 'utf8').includes(MARKER))).toBe(true);

    const result = await runBin(
      [
        'envelope',
        'create',
        '--template',
        ACME_OFFER,
        '--set',
        'company=Acme Corp',
        '--set',
        'role=Engineer',
        '--name',
        'Ada Lovelace',
        '--email',
        'ada@example.com',
        '--json',
      ],
      {
        bin: join(project, 'bin', 'esign.js'),
        env: {
          ESIGN_CONFIG_DIR: freshConfigDir(),
          ESIGN_BASE_URL: sandbox.baseUrl,
          ESIGN_TOKEN: tokenOf(sandbox),
        },
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout) as { signing_url: string; status: string };
    expect(envelope.status).toBe('ready');
    const page = await fetch(envelope.signing_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Ada Lovelace');
  });
});
