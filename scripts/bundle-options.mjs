// The esbuild options both builds share: dist/ for the npm install (scripts/build.mjs) and the one
// script inside the single executable (scripts/build-binary.mjs).
import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

export const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export const sharedBundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  sourcemap: false,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  define: { __ESIGN_VERSION__: JSON.stringify(packageJson.version) },
  logLevel: 'warning',
  // A package without an `exports` map is entered through its `module` field (its ES-module build)
  // before `main`: esbuild's default for Node is `main` first, which for jsonc-parser is a UMD
  // wrapper whose inner require()s esbuild cannot follow. Every import names a package's public
  // entry; a package with an `exports` map (jsonc-parser 3.3.0) is entered through that map.
  mainFields: ['module', 'main'],
};

/** The bundle's own `require`: see distBuildOptions. */
const REQUIRE_BANNER =
  'const require=(id)=>process.getBuiltinModule(id)??((e)=>{throw e})(Object.assign(new Error("Cannot find module \'"+id+"\'"),{code:"MODULE_NOT_FOUND"}));';

/**
 * The MCP server (src/mcp/server.ts, loaded by `esign mcp` alone) is a bundle of its own in dist/,
 * dist/mcp-server.js, with its own copy of zod. In the split build the SDK's use of zod (its JSON
 * Schema conversion) was in the chunk of zod every command loads, as esbuild places a module by
 * the entries that reach it, and every entry reaches all of zod through its index: a create loaded
 * 75 KB more, 2% of its instructions (Node 26). The module imports only the SDK, zod and types;
 * what the tools do arrives as values (src/commands/mcp.ts), so nothing is shared but data.
 */
const MCP_SERVER = /\/mcp\/server\.js$/;
const mcpServerApart = {
  name: 'mcp-server-apart',
  setup(build) {
    // The import is in a command's chunk (dist/chunks/), which the bundle sits beside.
    build.onResolve({ filter: MCP_SERVER }, () => ({ path: '../mcp-server.js', external: true }));
  },
};

/**
 * One file for what every start loads. esbuild's splitting puts each module in the chunk of the set
 * of entries that reach it (the main entry and every lazily imported module are entries), and does
 * not leave out of a lazy entry's set what its importer has loaded already: so the modules most
 * commands share were spread over chunks of a few hundred bytes each, and a create loaded 44 files.
 * Node's loader costs some 0.5M instructions a file, whatever its size.
 *
 * So every entry of our own (the main one, and each module of src/ imported lazily) is entered
 * through a module of this plugin that imports COMMON first, then re-exports the module: every
 * module COMMON reaches is reached by every entry, and all of them share one chunk. COMMON is what
 * a start of dist/main.js loads, and what a create (the main job) adds to it. A create reaches its
 * HTTP client (undici) only through a lazy import, made when there is something to send, so a
 * module that needs no network (a dry run, `esign config`) still loads none of it. A lazy entry
 * that is a library (chalk, ora, conf, undici) is left as it is: none reaches a module of ours.
 */
const COMMON = ['./main.ts', './commands/envelope/create.ts'];
const commonFirst = {
  name: 'common-first',
  setup(build) {
    const src = join(build.initialOptions.absWorkingDir ?? process.cwd(), 'src');
    build.onResolve({ filter: /.*/ }, async (args) => {
      if ((args.kind !== 'entry-point' && args.kind !== 'dynamic-import') || args.pluginData?.entered) return;
      const { kind, importer, resolveDir } = args;
      const resolved = await build.resolve(args.path, {
        kind,
        importer,
        resolveDir,
        pluginData: { entered: true },
      });
      if (resolved.errors.length > 0 || resolved.external || !resolved.path.startsWith(src + sep)) return;
      return { path: resolved.path, namespace: 'common-first' };
    });
    build.onLoad({ filter: /.*/, namespace: 'common-first' }, ({ path }) => ({
      contents: `import "esign:common";\nexport * from ${JSON.stringify(path)};\n`,
      resolveDir: dirname(path),
      loader: 'js',
    }));
    build.onResolve({ filter: /^esign:common$/ }, () => ({ path: 'common', namespace: 'esign-common' }));
    build.onLoad({ filter: /.*/, namespace: 'esign-common' }, () => ({
      contents: COMMON.map((module) => `import ${JSON.stringify(module)};`).join('\n'),
      resolveDir: src,
      loader: 'js',
    }));
  },
};

const mcpServerBuildOptions = {
  ...sharedBundleOptions,
  entryPoints: { 'mcp-server': 'src/mcp/server.ts' },
  outdir: 'dist',
  format: 'esm',
  metafile: true,
  banner: { js: REQUIRE_BANNER },
};

/**
 * dist/, the npm install's build (scripts/build.mjs): esbuild's ES-module build with splitting.
 * main.js re-exports the one chunk of what every start loads (commonFirst above); commander, each
 * other command, and each heavy library only some commands use, is imported when it runs and so
 * lands in chunks of its own. The release builds the
 * same in memory for its metafile: which libraries are inside (scripts/bundled-packages.mjs).
 */
export const distBuildOptions = {
  ...sharedBundleOptions,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  // The CommonJS dependencies (commander, undici) require() Node's built-ins, and only those: every
  // other module they require is inside the bundle. So each file's `require` is
  // process.getBuiltinModule, which throws as require does for a name that is not a built-in. (It was
  // createRequire(import.meta.url): a CommonJS module object and its search paths made for every
  // file of the bundle, about 5% of a create's instructions.)
  banner: { js: REQUIRE_BANNER },
  plugins: [mcpServerApart, commonFirst],
};

/**
 * Builds all of dist/ (the split build and the MCP server's bundle) with `esbuild.build` and
 * `options` added to each (`write: false` for a build in memory); one metafile for both.
 */
export async function buildDist(build, options = {}) {
  const [main, server] = await Promise.all([
    build({ ...distBuildOptions, ...options }),
    build({ ...mcpServerBuildOptions, ...options }),
  ]);
  return {
    metafile: {
      inputs: { ...main.metafile.inputs, ...server.metafile.inputs },
      outputs: { ...main.metafile.outputs, ...server.metafile.outputs },
    },
  };
}
