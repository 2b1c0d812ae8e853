// Builds dist/: the entry (main.js) holds commander and the command table; every command (and each
// heavy library it needs) lands in a chunk that is loaded only when that command runs. esbuild
// splits the ES-module build; each file is then turned into the body of a CommonJS-style function,
// which bin/esign.js loads itself, with a V8 code cache of its own (see there for why).
// (The single executable, scripts/build-binary.mjs, holds these same files and loads them the same way.)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

// `npm install -g .` and the packed tarball have no dev dependencies, so nothing to build with:
// the bundle built by `npm ci` (or shipped in the tarball) is used as it is.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  if (existsSync(new URL('../dist/main.js', import.meta.url))) process.exit(0);
  console.error('esbuild is not installed: run `npm ci` first, then build (or install) again.');
  process.exit(1);
}
const { sharedBundleOptions } = await import('./bundle-options.mjs');
const { builtinsWithoutFacades, dependencyPatches, llhttpFromFiles, llhttpWasmFiles } = await import(
  './start-up-patches.mjs'
);

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

// The MCP server (`esign mcp`) is a bundle of its own, with its own copy of zod: in the split build
// the SDK's zod would share zod's core with esign's, and that shared chunk, loaded by every command,
// would grow by a fifth. The main build leaves the module out and imports the bundle instead.
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
  plugins: [builtinsWithoutFacades, dependencyPatches],
});

await esbuild.build({
  ...sharedBundleOptions,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  splitting: true,
  target: 'node20.19',
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [llhttpFromFiles('llhttp'), builtinsWithoutFacades, dependencyPatches, mcpServerApart],
});

// undici's HTTP parser as bytes, in dist/llhttp/ (read through bin/esign.js's `esign:dist-file`).
// The MCP server's bundle holds no undici: its tools, and their requests, are the main bundle's
// (src/commands/mcp.ts hands them over).
mkdirSync(new URL('../dist/llhttp', import.meta.url));
for (const { name, bytes } of llhttpWasmFiles())
  writeFileSync(new URL(`../dist/llhttp/${name}`, import.meta.url), bytes);

// Each file as the body of `function (exports, require, module, __filename, __dirname)`: imports
// become require() calls (bin/esign.js serves the bundle's own files and Node's built-ins), `import()`
// a require() in a promise. Every file must be ASCII: bin/esign.js reads them as Latin-1, the quickest
// decoding there is (esbuild escapes the rest).
const NON_ASCII = /[\u0080-\uffff]/;
const scripts = [
  'main.js',
  'mcp-server.js',
  ...readdirSync(new URL('../dist/chunks', import.meta.url)).map((f) => `chunks/${f}`),
];
for (const file of scripts) {
  const url = new URL(`../dist/${file}`, import.meta.url);
  const { code } = esbuild.transformSync(readFileSync(url, 'utf8'), {
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  if (NON_ASCII.test(code)) throw new Error(`dist/${file} holds a character that is not ASCII`);
  writeFileSync(url, code);
}
