#!/usr/bin/env node
// The entry of both builds (CommonJS: bin/package.json says so). The npm install runs this file as
// it is, and it loads dist/ itself (below). The single executable (scripts/build-binary.mjs) runs
// this file as its main script, with __ESIGN_VERSION__ built in, and loads the same dist/ files the
// same way, from the executable's assets.
//
// `esign --version` is answered here, before anything is loaded: scripts call it often, and it is
// measured against `node -e 0`.
'use strict';

/* global __ESIGN_VERSION__ */
const builtInVersion = typeof __ESIGN_VERSION__ === 'string' ? __ESIGN_VERSION__ : undefined;
const FIRST_REQUEST = 'esign:transport:first-request';
// What a bundle file's code requires to read another file of dist/ (llhttp's WebAssembly,
// scripts/start-up-patches.mjs): a function from its path in dist/ to its bytes.
const DIST_FILE = 'esign:dist-file';
const args = process.argv.slice(2);

if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${builtInVersion ?? packageVersion()}\n`);
} else {
  const files = builtInVersion === undefined ? distFolder() : executableAssets();
  const loader = distLoader(files, codeCacheDir(process.env, files.dir));
  useBaselineWasmCompilerForRequests(loader.beforeFlagChange);
  let entry;
  try {
    entry = loader.load('main.js');
  } catch (error) {
    // A checkout where `npm run build` has not run yet has no dist/: say so, not a stack trace.
    if (error?.code !== 'ENOENT' || builtInVersion !== undefined) throw error;
    process.stderr.write(
      `error: esign is not built: ${files.dir} has no main.js.\nhint: run \`npm run build\` in ${require('node:path').dirname(files.dir)} (npm test and npm run demo build it too).\n`,
    );
    process.exit(1);
  }
  entry.main();
}

