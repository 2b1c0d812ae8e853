#!/usr/bin/env node
// The npm install's entry (CommonJS: bin/package.json). It answers `--version` before anything is
// loaded, turns on Node's compile cache in esign's own cache folder where the runtime has one
// (Node >= 22.1), answers help and Tab from the command table (dist/quick.cjs), and otherwise
// imports the bundle. The single executable has an entry of its own
// (scripts/build-binary.mjs).
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  useCompileCache(process.env);
  if (!answeredQuickly(args)) start();
}

/**
 * Help and Tab from the command table alone (dist/quick.cjs, src/quick.ts): true when answered.
 * Anything else, or anything it leaves (a broken output, a value from the config), goes on to the
 * full entry.
 */
function answeredQuickly(args) {
  const quick =
    args.length === 0 ||
    args[0] === '__complete' ||
    args[0] === 'help' ||
    args.includes('--help') ||
    args.includes('-h');
  if (!quick) return false;
  try {
    return require('../dist/quick.cjs').answer(args);
  } catch {
    return false;
  }
}

function start() {
  import('../dist/main.js').then(
    ({ main }) => main(),
    (error) => {
      // A checkout where `npm run build` has not run yet has no dist/: say so, not a stack trace.
      const { dirname, join } = require('node:path');
      const dist = join(__dirname, '..', 'dist');
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || require('node:fs').existsSync(join(dist, 'main.js'))) {
        throw error;
      }
      process.stderr.write(
        `error: esign is not built: ${dist} has no main.js.\nhint: run \`npm run build\` in ${dirname(dist)} (npm test and npm run demo build it too).\n`,
      );
      process.exitCode = 1;
    },
  );
}

/**
 * Node's compile cache, in esign's own folder of the user's cache (never Node's default, a folder
 * every user of the machine shares): used only when that folder is a directory of this user's that
 * nobody else can write to, and nobody else can replace (every folder above it is the user's or
 * root's, and one that others may write to is sticky). A cache file runs as code: one that someone
 * else could plant is never read. Otherwise, or on any error, esign runs without a cache and says
 * nothing. Node's own switches win: NODE_DISABLE_COMPILE_CACHE turns it off, NODE_COMPILE_CACHE
 * names another folder.
 */
function useCompileCache(env) {
  const { enableCompileCache } = require('node:module');
  if (!enableCompileCache || env.NODE_DISABLE_COMPILE_CACHE || env.NODE_COMPILE_CACHE) return;
  try {
    const dir = privateFolder(cacheFolder(env));
    if (dir) enableCompileCache(dir);
  } catch {}
}

function cacheFolder(env) {
  const { isAbsolute, join } = require('node:path');
  if (process.platform === 'win32') return env.LOCALAPPDATA && join(env.LOCALAPPDATA, 'esign', 'Cache');
  const home = require('node:os').homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'esign');
  const xdg =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(xdg, 'esign');
}

/**
 * `dir` as a real path, made 0700 if missing, when no one but this user (or root) can change it:
 * the folders above it are checked before anything is made (`sudo -E` with another user's HOME
 * makes nothing in that user's folder), and the folder itself after.
 */
function privateFolder(dir) {
  if (!dir) return undefined;
  const fs = require('node:fs');
  // Windows: the folder is in the user's own profile, which its access list keeps to them.
  if (process.platform === 'win32') {
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }
  const { dirname } = require('node:path');
  const uid = process.getuid();
  /** Whether `path` and every folder above it is this user's or root's, and sticky if others may write. */
  const guarded = (path) => {
    for (let at = fs.realpathSync(path); ; at = dirname(at)) {
      const { uid: owner, mode } = fs.statSync(at);
      if ((owner !== uid && owner !== 0) || ((mode & 0o022) !== 0 && (mode & 0o1000) === 0)) return false;
      if (dirname(at) === at) return true;
    }
  };
  let above = dirname(dir);
  while (!fs.existsSync(above)) above = dirname(above);
  if (!guarded(above)) return undefined;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const real = fs.realpathSync(dir);
  const own = fs.statSync(real);
  if (!own.isDirectory() || own.uid !== uid || (own.mode & 0o022) !== 0 || !guarded(real)) return undefined;
  return real;
}
