// Builds dist/ for the npm install (the options: distBuildOptions in scripts/bundle-options.mjs), and
// THIRD-PARTY-LICENSES.txt beside it: the licence of every library inside the bundle, which the
// package ships (scripts/bundled-packages.mjs). Dependencies are bundled as published. The libraries
// are build inputs (devDependencies): the published package installs nothing.
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// `npm install -g .` and the packed tarball have no dev dependencies, so nothing to build with:
// the bundle built by `npm ci` (or shipped in the tarball) is used as it is.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  if (existsSync(new URL('../dist/main.js', import.meta.url))) process.exit(0);
  console.error('esbuild is not installed: run `npm ci` first, then build (or install) again.');
  process.exit(1);
}
const { distBuildOptions } = await import('./bundle-options.mjs');
const { bundledPackages, LICENSES_FILE, writeThirdPartyLicenses } = await import('./bundled-packages.mjs');

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const { metafile } = await esbuild.build(distBuildOptions);
writeThirdPartyLicenses(bundledPackages(metafile, root), root, `${root}${LICENSES_FILE}`);
