// The npm package carries what runs: dist/ is one build of esign with its libraries, so package.json
// has no runtime dependency, and scripts/bundled-packages.mjs names every library inside the build
// (from esbuild's metafile), with the licence text each ships, for THIRD-PARTY-LICENSES.txt and the
// SBOM (scripts/release.mjs).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: build scripts in plain JavaScript, without type declarations
import { buildDist } from '../../scripts/bundle-options.mjs';
// @ts-expect-error: see above
import { bundledPackages, writeThirdPartyLicenses } from '../../scripts/bundled-packages.mjs';

const root = resolve(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const installed = (name: string) =>
  JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

type Bundled = { folder: string; name: string; version: string; license: string };

describe('the libraries inside the bundle', () => {
  it('are build inputs: package.json has no runtime dependency, and the design card’s libraries are dev dependencies', () => {
    expect(packageJson.dependencies ?? {}).toEqual({});
    for (const name of ['commander', 'undici', 'zod', 'chalk', 'conf', 'ora']) {
      expect(packageJson.devDependencies[name]).toBe(installed(name));
    }
    expect(packageJson.files).toContain('THIRD-PARTY-LICENSES.txt');
  });

  it('are named from the build itself, each with its exact version, licence and licence text', async () => {
    const { metafile } = await buildDist(build, { absWorkingDir: root, write: false, logLevel: 'error' });
    const packages: Bundled[] = bundledPackages(metafile, root);
    const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
    for (const name of [
      'commander',
      'undici',
      'zod',
      'chalk',
      'conf',
      'ora',
      '@modelcontextprotocol/server',
    ]) {
      expect(byName.get(name)).toMatchObject({ folder: `node_modules/${name}`, version: installed(name) });
    }
    // Only what went in: a dev tool is not in the bundle.
    expect(byName.has('vitest')).toBe(false);
    expect(byName.has('esbuild')).toBe(false);
    expect(packages.every((pkg) => pkg.license !== 'UNKNOWN')).toBe(true);

    const file = join(mkdtempSync(join(tmpdir(), 'esign-licences-')), 'THIRD-PARTY-LICENSES.txt');
    writeThirdPartyLicenses(packages, root, file);
    const text = readFileSync(file, 'utf8');
    for (const pkg of packages)
      expect(text).toContain(`\n${pkg.name}@${pkg.version}    licence: ${pkg.license}\n`);
    const undici = readFileSync(join(root, 'node_modules', 'undici', 'LICENSE'), 'utf8').trim();
    expect(text).toContain(undici);
  });
});
