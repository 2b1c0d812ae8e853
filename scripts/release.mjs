// `npm run release`: everything a release holds, built on this machine from the npm registry alone,
// into release/, and then checked:
//   esign-<version>.tgz                        the npm package (npm pack), published as is
//   esign-<version>-<target>.tar.gz | .zip     the five executables' archives (npm run build:binary,
//                                              which also leaves the executables themselves here)
//   esign-<version>.cdx.json                   the SBOM, CycloneDX 1.6 JSON (@cyclonedx/cyclonedx-npm),
//                                              which also names the Node runtime inside the executables
//   install.sh, install.ps1                    the install scripts
//   SHA256SUMS                                 every file above (`sha256sum -c SHA256SUMS`)
// The checks: every sum; every asset listed; the SBOM against the CycloneDX schema (the validator of
// @cyclonedx/cyclonedx-library, with the schema files it ships: offline) and that it names Node as
// the executables hold it; the npm tarball's contents; the install scripts' version; the Linux x64
// executable installed with install.sh and run with no `node` on PATH (scripts/check-binary.sh).
//
//   node scripts/release.mjs                         build every target, then check
//   node scripts/release.mjs --target linux-x64      fewer targets while iterating (a partial release:
//                                                    it says so, and is never a release to publish)
//   node scripts/release.mjs --verify                only check what release/ holds
//
// On GitHub Actions (GITHUB_REPOSITORY set) it stops unless package.json's repository is that
// repository: npm's provenance and install.sh's attestation check both name it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { NODE_TARGETS, NODE_VERSION } from './node-version.mjs';

const root = resolve(import.meta.dirname, '..');
const releaseDir = join(root, 'release');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = packageJson.version;
const repository = repositoryOf(packageJson);
const TARBALL = `esign-${version}.tgz`;
const SBOM = `esign-${version}.cdx.json`;
const NODE_REF = `node@${NODE_VERSION}`;

const { values } = parseArgs({
  options: { target: { type: 'string', multiple: true }, verify: { type: 'boolean', default: false } },
});

checkRepository();
if (!values.verify) build(values.target);
const report = await verify();
for (const line of report.checked) console.log(`  ok  ${line}`);
for (const line of report.notChecked) console.log(`  --  not checked: ${line}`);
if (report.problems.length > 0) {
  for (const problem of report.problems) console.error(`release: ${problem}`);
  process.exit(1);
}
const partial = report.targets.length < NODE_TARGETS.length;
console.log(
  partial
    ? `release/ checked, but PARTIAL (${report.targets.join(', ')}): not a release to publish.`
    : `release/ checked: esign ${version}, every asset in SHA256SUMS.`,
);

/** owner/name from package.json's repository (`git+https://github.com/owner/name.git`). */
function repositoryOf(pkg) {
  const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const found = /github\.com[/:]([\w.-]+\/[\w.-]+?)(?:\.git)?$/.exec(url ?? '');
  if (!found) throw new Error('package.json has no GitHub repository (repository.url)');
  return found[1];
}

function checkRepository() {
  const actual = process.env.GITHUB_REPOSITORY;
  if (actual && actual.toLowerCase() !== repository.toLowerCase()) {
    console.error(
      `release: this runs in ${actual}, but package.json's repository is ${repository}: set repository.url ` +
        `to git+https://github.com/${actual}.git (npm provenance and install.sh's attestation check name it).`,
    );
    process.exit(1);
  }
}

function run(command, args, options = {}) {
  return execFileSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], ...options });
}

