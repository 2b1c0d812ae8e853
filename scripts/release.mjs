// `npm run release`: everything a release holds, built on this machine from the npm registry alone,
// into release/, and then checked:
//   esign-<version>.tgz                        the npm package (npm pack), published as is
//   esign-<version>-<target>.tar.gz | .zip     the five executables' archives (npm run build:binary,
//                                              which also leaves the executables themselves here)
//   esign-<version>.mcpb                       the MCP Bundle (scripts/build-mcpb.mjs)
//   esign-<version>.cdx.json                   the SBOM, CycloneDX 1.6 JSON (@cyclonedx/cyclonedx-npm):
//                                              every library inside the bundle, and the Node runtime
//                                              inside the executables
//   THIRD-PARTY-LICENSES.txt                   the licences of those libraries (also in the package)
//   install.sh, install.ps1                    the install scripts
//   esign.rb, esign.json, <owner>.esign*.yaml, the channels: Homebrew formula, scoop and winget
//   server.json                                manifests, the MCP registry's entry
//                                              (scripts/release-channels.mjs)
//   SHA256SUMS                                 every file above (`sha256sum -c SHA256SUMS`)
// The checks: every sum; every asset listed; the SBOM against the CycloneDX schema (the validator of
// @cyclonedx/cyclonedx-library, with the schema files it ships: offline), that it names every
// library inside the bundle and Node as the executables hold it; the npm tarball's contents; the
// tarball installed with `npm install -g` into an empty prefix, offline, as esign alone, and run
// (scripts/check-package.sh); the channel files against their schemas, their URLs and sums against
// release/, the formula with `ruby -c`, server.json's tools against what `esign mcp` lists; the
// install scripts' version; the Linux x64 executable installed with install.sh and run with no
// `node` on PATH (scripts/check-binary.sh).
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
import { build as esbuild } from 'esbuild';
import { buildDist } from './bundle-options.mjs';
import { bundledPackages, LICENSES_FILE } from './bundled-packages.mjs';
import { listedTools } from './mcp-tools.mjs';
import { NODE_TARGETS, NODE_VERSION } from './node-version.mjs';
import { channelFiles, checkChannelFiles, mcpNameOf } from './release-channels.mjs';

const root = resolve(import.meta.dirname, '..');
const releaseDir = join(root, 'release');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = packageJson.version;
const repository = repositoryOf(packageJson);
const TARBALL = `esign-${version}.tgz`;
const SBOM = `esign-${version}.cdx.json`;
const MCPB = `esign-${version}.mcpb`;
/** Every asset but the executables' archives and the channel files. */
const ASSETS = [TARBALL, MCPB, SBOM, LICENSES_FILE, 'install.sh', 'install.ps1'];
const NODE_REF = `node@${NODE_VERSION}`;

const { values } = parseArgs({
  options: { target: { type: 'string', multiple: true }, verify: { type: 'boolean', default: false } },
});

checkRepository();
if (!values.verify) await build(values.target);
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
        `to git+https://github.com/${actual}.git (npm provenance and install.sh's attestation check name it), ` +
        `and mcpName to ${mcpNameOf(actual)} (the MCP registry checks it).`,
    );
    process.exit(1);
  }
}

function run(command, args, options = {}) {
  return execFileSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], ...options });
}

