// scripts/smoke.mjs is what the workflows run on macOS and Windows (the npm install there, and each
// executable on its own system): here it runs against the built bin/esign.js, so a broken smoke
// test is found before a runner meets it, and it must fail when esign is not the version it claims.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';

const SMOKE = resolve(import.meta.dirname, '../../scripts/smoke.mjs');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

function smoke(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      [SMOKE, command],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
}

describe.skipIf(process.platform === 'win32')('scripts/smoke.mjs', () => {
  it('passes with esign: --version, then a create against its own sandbox', async () => {
    const run = await smoke(BIN);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`esign --version: ${pkg.version}\n`);
    expect(run.stdout).toMatch(/esign envelope create: [0-9A-Z]{26} \(ready\)\n/);
    expect(run.stdout).toContain('smoke passed on');
  });

  it('fails, naming the step, when esign is not the version it should be', async () => {
    const fake = join(mkdtempSync(join(tmpdir(), 'esign-smoke-')), 'esign');
    writeFileSync(fake, '#!/bin/sh\necho 0.0.0-other\n', { mode: 0o755 });
    const run = await smoke(fake);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`smoke: esign --version printed "0.0.0-other", not ${pkg.version}`);
  });
});
