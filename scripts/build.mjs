// Builds dist/ for the npm install (the options: buildDist in scripts/bundle-options.mjs), and
// THIRD-PARTY-LICENSES.txt beside it: the licence of every library inside the bundle, which the
// package ships (scripts/bundled-packages.mjs). Dependencies are bundled as published. The libraries
// are build inputs (devDependencies): the published package installs nothing.
// It also writes the quick entry (dist/quick.cjs): help and Tab answered from the command table.
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
const { buildDist, sharedBundleOptions } = await import('./bundle-options.mjs');
const { bundledPackages, LICENSES_FILE, writeThirdPartyLicenses } = await import('./bundled-packages.mjs');

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const { metafile } = await buildDist(esbuild.build);
writeThirdPartyLicenses(bundledPackages(metafile, root), root, `${root}${LICENSES_FILE}`);

// The quick entry (src/quick.ts): help and Tab from the command table, one CommonJS file that
// bin/esign.js requires before anything else is loaded.
await esbuild.build({
  ...sharedBundleOptions,
  entryPoints: { quick: 'src/quick.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // A command's module is loaded by its declaration only when the command runs, which the quick
  // entry never does: its lazy imports are left out, not bundled in.
  plugins: [
    {
      name: 'lazy-imports-stay-out',
      setup(build) {
        build.onResolve({ filter: /.*/ }, (args) =>
          args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
        );
      },
    },
  ],
});
