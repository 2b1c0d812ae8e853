// `npm run build:binary`: esign as single executables (Node's SEA), for every platform, from this
// machine and the npm registry alone. Writes to release/:
//   esign-<version>-<os>-<arch>[.exe]        the executables
//   esign-<version>-<os>-<arch>.tar.gz|.zip  each holding one file, `esign` (`esign.exe`)
//   SHA256SUMS                               `sha256sum -c` format, every archive
//   install.sh                               scripts/install.sh, for the same folder
//
// Every target is built from the official Node binary of one pinned version (NODE_VERSION), taken
// from the npm registry's node-<os>-<arch> packages and checked against the integrity pinned below;
// the builder is that same version for this machine (--build-sea needs builder and target to be
// exactly the same Node). Downloads are kept in ~/.cache/esign-build (ESIGN_BUILD_CACHE), so a
// rebuild downloads nothing.
//
//   node scripts/build-binary.mjs                      every target
//   node scripts/build-binary.mjs --target linux-x64   only these (repeatable)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { packageJson, sharedBundleOptions } from './bundle-options.mjs';
import { NODE_VERSION, NODE_TARGETS as TARGETS } from './node-version.mjs';
import { FIXED_TIME, writeZip } from './zip.mjs';

const root = resolve(import.meta.dirname, '..');
const releaseDir = join(root, 'release');
const workDir = join(releaseDir, '.build');
const cacheDir =
  process.env.ESIGN_BUILD_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'esign-build');
const version = packageJson.version;

const { values } = parseArgs({ options: { target: { type: 'string', multiple: true } } });
const wanted = chooseTargets(values.target);
const host = hostTarget();

rmSync(releaseDir, { recursive: true, force: true });
mkdirSync(workDir, { recursive: true });
const script = await bundle();
const builder = nodeBinary(host);
const sums = [];
for (const each of wanted) {
  const executable = buildExecutable(each, script, builder);
  const archive = archiveOf(each, executable);
  sums.push(`${sha256(join(releaseDir, archive))}  ${archive}`);
}
writeFileSync(join(releaseDir, 'SHA256SUMS'), `${sums.join('\n')}\n`);
copyFileSync(join(root, 'scripts', 'install.sh'), join(releaseDir, 'install.sh'));
chmodSync(join(releaseDir, 'install.sh'), 0o755);
rmSync(workDir, { recursive: true, force: true });
console.log(`release/: ${wanted.map((each) => each.name).join(', ')}, SHA256SUMS, install.sh`);

function chooseTargets(names) {
  if (!names) return TARGETS;
  const unknown = names.filter((name) => !TARGETS.some((each) => each.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown target "${unknown[0]}": one of ${TARGETS.map((each) => each.name).join(', ')}.`);
    process.exit(2);
  }
  return TARGETS.filter((each) => names.includes(each.name));
}

/** The target whose Node runs here: it builds every executable. */
function hostTarget() {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  const found = TARGETS.find((each) => each.os === os && each.arch === process.arch);
  if (found) return found;
  console.error(
    `No pinned Node binary runs on ${process.platform}-${process.arch}: build on one of the targets.`,
  );
  process.exit(1);
}

/**
 * The executable's one script: esign's sources bundled with their dependencies as one CommonJS file
 * (the script a single executable runs is CommonJS; it can require Node's built-ins and nothing
 * else, and a lazily imported module becomes a function inside it, run when first imported).
 */
async function bundle() {
  const outfile = join(workDir, 'esign.cjs');
  await build({
    ...sharedBundleOptions,
    stdin: { contents: "import { main } from './src/main.ts';\nmain();\n", resolveDir: root, loader: 'ts' },
    outfile,
    format: 'cjs',
    target: `node${NODE_VERSION}`,
  });
  return { main: outfile };
}

/** The official Node binary for a target, from the cache or the npm registry (checked either way). */
function nodeBinary(each) {
  const dir = join(cacheDir, `node-v${NODE_VERSION}`, each.name);
  const binary = join(dir, each.nodeInPackage);
  if (existsSync(binary)) return binary;
  const tarball = join(cacheDir, 'packs', `${each.npmPackage}-${NODE_VERSION}.tgz`);
  if (!existsSync(tarball) || integrityOf(tarball) !== each.integrity) {
    mkdirSync(join(cacheDir, 'packs'), { recursive: true });
    console.log(`Downloading ${each.npmPackage}@${NODE_VERSION} from the npm registry…`);
    execFileSync(
      'npm',
      [
        'pack',
        '--silent',
        `${each.npmPackage}@${NODE_VERSION}`,
        '--pack-destination',
        join(cacheDir, 'packs'),
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  }
  const integrity = integrityOf(tarball);
  if (integrity !== each.integrity) {
    rmSync(tarball, { force: true });
    throw new Error(`${each.npmPackage}@${NODE_VERSION} is not the pinned package (integrity ${integrity}).`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', dir, each.nodeInPackage]);
  return binary;
}

function integrityOf(file) {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * Built with Node's own single-executable configuration. Its code cache is on for the executable of
 * the platform that builds (the one Node can make a cache for: one made on another platform may
 * crash it at start-up, Node's documentation), off for the others: without it the executable
 * compiles its whole script on every start. The snapshot stays off (it needs the script written for
 * it). V8's cache is not byte-for-byte the same from one build to the next: that executable, its
 * archive and SHA256SUMS differ between two builds of one commit (docs/releases.md, "Reproducible").
 */
function buildExecutable(each, { main }, builder) {
  const output = join(releaseDir, `esign-${version}-${each.name}${each.executableSuffix}`);
  const config = join(workDir, `sea-${each.name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      // Relative, and the builder runs in workDir: the executable records this path, so an
      // absolute one would make the same commit build differently in another folder.
      main: relative(workDir, main),
      mainFormat: 'commonjs',
      executable: nodeBinary(each),
      output,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: each.name === host.name,
    }),
  );
  execFileSync(builder, ['--build-sea', config], { cwd: workDir, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(output.slice(root.length + 1));
  return output;
}

/** `esign-<version>-<target>.tar.gz` (`.zip` for Windows), holding the one file `esign` (`esign.exe`). */
function archiveOf(each, executable) {
  const archive = `esign-${version}-${each.name}${each.archiveSuffix}`;
  const inside = `esign${each.executableSuffix}`;
  if (each.os === 'win') {
    writeZip(join(releaseDir, archive), inside, readFileSync(executable));
  } else {
    const stage = join(workDir, each.name);
    mkdirSync(stage, { recursive: true });
    copyFileSync(executable, join(stage, inside));
    chmodSync(join(stage, inside), 0o755);
    // The same executable gives the same archive (npm run release is reproducible): a fixed time,
    // as the zip's, owner root, and a gzip header with no time or name (GNU tar: built on Linux).
    const flags = ['--format=ustar', '--owner=0', '--group=0', '--numeric-owner', `--mtime=@${FIXED_TIME}`];
    const tarball = execFileSync('tar', [...flags, '-cf', '-', '-C', stage, inside], {
      maxBuffer: 1024 ** 3,
    });
    writeFileSync(join(releaseDir, archive), gzipSync(tarball));
  }
  return archive;
}
