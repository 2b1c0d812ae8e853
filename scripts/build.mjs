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

const { metafile } = await esbuild.build({
  ...sharedBundleOptions,
  metafile: true,
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

// Each file as the body of `function (exports, require, module, __filename, __dirname, __esign_define)`:
// imports become require() calls (bin/esign.js serves the bundle's own files and Node's built-ins),
// `import()` a require() in a promise. Every file must be ASCII: bin/esign.js reads them as Latin-1,
// the quickest decoding there is (esbuild escapes the rest).
const NON_ASCII = /[\u0080-\uffff]/;
const scripts = [
  'main.js',
  'mcp-server.js',
  ...readdirSync(new URL('../dist/chunks', import.meta.url)).map((f) => `chunks/${f}`),
];
const bodies = new Map();
for (const file of scripts) {
  const { code } = esbuild.transformSync(readFileSync(new URL(`../dist/${file}`, import.meta.url), 'utf8'), {
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    supported: { 'dynamic-import': false },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  if (NON_ASCII.test(code)) throw new Error(`dist/${file} holds a character that is not ASCII`);
  // Definitions go before the body (below): a directive there would stop being one.
  if (/^\s*["']use strict["']/.test(code)) throw new Error(`dist/${file} starts with a directive`);
  bodies.set(file, code);
}

// Each file that is loaded on its own (main.js, and every file an `import()` names) carries the
// chunks it imports, as definitions that run when first required: a create loaded 31 files, each
// costing a read, a code-cache read and a compile (~0.5 ms); it now loads a few. The chunks main.js
// carries are left out of the others (main.js is always loaded first); a chunk two of the others
// import is carried by both and runs once (bin/esign.js keeps the first definition). Every chunk is
// then carried by each file loaded on its own that imports it, or loaded before it: the chunk files
// themselves go.
const outputs = Object.fromEntries(
  Object.entries(metafile.outputs).map(([path, output]) => [path.replace(/^dist\//, ''), output]),
);
const importsOf = (file, kind) =>
  (outputs[file]?.imports ?? []).filter((i) => i.kind === kind).map((i) => i.path.replace(/^dist\//, ''));
const staticClosure = (file, into = new Set()) => {
  for (const chunk of importsOf(file, 'import-statement')) {
    if (!into.has(chunk) && bodies.has(chunk)) {
      into.add(chunk);
      staticClosure(chunk, into);
    }
  }
  return into;
};
const loadedWithMain = staticClosure('main.js');
// What is surely loaded when a file named by an `import()` loads: main.js and what it carries, and
// whatever every file that imports it had loaded statically by then.
const loadedBefore = new Map([
  ['main.js', new Set()],
  ['mcp-server.js', new Set()],
]);
for (const file of Object.keys(outputs)) {
  for (const target of importsOf(file, 'dynamic-import')) {
    if (!bodies.has(target)) continue;
    const here = new Set(['main.js', ...loadedWithMain, file, ...staticClosure(file)]);
    const known = loadedBefore.get(target);
    loadedBefore.set(target, known ? new Set([...known].filter((chunk) => here.has(chunk))) : here);
  }
}
const wrap = (body) =>
  `(function (exports, require, module, __filename, __dirname, __esign_define) {${body}\n})`;
for (const file of scripts) {
  let text = bodies.get(file);
  const before = loadedBefore.get(file);
  if (before) {
    const carried = [...staticClosure(file)].filter((chunk) => chunk !== file && !before.has(chunk));
    const definitions = carried.map(
      (chunk) =>
        `__esign_define(${JSON.stringify(chunk)},function (exports, require, module, __filename, __dirname) {${bodies.get(chunk)}\n});`,
    );
    text = definitions.join('') + text;
    writeFileSync(new URL(`../dist/${file}`, import.meta.url), wrap(text));
  } else {
    rmSync(new URL(`../dist/${file}`, import.meta.url));
  }
}
