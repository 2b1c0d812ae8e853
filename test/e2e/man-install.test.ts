// The man pages ship in the npm package and `npm install -g` installs them: after a global install
// of the packed tarball (its dependencies from npm's cache, nothing fetched), `man
// esign-envelope-create` shows the page with MANPATH pointing into the install.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const hasMan = spawnSync('man', ['--version']).status === 0;
const scratch = mkdtempSync(join(tmpdir(), 'esign-man-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!hasMan)('man pages after npm install -g', () => {
  it('man esign-envelope-create and man esign work; every page is linked into share/man/man1', () => {
    // dist/ is built by the test run (npm test's pretest); --ignore-scripts keeps pack from rebuilding it.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    const tarball = join(scratch, readdirSync(scratch).find((name) => name.endsWith('.tgz')) as string);
    const prefix = join(scratch, 'prefix');
    execFileSync(
      'npm',
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        tarball,
      ],
      { cwd: scratch, stdio: 'ignore' },
    );
    const env = { ...process.env, MANPATH: join(prefix, 'share', 'man'), MANWIDTH: '120' };
    const create = execFileSync('man', ['-P', 'cat', 'esign-envelope-create'], { env, encoding: 'utf8' });
    expect(create).toContain('esign-envelope-create - Create an envelope from a template');
    expect(create).toContain('--template <id|name>');
    expect(create).toContain('EXIT STATUS');
    const top = execFileSync('man', ['-P', 'cat', 'esign'], { env, encoding: 'utf8' });
    expect(top).toContain('esign-envelope(1)');
    const linked = readdirSync(join(prefix, 'share', 'man', 'man1'));
    expect(linked).toEqual(
      expect.arrayContaining(['esign.1', 'esign-envelope-batch.1', 'esign-mcp-install.1']),
    );
    expect(linked).toHaveLength(readdirSync(join(ROOT, 'man')).length);
  }, 120_000);
});
