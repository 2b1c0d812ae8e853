#!/usr/bin/env node
// Tiny shim, and the entry of both builds: the npm install runs this file as it is, and the single
// executable (scripts/build-binary.mjs) bundles it with src/ into one script, where
// __ESIGN_VERSION__ is built in and `../dist/main.js` is the bundle itself.
//
// `esign --version` is answered here, before any module is loaded: scripts call it often, and it is
// measured against `node -e 0`. Everything else: enable Node's on-disk compile cache in a folder of
// this user's own (Node >= 22.1; the executable carries its own code cache instead), ask for V8's
// baseline WebAssembly compiler once a request is about to be sent (below), then load the bundle.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/* global __ESIGN_VERSION__ */
const builtInVersion = typeof __ESIGN_VERSION__ === 'string' ? __ESIGN_VERSION__ : undefined;
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${builtInVersion ?? packageVersion()}\n`);
} else {
  if (builtInVersion === undefined) module.enableCompileCache?.(compileCacheDir(process.env));
  useBaselineWasmCompilerForRequests();
  // No top-level await: the executable's script is CommonJS (the form Node starts fastest there).
  import('../dist/main.js').then(({ main }) => main());
}

function packageVersion() {
  return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
}

/**
 * Node's default compile cache is one folder in the system's temporary folder, shared by every user
 * of the machine: the first user to run esign owns it and everyone else silently gets no cache. So
 * the cache lives in this user's cache folder, unless NODE_COMPILE_CACHE names one (undefined lets
 * Node read it; NODE_DISABLE_COMPILE_CACHE turns it off either way).
 */
function compileCacheDir(env) {
  if (env.NODE_COMPILE_CACHE) return undefined;
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'esign', 'compile-cache');
  if (process.platform === 'win32') {
    return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'esign', 'Cache', 'compile-cache');
  }
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'esign', 'compile-cache');
}

/**
 * The HTTP client parses answers with a WebAssembly build of llhttp. After a response, V8 keeps
 * optimising that module in the background and the process cannot exit until it is done: measured
 * at about twice the wall time of a whole `envelope create`. A CLI makes a few requests and leaves,
 * so the baseline compiler (Liftoff) is all it needs.
 *
 * The flag is set when the transport announces its first request (src/transport/http-client.ts,
 * FIRST_REQUEST_CHANNEL), not here and now: changing a V8 flag makes every Node built-in loaded
 * after it miss Node's code cache and compile from source (crypto, net, tls, http… for a create;
 * tens of milliseconds), and by the first request they are all loaded, `performance` included (the
 * transport reads it before it announces the request).
 */
function useBaselineWasmCompilerForRequests() {
  const channels = process.getBuiltinModule('node:diagnostics_channel');
  const onFirstRequest = () => {
    channels.unsubscribe('esign:transport:first-request', onFirstRequest);
    process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  };
  channels.subscribe('esign:transport:first-request', onFirstRequest);
}
