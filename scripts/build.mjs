// Builds one ESM bundle in dist/: the entry holds commander and the command table; every command
// (and each heavy library it needs) lands in a chunk that is loaded only when that command runs.
// (The single executable is built by scripts/build-binary.mjs, from the same sources, unsplit.)
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

// `npm install -g .` and the packed tarball have no dev dependencies, so nothing to build with:
// the bundle built by `npm ci` (or shipped in the tarball) is used as it is.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  if (existsSync(new URL('../dist/main.js', import.meta.url))) process.exit(0);
  console.error('esbuild is not installed: run `npm ci` first, then build (or install) again.');
  process.exit(1);
}
const { requireBanner, sharedBundleOptions } = await import('./bundle-options.mjs');
const { lazyBuiltins } = await import('./lazy-builtins.mjs');

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

// The MCP server (`esign mcp`) is a bundle of its own, with its own copy of zod: in the split build
// the SDK's zod would share zod's core with esign's, and that shared chunk, loaded by every command,
// would grow by a fifth. The main build leaves the module out and imports the bundle instead. (The
// single executable has one script and no files beside it: scripts/build-binary.mjs bundles the
// server inline.)
const MCP_SERVER = /\/mcp\/server\.js$/;
const mcpServerApart = {
  name: 'mcp-server-apart',
  setup(plugin) {
    plugin.onResolve({ filter: MCP_SERVER }, () => ({ path: '../mcp-server.js', external: true }));
  },
};

await esbuild.build({
  ...sharedBundleOptions,
  entryPoints: { 'mcp-server': 'src/mcp/server.ts' },
  outdir: 'dist',
  target: 'node20.19',
  banner: requireBanner('import.meta.url'),
  plugins: [lazyBuiltins],
});

await esbuild.build({
  ...sharedBundleOptions,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  splitting: true,
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  banner: requireBanner('import.meta.url'),
  plugins: [lazyBuiltins, mcpServerApart],
});

// The banner gives every file of the split build a `require`, made with createRequire(import.meta
// .url) as the file loads: about thirty times for a create, though only the chunk with esbuild's
// runtime (whose __require serves every bundled CommonJS module) calls it. Files that never name
// `require` lose the banner. (A string that mentions require keeps it: harmless.)
const banner = requireBanner('import.meta.url').js;
const namesRequire = /(?<![\w$.])require(?![\w$])/;
for (const file of [
  'main.js',
  ...readdirSync(new URL('../dist/chunks', import.meta.url)).map((f) => `chunks/${f}`),
]) {
  const url = new URL(`../dist/${file}`, import.meta.url);
  const text = readFileSync(url, 'utf8');
  if (!text.startsWith(banner)) throw new Error(`dist/${file} does not start with the require banner`);
  if (!namesRequire.test(text.slice(banner.length)))
    writeFileSync(url, text.slice(banner.length).replace(/^\n/, ''));
}