function packageVersion() {
  const { readFileSync } = require('node:fs');
  return JSON.parse(readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8')).version;
}

/**
 * dist/'s files are CommonJS-style functions (scripts/build.mjs): esbuild's chunks, with their
 * imports turned into require() calls, each file that is loaded on its own carrying the chunks it
 * imports (given to `__esign_define`, run when first required). They are loaded here, not by Node's
 * module loader:
 *
 * - Node's ES-module loader costs ~0.5 ms a file (resolution, package scope, linking) and a create
 *   loaded about thirty;
 * - Node's compile cache (module.enableCompileCache) keeps what V8 compiles as a file loads: its top
 *   level, not the functions it then runs, so every start compiled most of esign again (main.js:
 *   87 KB of source, 12 KB of cache). A vm.Script can give V8's cache of everything compiled so far,
 *   after the command ran: the next start with the same command compiles next to nothing.
 *
 * Measured side by side on Node 22 (bench/startup.mjs), through Node's loaders and now: a create
 * 1.97 then 1.65 times the CommonJS POST script, --help 1.49 then 1.29 times `node -e 0`.
 *
 * The cache: one file per bundle file and command (`envelope create`, `login`…), made when the first
 * request is about to be sent (before the V8 flag below changes what V8 accepts) or at exit, written
 * to a temporary name and renamed (a concurrent esign never reads half a file). V8 refuses a cache
 * made by another V8 version or other flags; the file's size, modification time and inode are in its
 * name, so a rebuilt dist/ never meets an old cache. The cache holds compiled code of esign's own
 * source, never a value from a run (no token, no input). Any failure to read or write it is ignored:
 * it is only ever a way to start sooner.
 */
function distLoader(files, cacheDir) {
  const fs = require('node:fs');
  const { basename, dirname, join, resolve } = require('node:path');
  const distDir = files.dir;
  const { Script } = require('node:vm');
  const { channel } = require('node:diagnostics_channel');
  const announce = channel('esign:dist:load');
  const key = commandKey(args);
  const modules = new Map();
  const fresh = [];
  const made = [];

  /** Modules a loaded file carries (scripts/build.mjs), by path: each runs when first required. */
  const carried = new Map();
  function define(file, run) {
    const path = resolve(distDir, file);
    if (!modules.has(path) && !carried.has(path)) carried.set(path, run);
  }

  /** The module at `path` (absolute: resolved once, by the require that names it). */
  function loadPath(path) {
    const known = modules.get(path);
    if (known) return known.exports;
    const module = { exports: {} };
    modules.set(path, module);
    const here = dirname(path);
    const requireHere = (id) =>
      id.startsWith('.') ? loadPath(resolve(here, id)) : id === DIST_FILE ? readDistFile : builtin(id);
    const run = carried.get(path);
    if (run) {
      carried.delete(path);
      run(module.exports, requireHere, module, path, here);
      return module.exports;
    }
    const { text: source, identity } = files.readText(path);
    const cacheName = `${basename(path)}.${key}.${identity}`;
    const cachedData = cacheDir ? readCache(cacheName) : undefined;
    const script = new Script(source, { filename: path, cachedData });
    const cache = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted';
    if (cacheDir && cache !== 'accepted') fresh.push({ script, cacheName });
    if (announce.hasSubscribers)
      announce.publish({ url: require('node:url').pathToFileURL(path).href, cache });
    script.runInThisContext()(module.exports, requireHere, module, path, here, define);
    return module.exports;
  }

  /** A file of dist/ that is no script (llhttp's WebAssembly), as bytes, by its path in dist/. */
  function readDistFile(name) {
    return files.readBytes(resolve(distDir, name));
  }

  function readCache(name) {
    try {
      return fs.readFileSync(join(cacheDir, name));
    } catch {
      return undefined;
    }
  }

  /** V8's caches of the scripts compiled so far, taken now (before a V8 flag changes them). */
  function beforeFlagChange() {
    for (const { script, cacheName } of fresh.splice(0)) {
      try {
        made.push({ data: script.createCachedData(), cacheName });
      } catch {}
    }
  }

  if (cacheDir) {
    process.once('exit', () => {
      beforeFlagChange();
      if (made.length > 0) writeCaches(made);
    });
  }

  function writeCaches(caches) {
    try {
      fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      const present = fs.readdirSync(cacheDir);
      // An older build's caches of the same file and command go; a folder grown past 500 files
      // (chunks of builds long gone) is emptied.
      for (const name of present) {
        const old = present.length > 500 || caches.some((c) => sameFileAndCommand(name, c.cacheName));
        if (old) fs.rmSync(join(cacheDir, name), { force: true });
      }
      for (const { data, cacheName } of caches) {
        const draft = join(cacheDir, `${cacheName}.${process.pid}.tmp`);
        try {
          fs.writeFileSync(draft, data, { mode: 0o600 });
          fs.renameSync(draft, join(cacheDir, cacheName));
        } catch {
          fs.rmSync(draft, { force: true });
        }
      }
      pruneOtherFolders(fs, cacheDir);
    } catch {}
  }

  return { load: (file) => loadPath(resolve(distDir, file)), beforeFlagChange };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The code-cache folders of other Node versions, options or installs (the one in use is never
 * touched): a folder not written for 30 days goes, and past the 15 written last, the rest. Only when
 * caches are written (a command's first run), never on a run that only reads. A folder that is still
 * in use and goes costs its next run one start without a cache.
 */
function pruneOtherFolders(fs, cacheDir) {
  const { dirname, join } = require('node:path');
  const root = dirname(cacheDir);
  const others = [];
  for (const name of fs.readdirSync(root)) {
    const path = join(root, name);
    // Only folders named as codeCacheDir names them.
    if (path === cacheDir || !/^v\d+\.\d+\.\d+[\w.-]*-[a-z0-9]+-[0-9a-f]{8}$/.test(name)) continue;
    try {
      others.push({ path, time: fs.lstatSync(path).mtimeMs });
    } catch {}
  }
  others.sort((a, b) => b.time - a.time);
  const now = Date.now();
  others.forEach(({ path, time }, index) => {
    if (index >= 15 || now - time > 30 * DAY_MS) fs.rmSync(path, { recursive: true, force: true });
  });
}

/**
 * The npm install's dist/, beside this file. A file's identity (in its cache's name) is its size,
 * modification time and inode: a rebuilt dist/ never meets an old cache.
 */
function distFolder() {
  const fs = require('node:fs');
  return {
    dir: require('node:path').join(__dirname, '..', 'dist'),
    readText(path) {
      const fd = fs.openSync(path, 'r');
      try {
        const stat = fs.fstatSync(fd);
        return {
          text: fs.readFileSync(fd, 'latin1'),
          identity: `${stat.size}-${Math.trunc(stat.mtimeMs)}-${stat.ino}`,
        };
      } finally {
        fs.closeSync(fd);
      }
    },
    readBytes: (path) => fs.readFileSync(path),
  };
}

/**
 * The executable's dist/: the same files, stored in it as assets keyed by their path in dist/
 * (scripts/build-binary.mjs). Their identity is the executable's: a new executable never meets an
 * old cache. `dir` only names the files (in stack traces): nothing is read there.
 */
function executableAssets() {
  const sea = require('node:sea');
  const { dirname, join, relative, sep } = require('node:path');
  const dir = join(dirname(process.execPath), 'dist');
  const key = (path) => relative(dir, path).split(sep).join('/');
  let identity;
  const executableIdentity = () => {
    if (identity === undefined) {
      const stat = require('node:fs').statSync(process.execPath);
      identity = `${stat.size}-${Math.trunc(stat.mtimeMs)}-${stat.ino}`;
    }
    return identity;
  };
  return {
    dir,
    // Every script is ASCII (scripts/build.mjs checks): any decoding gives the same text.
    readText: (path) => ({ text: sea.getAsset(key(path), 'utf8'), identity: executableIdentity() }),
    readBytes: (path) => Buffer.from(sea.getAsset(key(path))),
  };
}

function sameFileAndCommand(name, cacheName) {
  const prefix = cacheName.slice(0, cacheName.lastIndexOf('.') + 1);
  return name.startsWith(prefix) && name !== cacheName;
}

/** A 32-bit FNV-1a hash, in hex: a short name for a string. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

function builtin(id) {
  const found = process.getBuiltinModule(id);
  if (found !== undefined) return found;
  const error = new Error(`Cannot find module '${id}'`);
  error.code = 'MODULE_NOT_FOUND';
  throw error;
}

/** The command's words (`envelope-create`, `login`; `esign` for none), for the cache's names. */
function commandKey(argv) {
  const words = [];
  for (const arg of argv) {
    if (words.length === 2 || !/^[a-z][a-z0-9-]{0,30}$/.test(arg)) break;
    words.push(arg);
  }
  return words.join('-') || 'esign';
}

/**
 * The code cache lives in this user's cache folder, `esign/code-cache/<Node version>-<arch>-<hash>`,
 * the hash of the Node options and of where dist/ is: V8 refuses a cache made under other flags, so
 * runs with other Node options (NODE_OPTIONS, node's own arguments) keep caches of their own, and so
 * do two installs (the executable and the npm install, a checkout and a global install), instead of
 * replacing each other's on every start. NODE_DISABLE_COMPILE_CACHE (Node's own switch for its
 * compile cache) turns it off.
 */
function codeCacheDir(env, distDir) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const { join } = require('node:path');
  // Outside Windows, os.homedir() is $HOME when it is set (libuv): node:os only when it is not.
  const home = (process.platform !== 'win32' && env.HOME) || require('node:os').homedir();
  const version = `${process.version}-${process.arch}-${fnv1a(`${process.execArgv.join(' ')}\n${env.NODE_OPTIONS ?? ''}\n${distDir}`)}`;
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'esign', 'code-cache', version);
  if (process.platform === 'win32') {
    return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'esign', 'Cache', 'code-cache', version);
  }
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'esign', 'code-cache', version);
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
 * tens of milliseconds), and V8 refuses a code cache made under other flags, so esign's own is
 * taken first (`beforeFlagChange`). By the first request the built-ins a create needs are loaded.
 */
function useBaselineWasmCompilerForRequests(beforeFlagChange) {
  const channels = require('node:diagnostics_channel');
  const onFirstRequest = () => {
    channels.unsubscribe(FIRST_REQUEST, onFirstRequest);
    beforeFlagChange();
    require('node:v8').setFlagsFromString('--liftoff-only');
  };
  channels.subscribe(FIRST_REQUEST, onFirstRequest);
}