async function build(targets) {
  const targetArgs = (targets ?? []).flatMap((name) => ['--target', name]);
  // The executables, their archives, SHA256SUMS and install.sh (it empties release/ first).
  run(process.execPath, [join(root, 'scripts', 'build-binary.mjs'), ...targetArgs], { stdio: 'inherit' });
  // The npm tarball, as `npm pack` makes it (prepack builds dist/ and THIRD-PARTY-LICENSES.txt).
  run('npm', ['pack', '--silent', '--pack-destination', releaseDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // The MCP Bundle, of the same dist/.
  run(process.execPath, [join(root, 'scripts', 'build-mcpb.mjs'), '--out', join(releaseDir, MCPB)]);
  copyFileSync(join(root, LICENSES_FILE), join(releaseDir, LICENSES_FILE));
  writeSbom(await bundled());
  copyFileSync(join(root, 'scripts', 'install.ps1'), join(releaseDir, 'install.ps1'));
  const channels = channelFiles(await releaseFacts());
  for (const [name, text] of Object.entries(channels)) writeFileSync(join(releaseDir, name), text);
  writeSums(Object.keys(channels));
}

/** The libraries inside dist/, from esbuild's record of the build (the same build, in memory). */
async function bundled() {
  const { metafile } = await buildDist(esbuild, { absWorkingDir: root, write: false, logLevel: 'error' });
  return bundledPackages(metafile, root);
}

/** What the channel files say: this version, the sums of release/, and what `esign mcp` lists. */
async function releaseFacts() {
  const sums = Object.fromEntries(
    readdirSync(releaseDir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => [entry.name, sha256(join(releaseDir, entry.name))]),
  );
  const esign = join(root, 'bin', 'esign.js');
  return {
    version,
    repository,
    description: packageJson.description,
    license: packageJson.license,
    date: sourceTime().slice(0, 10),
    sums,
    tools: await listedTools(esign, []),
    readOnlyTools: await listedTools(esign, [], { ESIGN_MCP_READ_ONLY: 'true' }),
  };
}

/**
 * The libraries inside the bundle (scripts/bundled-packages.mjs: what esbuild read), as
 * @cyclonedx/cyclonedx-npm describes them installed (reproducible output: no serial number or time
 * of its own), each marked bundled, with the SHA-512 the lockfile pinned; then the Node runtime the
 * executables hold: one component for Node (with its CPE, which vulnerability databases use)
 * holding one component per target, the official npm package it came from with its pinned hash. The
 * package has no runtime dependency, so the generator is asked for the whole tree (the libraries
 * are dev dependencies: build inputs) and the SBOM keeps exactly the bundled ones.
 */
function writeSbom(packages) {
  const generated = join(releaseDir, '.sbom-npm.json');
  // The generator's own command, as npm installed it.
  run(join(root, 'node_modules', '.bin', 'cyclonedx-npm'), [
    ...[
      '--spec-version',
      '1.6',
      '--output-format',
      'JSON',
      '--mc-type',
      'application',
      '--flatten-components',
    ],
    ...['--output-reproducible', '--validate', '--output-file', generated],
  ]);
  const bom = JSON.parse(readFileSync(generated, 'utf8'));
  rmSync(generated);
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
  const folders = new Set(packages.map((each) => each.folder));
  const pathOf = (component) =>
    component.properties?.find((property) => property.name === 'cdx:npm:package:path')?.value;
  bom.components = bom.components.filter((component) => folders.has(pathOf(component)));
  for (const component of bom.components) bundledComponent(component, lock[pathOf(component)]);
  const kept = new Set([bom.metadata.component['bom-ref'], ...bom.components.map((each) => each['bom-ref'])]);
  bom.dependencies = bom.dependencies
    .filter((entry) => kept.has(entry.ref))
    .map((entry) => ({ ...entry, dependsOn: (entry.dependsOn ?? []).filter((ref) => kept.has(ref)) }));
  bom.metadata.timestamp = sourceTime();
  bom.components.push(nodeComponent());
  const main = bom.metadata.component['bom-ref'];
  const entry = bom.dependencies.find((each) => each.ref === main);
  if (entry) entry.dependsOn = [...entry.dependsOn, NODE_REF].sort();
  else bom.dependencies.push({ ref: main, dependsOn: [NODE_REF] });
  writeFileSync(join(releaseDir, SBOM), `${JSON.stringify(bom, null, 2)}\n`);
}

/** A library of the bundle: marked bundled (not a development dependency), with the lockfile's SHA-512. */
function bundledComponent(component, locked) {
  component.properties = [
    ...component.properties.filter((property) => property.name !== 'cdx:npm:package:development'),
    { name: 'cdx:npm:package:bundled', value: 'true' },
  ];
  if (locked?.integrity?.startsWith('sha512-')) {
    const content = Buffer.from(locked.integrity.slice('sha512-'.length), 'base64').toString('hex');
    component.hashes = [{ alg: 'SHA-512', content }];
  }
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
function writeSums(channels) {
  const names = new Set(readSums().map((line) => line.name));
  for (const name of [...ASSETS, ...channels]) names.add(name);
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
  const packages = await bundled();
  await verifySbom(report, packages);
  verifyExecutableBytes(report);
  verifyTarball(report, packages);
  verifyPackageInstall(report);
  await verifyChannels(report);
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
  const expected = [...ASSETS, ...channelNames(built), ...built.map(archiveOf)];
  for (const name of expected.filter((each) => !listed.has(each))) {
    report.problems.push(`SHA256SUMS has no line for ${name}`);
  }
  report.checked.push(`SHA256SUMS: ${sums.length} files, each sum matches, nothing unlisted`);
}

async function verifySbom(report, packages) {
  const text = readFileSync(join(releaseDir, SBOM), 'utf8');
  const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
  if (errors) report.problems.push(`${SBOM} is not valid CycloneDX 1.6: ${JSON.stringify(errors)}`);
  else report.checked.push(`${SBOM}: valid CycloneDX 1.6 JSON (strict schema, offline)`);
  const bom = JSON.parse(text);
  const named = (pkg) =>
    bom.components.find(
      (component) =>
        `${component.group ? `${component.group}/` : ''}${component.name}` === pkg.name &&
        component.version === pkg.version &&
        component.licenses?.length > 0,
    );
  const missing = packages.filter((pkg) => !named(pkg)).map((pkg) => `${pkg.name}@${pkg.version}`);
  if (missing.length > 0)
    report.problems.push(`${SBOM} lacks bundled libraries (or their licence): ${missing.join(', ')}`);
  if (packageJson.dependencies && Object.keys(packageJson.dependencies).length > 0) {
    report.problems.push(
      `package.json has runtime dependencies (${Object.keys(packageJson.dependencies).join(', ')}): dist/ bundles them, so they belong in devDependencies`,
    );
  }
  const node = bom.components.find((component) => component['bom-ref'] === NODE_REF);
  if (!node) {
    report.problems.push(`${SBOM} does not name Node ${NODE_VERSION}`);
    return;
  }
  report.checked.push(
    `${SBOM}: names the ${packages.length} libraries inside the bundle, each with its version and licence, and Node ${NODE_VERSION} with its ${node.components.length} target binaries`,
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

function verifyTarball(report, packages) {
  const listing = run('tar', ['-tzf', join(releaseDir, TARBALL)])
    .toString()
    .split('\n');
  const needed = [
    'package/package.json',
    'package/bin/esign.js',
    'package/dist/main.js',
    `package/${LICENSES_FILE}`,
  ];
  const missing = needed.filter((path) => !listing.includes(path));
  if (missing.length > 0) report.problems.push(`${TARBALL} lacks ${missing.join(', ')}`);
  const inside = JSON.parse(
    run('tar', ['-xzOf', join(releaseDir, TARBALL), 'package/package.json']).toString(),
  );
  if (inside.version !== version) report.problems.push(`${TARBALL} holds version ${inside.version}`);
  if (inside.mcpName !== mcpNameOf(repository)) {
    report.problems.push(
      `${TARBALL}'s package.json has mcpName ${inside.mcpName}, not ${mcpNameOf(repository)}`,
    );
  }
  report.checked.push(
    `${TARBALL}: esign ${inside.version}, ${listing.filter(Boolean).length} files, mcpName ${inside.mcpName}`,
  );
  if (!listing.includes(`package/${LICENSES_FILE}`)) return;
  const licenses = run('tar', ['-xzOf', join(releaseDir, TARBALL), `package/${LICENSES_FILE}`]).toString();
  const absent = packages.filter((pkg) => !licenses.includes(`\n${pkg.name}@${pkg.version}    licence: `));
  if (absent.length > 0) {
    report.problems.push(
      `${LICENSES_FILE} in ${TARBALL} lacks ${absent.map((pkg) => `${pkg.name}@${pkg.version}`).join(', ')}`,
    );
  } else
    report.checked.push(
      `${TARBALL}: ${LICENSES_FILE} holds the licence of each of the ${packages.length} bundled libraries`,
    );
}

/** The tarball installed with `npm install -g` into an empty prefix, offline, and run (scripts/check-package.sh). */
function verifyPackageInstall(report) {
  if (process.platform === 'win32') {
    report.notChecked.push(`${TARBALL} installed and run (scripts/check-package.sh needs bash)`);
    return;
  }
  try {
    const out = run('bash', [join(root, 'scripts', 'check-package.sh'), join(releaseDir, TARBALL)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const line of out.toString().trim().split('\n')) report.checked.push(line);
  } catch (error) {
    report.problems.push(`scripts/check-package.sh failed:\n${error.stdout}${error.stderr}`);
  }
}

/** The channel files a release with these executables has (winget and scoop need the Windows build). */
function channelNames(built) {
  const owner = repository.split('/')[0];
  const windows = built.some((target) => target.name === 'win-x64')
    ? [
        'esign.json',
        `${owner}.esign.yaml`,
        `${owner}.esign.installer.yaml`,
        `${owner}.esign.locale.en-US.yaml`,
      ]
    : [];
  return ['esign.rb', 'server.json', ...windows];
}

/**
 * The channel files: each against its schema, their URLs and sums against release/, the formula
 * with ruby -c (scripts/release-channels.mjs), and server.json's tools against what the tarball's
 * `esign mcp` lists, all of them and with ESIGN_MCP_READ_ONLY=true, the switch it names.
 */
async function verifyChannels(report) {
  const built = NODE_TARGETS.filter((target) => report.targets.includes(target.name));
  const names = channelNames(built).filter((name) => existsSync(join(releaseDir, name)));
  const missing = channelNames(built).filter((name) => !names.includes(name));
  if (missing.length > 0) report.problems.push(`release/ lacks ${missing.join(', ')}`);
  if (!built.some((target) => target.name === 'win-x64')) {
    report.notChecked.push('the winget and scoop manifests: this partial release has no win-x64 build');
  }
  const sums = Object.fromEntries(readSums().map((line) => [line.name, line.sum]));
  const channels = checkChannelFiles(releaseDir, names, { version, repository, sums });
  report.problems.push(...channels.problems);
  report.checked.push(...channels.checked);
  report.notChecked.push(...channels.notChecked);
  if (!names.includes('server.json')) return;
  const server = JSON.parse(readFileSync(join(releaseDir, 'server.json'), 'utf8'));
  const stated = server._meta?.['io.modelcontextprotocol.registry/publisher-provided'] ?? {};
  const esign = join(root, 'bin', 'esign.js');
  const tools = await listedTools(esign, []);
  const readOnly = await listedTools(esign, [], { ESIGN_MCP_READ_ONLY: 'true' });
  const flagged = await listedTools(esign, ['--read-only']);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(stated.tools, tools))
    report.problems.push(`server.json names the tools ${stated.tools}, esign mcp lists ${tools}`);
  if (!same(stated.readOnly?.tools, readOnly) || !same(readOnly, flagged)) {
    report.problems.push(
      `server.json's read-only tools are ${stated.readOnly?.tools}; esign mcp lists ${readOnly} with ESIGN_MCP_READ_ONLY=true and ${flagged} with --read-only`,
    );
  }
  if (server.name !== packageJson.mcpName) {
    report.problems.push(
      `server.json is named ${server.name}, package.json's mcpName is ${packageJson.mcpName}`,
    );
  }
  report.checked.push(
    `server.json: ${server.name} (package.json's mcpName); the tools esign mcp lists (${tools.join(', ')}), and with --read-only or ESIGN_MCP_READ_ONLY=true (${readOnly.join(', ')})`,
  );
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