function build(targets) {
  const targetArgs = (targets ?? []).flatMap((name) => ['--target', name]);
  // The executables, their archives, SHA256SUMS and install.sh (it empties release/ first).
  run(process.execPath, [join(root, 'scripts', 'build-binary.mjs'), ...targetArgs], { stdio: 'inherit' });
  // The npm tarball, as `npm pack` makes it (prepack builds dist/).
  run('npm', ['pack', '--silent', '--pack-destination', releaseDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  writeSbom();
  copyFileSync(join(root, 'scripts', 'install.ps1'), join(releaseDir, 'install.ps1'));
  writeSums();
}

/**
 * The npm package's runtime dependencies as @cyclonedx/cyclonedx-npm finds them installed (dev
 * dependencies left out; reproducible output: no serial number or time of its own), then the Node
 * runtime the executables hold: one component for Node (with its CPE, which vulnerability databases
 * use) holding one component per target, the official npm package it came from with its pinned hash.
 */
function writeSbom() {
  const generated = join(releaseDir, '.sbom-npm.json');
  // The generator's own command, as npm installed it.
  run(join(root, 'node_modules', '.bin', 'cyclonedx-npm'), [
    ...['--omit', 'dev', '--spec-version', '1.6', '--output-format', 'JSON', '--mc-type', 'application'],
    ...['--output-reproducible', '--validate', '--output-file', generated],
  ]);
  const bom = JSON.parse(readFileSync(generated, 'utf8'));
  rmSync(generated);
  bom.metadata.timestamp = sourceTime();
  bom.components.push(nodeComponent());
  const main = bom.metadata.component['bom-ref'];
  const entry = bom.dependencies.find((each) => each.ref === main);
  if (entry) entry.dependsOn = [...(entry.dependsOn ?? []), NODE_REF].sort();
  else bom.dependencies.push({ ref: main, dependsOn: [NODE_REF] });
  writeFileSync(join(releaseDir, SBOM), `${JSON.stringify(bom, null, 2)}\n`);
}

/** The commit's time (SOURCE_DATE_EPOCH when set): the same for every build of the same commit. */
function sourceTime() {
  const epoch = process.env.SOURCE_DATE_EPOCH ?? run('git', ['log', '-1', '--format=%ct']).toString().trim();
  return new Date(Number(epoch) * 1000).toISOString().replace('.000Z', 'Z');
}

function nodeComponent() {
  return {
    type: 'platform',
    'bom-ref': NODE_REF,
    name: 'node',
    version: NODE_VERSION,
    description:
      'Node.js, the runtime inside each esign executable (esign-<version>-<target>). The npm package runs on the user’s own Node.js instead.',
    licenses: [{ license: { id: 'MIT' } }],
    cpe: `cpe:2.3:a:nodejs:node.js:${NODE_VERSION}:*:*:*:*:*:*:*`,
    externalReferences: [{ type: 'website', url: 'https://nodejs.org/' }],
    components: NODE_TARGETS.map((target) => ({
      type: 'application',
      'bom-ref': `pkg:npm/${target.npmPackage}@${NODE_VERSION}`,
      name: target.npmPackage,
      version: NODE_VERSION,
      description: `The official Node.js ${NODE_VERSION} binary for ${target.name}, inside esign-${version}-${target.name}${target.executableSuffix}.`,
      hashes: [
        {
          alg: 'SHA-512',
          content: Buffer.from(target.integrity.slice('sha512-'.length), 'base64').toString('hex'),
        },
      ],
      purl: `pkg:npm/${target.npmPackage}@${NODE_VERSION}`,
      properties: [
        { name: 'esign:executable', value: `esign-${version}-${target.name}${target.executableSuffix}` },
      ],
    })),
  };
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** SHA256SUMS: the archives build-binary summed, and every other asset, by name. */
function writeSums() {
  const names = new Set(readSums().map((line) => line.name));
  for (const name of [TARBALL, SBOM, 'install.sh', 'install.ps1']) names.add(name);
  const lines = [...names].sort().map((name) => `${sha256(join(releaseDir, name))}  ${name}`);
  writeFileSync(join(releaseDir, 'SHA256SUMS'), `${lines.join('\n')}\n`);
}

function readSums() {
  return readFileSync(join(releaseDir, 'SHA256SUMS'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sum, name] = line.split(/ [ *]/);
      return { sum, name };
    });
}

async function verify() {
  const report = { checked: [], notChecked: [], problems: [], targets: [] };
  if (!existsSync(join(releaseDir, 'SHA256SUMS'))) {
    report.problems.push('release/SHA256SUMS is missing: run npm run release');
    return report;
  }
  report.targets = NODE_TARGETS.filter((target) => existsSync(executableOf(target))).map((each) => each.name);
  verifySums(report);
  await verifySbom(report);
  verifyExecutableBytes(report);
  verifyTarball(report);
  verifyInstallScripts(report);
  verifyExecutable(report);
  if (run('git', ['status', '--porcelain', '--untracked-files=no']).length > 0) {
    report.notChecked.push(
      'that this is a commit: the work tree has uncommitted changes, which a release never has',
    );
  }
  return report;
}

function executableOf(target) {
  return join(releaseDir, `esign-${version}-${target.name}${target.executableSuffix}`);
}

function archiveOf(target) {
  return `esign-${version}-${target.name}${target.archiveSuffix}`;
}

function verifySums(report) {
  const sums = readSums();
  const listed = new Set(sums.map((line) => line.name));
  for (const { sum, name } of sums) {
    if (!existsSync(join(releaseDir, name)))
      report.problems.push(`SHA256SUMS lists ${name}, which is missing`);
    else if (sha256(join(releaseDir, name)) !== sum) report.problems.push(`${name} does not match its sum`);
  }
  const executables = new Set(NODE_TARGETS.map((target) => executableOf(target)));
  const unlisted = readdirSync(releaseDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'SHA256SUMS' && !entry.name.startsWith('.'))
    .filter((entry) => !executables.has(join(releaseDir, entry.name)) && !listed.has(entry.name));
  for (const entry of unlisted) report.problems.push(`release/${entry.name} is not in SHA256SUMS`);
  const built = NODE_TARGETS.filter((target) => report.targets.includes(target.name));
  const expected = [TARBALL, SBOM, 'install.sh', 'install.ps1', ...built.map(archiveOf)];
  for (const name of expected.filter((each) => !listed.has(each))) {
    report.problems.push(`SHA256SUMS has no line for ${name}`);
  }
  report.checked.push(`SHA256SUMS: ${sums.length} files, each sum matches, nothing unlisted`);
}

async function verifySbom(report) {
  const text = readFileSync(join(releaseDir, SBOM), 'utf8');
  const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
  if (errors) report.problems.push(`${SBOM} is not valid CycloneDX 1.6: ${JSON.stringify(errors)}`);
  else report.checked.push(`${SBOM}: valid CycloneDX 1.6 JSON (strict schema, offline)`);
  const bom = JSON.parse(text);
  const names = new Set(bom.components.map((component) => component.name));
  const direct = Object.keys(packageJson.dependencies).map((name) => name.split('/').pop());
  const missing = direct.filter((name) => !names.has(name));
  if (missing.length > 0) report.problems.push(`${SBOM} lacks runtime dependencies: ${missing.join(', ')}`);
  const node = bom.components.find((component) => component['bom-ref'] === NODE_REF);
  if (!node) {
    report.problems.push(`${SBOM} does not name Node ${NODE_VERSION}`);
    return;
  }
  report.checked.push(
    `${SBOM}: names ${bom.components.length - 1} npm packages, and Node ${NODE_VERSION} with its ${node.components.length} target binaries`,
  );
}

/**
 * Each executable holds the Node the SBOM names (Node's own record of its version: process.release's
 * headers URL), and no path of this build folder (which would make a build elsewhere differ).
 */
function verifyExecutableBytes(report) {
  const marker = Buffer.from(`/v${NODE_VERSION}/node-v${NODE_VERSION}-headers.tar.gz`);
  const folder = Buffer.from(root);
  for (const target of NODE_TARGETS.filter((each) => report.targets.includes(each.name))) {
    const bytes = readFileSync(executableOf(target));
    const name = `esign-${version}-${target.name}`;
    if (!bytes.includes(marker))
      report.problems.push(`${name} does not hold Node ${NODE_VERSION}, which the SBOM names`);
    if (bytes.includes(folder)) report.problems.push(`${name} holds this build folder's path (${root})`);
  }
  report.checked.push(
    `the executables (${report.targets.join(', ')}) hold Node ${NODE_VERSION}, and no path of this build folder`,
  );
}

function verifyTarball(report) {
  const listing = run('tar', ['-tzf', join(releaseDir, TARBALL)])
    .toString()
    .split('\n');
  const needed = ['package/package.json', 'package/bin/esign.js', 'package/dist/main.js'];
  const missing = needed.filter((path) => !listing.includes(path));
  if (missing.length > 0) report.problems.push(`${TARBALL} lacks ${missing.join(', ')}`);
  const inside = JSON.parse(
    run('tar', ['-xzOf', join(releaseDir, TARBALL), 'package/package.json']).toString(),
  );
  if (inside.version !== version) report.problems.push(`${TARBALL} holds version ${inside.version}`);
  report.checked.push(`${TARBALL}: esign ${inside.version}, ${listing.filter(Boolean).length} files`);
}

function verifyInstallScripts(report) {
  const expected = {
    'install.sh': [`release_version='${version}'`, `release_repository='${repository}'`],
    'install.ps1': [`$ReleaseVersion = '${version}'`, `$ReleaseRepository = '${repository}'`],
  };
  for (const [name, lines] of Object.entries(expected)) {
    const text = readFileSync(join(releaseDir, name), 'utf8');
    const absent = lines.filter((line) => !text.includes(line));
    if (absent.length > 0) report.problems.push(`${name} lacks ${absent.join(' and ')}`);
    else report.checked.push(`${name}: installs ${version}, checks provenance against ${repository}`);
  }
}

/** The Linux x64 executable as a user without Node gets it (scripts/check-binary.sh, on what is built). */
function verifyExecutable(report) {
  if (`${process.platform}-${process.arch}` !== 'linux-x64' || !report.targets.includes('linux-x64')) {
    report.notChecked.push(
      'the Linux x64 executable run with no node on PATH (needs linux-x64 here, and its build)',
    );
    return;
  }
  try {
    run('bash', [join(root, 'scripts', 'check-binary.sh')], {
      env: { ...process.env, CHECK_BINARY_REUSE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    report.checked.push(
      `esign-${version}-linux-x64: installed by install.sh and run with no node on PATH (scripts/check-binary.sh)`,
    );
  } catch (error) {
    report.problems.push(`scripts/check-binary.sh failed:\n${error.stdout}${error.stderr}`);
  }
}
