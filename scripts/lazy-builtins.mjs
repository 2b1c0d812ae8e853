// Two dependencies load a Node built-in at start-up that esign almost never uses, and every command
// pays for it: commander requires node:child_process (for subcommands that are separate executables,
// which esign has none of), and undici's HTTP/2 client requires node:http2 (which loads tls too) for
// a handful of constants, though esign's agent never negotiates HTTP/2. Measured on this machine:
// child_process 4–12 ms, http2 15–19 ms. The bundle loads each only when it is really used.
//
// Each patch is an exact text; when an upgrade changes it, the build fails here (and
// test/unit/lazy-builtins.test.ts says so first), instead of quietly loading the built-in again.
import { readFile } from 'node:fs/promises';

/** What undici's client-h2.js reads from node:http2 at load: HTTP/2's protocol constants. */
export const HTTP2_CONSTANTS = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
};

export const LAZY_BUILTIN_PATCHES = [
  {
    file: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
    text: "const childProcess = require('node:child_process');",
    // commander calls childProcess.spawn only, and only to run an executable subcommand.
    replacement: "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
    text: "http2 = require('node:http2')",
    // The constants as they are, connect() (an HTTP/2 session, never opened by esign) on demand.
    replacement: `http2 = { constants: ${JSON.stringify(HTTP2_CONSTANTS)}, connect: (...args) => require('node:http2').connect(...args) }`,
  },
];

/** `source` of the file at `path` with its patch applied; throws when the patched text is missing. */
export function patchSource(path, source) {
  const patch = LAZY_BUILTIN_PATCHES.find(({ file }) => file.test(path));
  if (!patch) return source;
  if (!source.includes(patch.text)) {
    throw new Error(
      `lazy-builtins: ${path} no longer holds \`${patch.text}\`; update scripts/lazy-builtins.mjs`,
    );
  }
  return source.replace(patch.text, patch.replacement);
}

/** The esbuild plugin both builds use. */
export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    for (const { file } of LAZY_BUILTIN_PATCHES) {
      build.onLoad({ filter: file }, async (args) => ({
        contents: patchSource(args.path, await readFile(args.path, 'utf8')),
        loader: 'js',
      }));
    }
  },
};
