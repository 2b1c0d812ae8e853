// scripts/check-package.sh, which `npm run release` runs on the npm tarball: installed with
// `npm install -g --offline` into an empty prefix it must be esign alone, and the whole flow must
// run from it (scripts/exercise-esign.sh), `man esign` included when the package has man pages. A
// tarball of this checkout, changed the way a regression would change it, must fail.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

/** A tarball of this checkout's package (dist/ as built), its package.json and files changed by `change`. */
function tarball(change: (dir: string, pkg: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'esign-check-package-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: root });
  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', join(dir, `esign-${version}.tgz`), '-C', unpacked]);
  const manifest = join(unpacked, 'package', 'package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  change(join(unpacked, 'package'), pkg);
  writeFileSync(manifest, JSON.stringify(pkg, null, 2));
  const out = join(dir, 'out');
  mkdirSync(out);
  execFileSync('tar', ['-czf', join(out, `esign-${version}.tgz`), '-C', unpacked, 'package']);
  return join(out, `esign-${version}.tgz`);
}

const hasMan = spawnSync('man', ['--version']).status === 0;

const check = (file: string) =>
  spawnSync('bash', [join(root, 'scripts', 'check-package.sh'), file], { cwd: root, encoding: 'utf8' });

describe('scripts/check-package.sh', () => {
  it.runIf(hasMan)(
    'installs the package offline as esign alone and runs the whole flow from it, man esign included',
    () => {
      const run = check(
        // The package as npm pack makes it: its man pages (man/*.1) listed under "man".
        tarball(() => {}),
      );
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(
        /^npm install -g of esign-[\d.]+\.tgz: 1 package \(esign\), \d+ MB, [\d.]+ s$/m,
      );
      expect(run.stdout).toContain('create, batch of 3, completion, mcp, mcp install, man esign');
    },
  );

  it.runIf(hasMan)('fails a package with man pages that man cannot find (not linked by package.json)', () => {
    const run = check(
      tarball((_dir, pkg) => {
        delete pkg.man;
      }),
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^exercise-esign: man esign finds no page in .*\/prefix\/share\/man$/m);
  });

  it('fails a package with a runtime dependency: it cannot install offline, and would not be esign alone', () => {
    const run = check(
      tarball((_dir, pkg) => {
        pkg.dependencies = { 'left-pad': '1.3.0' };
      }),
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('check-package: npm install -g --offline failed');
  });
});
