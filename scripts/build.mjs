// Builds dist/ for the npm install: esbuild's ES-module build with splitting, and the quick entry. main.js holds the
// command table and commander; each command, and each heavy library only some commands use, is
// imported when it runs and so lands in chunks of its own. Dependencies are bundled as published.
import { existsSync, rmSync } from 'node:fs';

// `npm install -g .` and the packed tarball have no dev dependencies, so nothing to build with:
// the bundle built by `npm ci` (or shipped in the tarball) is used as it is.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  if (existsSync(new URL('../dist/main.js', import.meta.url))) process.exit(0);
  console.error('esbuild is not installed: run `npm ci` first, then build (or install) again.');
  process.exit(1);
}
const { sharedBundleOptions } = await import('./bundle-options.mjs');

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await esbuild.build({
  ...sharedBundleOptions,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // The CommonJS dependencies (commander, undici) require() Node's built-ins.
  banner: {
    js: "const require=process.getBuiltinModule('node:module').createRequire(import.meta.url);",
  },
});

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
