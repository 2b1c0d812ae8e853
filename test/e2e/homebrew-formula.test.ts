// The Homebrew formula `npm run release` writes (scripts/release-channels.mjs), run the way brew runs
// it: Homebrew cannot run here, so test/helpers/brew-stand-in.rb loads the formula as Ruby and
// carries out its install (the npm tarball with Homebrew's npm arguments into a prefix, completion
// for three shells, man pages when the package has them) and its `test do` block, against a real
// tarball of this checkout. Skipped where Ruby is not installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { channelFiles } from '../../scripts/release-channels.mjs';

const root = resolve(import.meta.dirname, '../..');
const STAND_IN = join(root, 'test', 'helpers', 'brew-stand-in.rb');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
const hasRuby = spawnSync('ruby', ['--version']).status === 0;

let tarball: string | undefined;

/** The package as `npm pack` makes it from this checkout's dist/ (packed once). */
function packed(): string {
  if (tarball) return tarball;
  const dir = mkdtempSync(join(tmpdir(), 'esign-brew-pack-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: root });
  tarball = join(dir, `esign-${version}.tgz`);
  return tarball;
}

/** The formula for `tarball`, as the release writes it, and brew's stand-in run on it. */
function brew(tarball: string, dir: string) {
  const sum = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  const files = channelFiles({
    version,
    repository: 'acme/esign',
    description: 'Command-line tool for the electronic-signature envelope service',
    license: 'MIT',
    date: '2026-12-01',
    sums: { [`esign-${version}.tgz`]: sum },
    tools: [],
    readOnlyTools: [],
  });
  const formula = join(dir, 'esign.rb');
  writeFileSync(formula, files['esign.rb']);
  const prefix = join(dir, 'Cellar', 'esign', version);
  const run = spawnSync('ruby', [STAND_IN, formula, tarball, prefix], {
    encoding: 'utf8',
    env: { ...process.env, HOME: dir, ESIGN_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' },
  });
  return { run, prefix };
}

describe.runIf(hasRuby)('the Homebrew formula, run by a stand-in for brew', () => {
  it('installs esign from the npm tarball on node, with completion for bash, zsh and fish, and passes its test', () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-brew-'));
    const { run, prefix } = brew(packed(), dir);
    expect(run.stderr).not.toMatch(/Error|failed/);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('ok  install');
    expect(run.stdout).toContain('ok  test do');
    expect(execFileSync(join(prefix, 'bin', 'esign'), ['--version'], { encoding: 'utf8' }).trim()).toBe(
      version,
    );
    // esign alone in libexec: the package has no dependency.
    expect(readdirSync(join(prefix, 'libexec', 'lib', 'node_modules'))).toEqual(['esign']);
    for (const file of [
      'etc/bash_completion.d/esign',
      'share/zsh/site-functions/_esign',
      'share/fish/vendor_completions.d/esign.fish',
    ]) {
      expect(readFileSync(join(prefix, file), 'utf8'), file).toContain('__complete');
    }
    // The man pages the package has (man/*.1), and none where it has none: the install does not
    // fail for their absence.
    const listing = execFileSync('tar', ['-tzf', packed()], { encoding: 'utf8' }).split('\n');
    const pages = listing
      .filter((path) => /^package\/man\/[^/]+\.1$/.test(path))
      .map((path) => path.slice(12));
    const man1 = join(prefix, 'share', 'man', 'man1');
    expect(existsSync(man1) ? readdirSync(man1).sort() : []).toEqual(pages.sort());
  });

  it('installs the man pages the package has (man/*.1), the reference of every command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-brew-man-'));
    const { run, prefix } = brew(packed(), dir);
    expect(run.status).toBe(0);
    const man1 = join(prefix, 'share', 'man', 'man1');
    expect(readFileSync(join(man1, 'esign.1'), 'utf8')).toContain('.TH');
    expect(readFileSync(join(man1, 'esign-envelope-create.1'), 'utf8')).toContain(String.raw`\-\-template`);
  });

  it('refuses a download whose SHA-256 is not the formula’s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-brew-sum-'));
    const download = join(dir, `esign-${version}.tgz`);
    writeFileSync(download, 'not the release');
    const sum = createHash('sha256').update('not the release').digest('hex');
    const formula = (
      channelFiles({
        version,
        repository: 'acme/esign',
        description: 'x',
        license: 'MIT',
        date: '2026-12-01',
        sums: { [`esign-${version}.tgz`]: sum.replace(/^./, sum[0] === '0' ? '1' : '0') },
        tools: [],
        readOnlyTools: [],
      }) as Record<string, string>
    )['esign.rb'] as string;
    writeFileSync(join(dir, 'esign.rb'), formula);
    const run = spawnSync('ruby', [STAND_IN, join(dir, 'esign.rb'), download, join(dir, 'prefix')], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('sha256 mismatch');
  });
});
