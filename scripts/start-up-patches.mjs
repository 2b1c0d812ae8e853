// What the bundles change in their dependencies, and in how they reach Node's built-ins, so that a
// start loads only what it uses. On this 2-core machine every 100 KB of JavaScript a command loads
// costs ~1.3 ms to read and decode before V8 even looks at it, and every built-in module ~0.5–5 ms.
//
// 1. Built-ins without ES-module facades (`builtinsWithoutFacades`, both bundles of the npm install).
//    An ES `import … from 'node:fs'` makes Node build a facade that reads every export of the module
//    once, running its lazy getters: `fs` then loads streams, fs/promises and readline, `module` its
//    source-map support. dist/ is CommonJS-style (scripts/build.mjs), and bin/esign.js serves each
//    built-in from process.getBuiltinModule (Node >= 20.16 and 22.3; `engines` asks for 20.19),
//    which runs nothing it is not asked for.
//
// 2. Exact-text patches of commander, undici and jsonc-parser (`dependencyPatches`, every bundle):
//    - jsonc-parser builds ~300 KB of indentation strings as it loads, for its formatter only;
//    - commander requires node:child_process for executable subcommands, which esign has none of;
//    - undici's HTTP/1.1 client requires its HTTP/2 client (and that node:http2) for a connection
//      that negotiates HTTP/2, which esign's agent never offers; the fetch body code (FormData, web
//      IDL: ~60 KB) for a FormData body, which esign never sends; node:http for its default maximum
//      header size, which esign's agent sets itself, and for `IncomingMessage`, in a check of a body
//      esign never sends; node:assert for its internal invariants (a plain check that throws the
//      same kind of error).
//    Each patch is an exact text: when an upgrade changes it, the build fails here (and
//    test/unit/start-up-patches.test.ts says so first), instead of quietly loading it all again.
//
// 3. llhttp, undici's HTTP parser, as WebAssembly files beside the bundle (`llhttpFromFiles`):
//    undici carries it twice (with and without SIMD) as base64 text, 145 KB of JavaScript read on
//    every create, of which one is used. dist/llhttp/ holds both as bytes, read when the first
//    connection opens (the executable holds dist/ as assets).

import { readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';

const BUILTIN = new Set(builtinModules);

/** undici's default maximum header section, never used: esign's agent sets its own (MAX_HEADER_BYTES, src/transport/http-client.ts). */
const MAX_HEADER_SIZE = 16 * 1024;

/** The one assert undici calls (`assert(value)`, `assert(value, message)`), as node:assert fails. */
const ASSERT_SOURCE = `function fail(message) {
  const error = new Error(message ?? 'The expression evaluated to a falsy value');
  error.name = 'AssertionError';
  error.code = 'ERR_ASSERTION';
  throw error;
}
module.exports = function assert(value, message) { if (!value) fail(message); };`;

export const DEPENDENCY_PATCHES = [
  {
    file: /[\\/]node_modules[\\/]jsonc-parser[\\/]lib[\\/]esm[\\/]impl[\\/]string-intern\.js$/,
    edits: [
      // 1,200 strings of line breaks and indentation (~300 KB), built when the module loads, for
      // the formatter only (writing .esign.json): every create loaded them, for reading JSON, and
      // every garbage collection copied them. Built on first use instead.
      {
        text: 'export const cachedBreakLinesWithSpaces = {',
        replacement: 'const makeBreakLinesWithSpaces = () => ({',
      },
      {
        text: "};\nexport const supportedEols = ['\\n', '\\r', '\\r\\n'];",
        replacement: [
          '});',
          'let madeBreakLinesWithSpaces;',
          'export const cachedBreakLinesWithSpaces = new Proxy({}, {',
          '  get: (_, key) => (madeBreakLinesWithSpaces ??= makeBreakLinesWithSpaces())[key],',
          '});',
          "export const supportedEols = ['\\n', '\\r', '\\r\\n'];",
        ].join('\n'),
      },
    ],
  },
  {
    file: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
    edits: [
      {
        text: "const childProcess = require('node:child_process');",
        // commander calls childProcess.spawn only, and only to run an executable subcommand.
        replacement:
          "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      },
    ],
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    edits: [
      {
        text: "const http = require('node:http')",
        replacement: `const http = { maxHeaderSize: ${MAX_HEADER_SIZE} }`,
      },
      {
        text: "const connectH2 = require('./client-h2.js')",
        replacement:
          "const connectH2 = () => { throw new Error('esign speaks HTTP/1.1 only: its agent never offers HTTP/2') }",
      },
    ],
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/,
    edits: [
      {
        text: "extractBody = require('../web/fetch/body.js').extractBody",
        replacement: "extractBody = () => { throw new TypeError('esign sends no FormData bodies') }",
      },
    ],
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    edits: [
      {
        text: "const { IncomingMessage } = require('node:http')",
        replacement: '',
      },
      {
        text: 'Object.getPrototypeOf(stream).constructor === IncomingMessage',
        replacement: "Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage",
      },
    ],
  },
];

const UNDICI_FILE = /[\\/]node_modules[\\/]undici[\\/]lib[\\/].*\.js$/;
const LLHTTP = [
  { text: "require('../llhttp/llhttp_simd-wasm.js')", wasm: 'llhttp_simd.wasm' },
  { text: "require('../llhttp/llhttp-wasm.js')", wasm: 'llhttp.wasm' },
];

/**
 * `source` of the file at `path` with its patches applied, and `more` edits of the same kind;
 * throws when a patched text is missing.
 */
export function patchSource(path, source, more = []) {
  const patch = DEPENDENCY_PATCHES.find(({ file }) => file.test(path));
  let patched = source;
  for (const { text, replacement } of [...(patch?.edits ?? []), ...more]) {
    if (!patched.includes(text)) {
      throw new Error(
        `start-up patches: ${path} no longer holds \`${text}\`; update scripts/start-up-patches.mjs`,
      );
    }
    patched = patched.replaceAll(text, replacement);
  }
  if (UNDICI_FILE.test(path) && /require\('node:assert'\)/.test(patched)) {
    patched = patched.replaceAll("require('node:assert')", "require('esign:assert')");
  }
  return patched;
}

/** esbuild plugin: every bundle. */
export const dependencyPatches = {
  name: 'dependency-patches',
  setup(build) {
    for (const { file } of [...DEPENDENCY_PATCHES, { file: UNDICI_FILE }]) {
      build.onLoad({ filter: file }, async (args) => ({
        contents: patchSource(args.path, await readFile(args.path, 'utf8')),
        loader: 'js',
      }));
    }
    build.onResolve({ filter: /^esign:assert$/ }, () => ({ path: 'assert', namespace: 'esign-assert' }));
    build.onLoad({ filter: /.*/, namespace: 'esign-assert' }, () => ({
      contents: ASSERT_SOURCE,
      loader: 'js',
    }));
  },
};

/**
 * esbuild plugin: built-ins left as imports (`node:` or not), which scripts/build.mjs then turns
 * into require() calls, served by bin/esign.js from process.getBuiltinModule: never an ES-module
 * facade. A named import reads the one export it names when used; a default or namespace import
 * gets esbuild's copy of the module's exports, at that import only. (A stand-in module per
 * built-in, as before, was copied that way into every module that imported it: ~1 ms and ~50 KB of
 * getters for --help.)
 */
export const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!BUILTIN.has(name) && !args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** The llhttp builds as bytes, by file name: what undici's base64 modules export. */
export function llhttpWasmFiles() {
  const require = createRequire(import.meta.url);
  return LLHTTP.map(({ text, wasm }) => ({
    name: wasm,
    bytes: require(`undici/lib/${text.slice("require('../".length, -2)}`),
  }));
}

/**
 * esbuild plugin: llhttp read from `<folder>/<name>.wasm`, `folder` a path in dist/, through the
 * `esign:dist-file` require that bin/esign.js serves (from dist/ for the npm install, from the
 * executable's assets for the executable).
 */
export function llhttpFromFiles(folder) {
  const edits = LLHTTP.map(({ text, wasm }) => ({ text, replacement: `require('esign:wasm/${wasm}')` }));
  return {
    name: 'llhttp-from-files',
    setup(build) {
      build.onLoad(
        { filter: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/ },
        async (args) => ({
          contents: patchSource(args.path, await readFile(args.path, 'utf8'), edits),
          loader: 'js',
        }),
      );
      build.onResolve({ filter: /^esign:wasm\// }, (args) => ({
        path: args.path.slice('esign:wasm/'.length),
        namespace: 'esign-wasm',
      }));
      build.onResolve({ filter: /^esign:dist-file$/ }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace: 'esign-wasm' }, (args) => ({
        contents: `module.exports = require('esign:dist-file')(${JSON.stringify(`${folder}/${args.path}`)});`,
        loader: 'js',
      }));
    },
  };
}
