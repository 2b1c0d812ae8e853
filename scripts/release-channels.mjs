// The files that publish a release to the channels people install from, written by `npm run release`
// (scripts/release.mjs) into release/ beside the assets they name, and checked there:
//   esign.rb                                  a Homebrew formula, for a tap
//   <owner>.esign.yaml, .installer.yaml,      a winget manifest (multi-file, schema 1.10.0), for
//   .locale.en-US.yaml                        microsoft/winget-pkgs
//   esign.json                                a scoop manifest, for a bucket
//   server.json                               the MCP registry's entry (schema 2025-12-11)
// Every URL into the release's download folder names a file of release/, and every SHA-256 beside
// it is that file's sum. The schemas are kept in scripts/schemas/ (their sources: its README.md), so
// the check needs no network.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const schemaDir = join(import.meta.dirname, 'schemas');
const WINGET_SCHEMA_VERSION = '1.10.0';
export const MCP_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** What every channel says about esign, from package.json and the repository. */
function about(release) {
  const [owner] = release.repository.split('/');
  const homepage = `https://github.com/${release.repository}`;
  return {
    owner,
    homepage,
    download: `${homepage}/releases/download/v${release.version}`,
    description: release.description,
    license: release.license,
  };
}

/** The MCP registry's name for the server: GitHub OIDC lets this repository publish io.github.<owner>/*. */
export function mcpNameOf(repository) {
  const [owner, name] = repository.split('/');
  return `io.github.${owner}/${name}`;
}

/**
 * Every channel file, by name in release/, as text. `release`: version, repository (owner/name),
 * description, license, date (YYYY-MM-DD, the commit's), sums (file name → SHA-256 hex of each
 * asset in release/), tools and readOnlyTools (what `esign mcp` and `esign mcp --read-only` list).
 */
export function channelFiles(release) {
  const files = {
    'esign.rb': homebrewFormula(release),
    'server.json': `${JSON.stringify(serverJson(release), null, 2)}\n`,
  };
  const windows = `esign-${release.version}-win-x64.zip`;
  if (release.sums[windows]) {
    files['esign.json'] = `${JSON.stringify(scoopManifest(release, windows), null, 2)}\n`;
    Object.assign(files, wingetManifests(release, windows));
  }
  return files;
}

/**
 * A Homebrew formula for a tap. It installs the npm package of the release on Homebrew's Node, as
 * homebrew-core installs Node command-line tools (std_npm_args): one file for macOS (both
 * processors) and Linux, and esign runs on a Node that Homebrew keeps patched. The executables
 * would need a formula per platform, and the macOS ones, built on Linux, carry no code cache (twice
 * the start-up) and must be signed before they run.
 */
function homebrewFormula(release) {
  const { download, homepage } = about(release);
  const tarball = `esign-${release.version}.tgz`;
  return `# Written by \`npm run release\` (scripts/release-channels.mjs) for esign ${release.version}: the npm
# package of the GitHub release, installed on Homebrew's Node with Homebrew's own npm arguments.
class Esign < Formula
  desc ${rubyString(release.description)}
  homepage ${rubyString(homepage)}
  url ${rubyString(`${download}/${tarball}`)}
  sha256 ${rubyString(release.sums[tarball])}
  license ${rubyString(release.license)}

  depends_on "node"

  def install
    system "npm", "install", *std_npm_args
    bin.install_symlink libexec.glob("bin/*")
    generate_completions_from_executable(bin/"esign", "completion", shells: [:bash, :zsh, :fish])
    # The man pages, in the releases that have them (man/*.1 in the package).
    man_pages = libexec.glob("lib/node_modules/esign/man/*.1")
    man1.install man_pages unless man_pages.empty?
  end

  test do
    assert_equal version.to_s, shell_output("#{bin}/esign --version").strip
    assert_match "envelope create", shell_output("#{bin}/esign help envelope")
    assert_match "esign __complete", shell_output("#{bin}/esign completion bash")
  end
end
`;
}

/** A Ruby double-quoted string of plain text (no #{…}, quotes or backslashes get through). */
function rubyString(text) {
  return JSON.stringify(String(text)).replace(/#/g, '\\#');
}

/** A scoop manifest (for a bucket): the Windows x64 zip, holding esign.exe. */
function scoopManifest(release, windows) {
  const { download, homepage, description, license } = about(release);
  return {
    version: release.version,
    description,
    homepage,
    license,
    architecture: { '64bit': { url: `${download}/${windows}`, hash: release.sums[windows] } },
    bin: 'esign.exe',
    checkver: { github: homepage },
    autoupdate: {
      architecture: {
        '64bit': { url: `${homepage}/releases/download/v$version/esign-$version-win-x64.zip` },
      },
      hash: { url: '$baseurl/SHA256SUMS' },
    },
  };
}

/** winget's multi-file manifest: version, installer (the zip, with esign.exe as a portable command), default locale. */
function wingetManifests(release, windows) {
  const { owner, download, homepage, description, license } = about(release);
  const id = `${owner}.esign`;
  const common = { PackageIdentifier: id, PackageVersion: release.version };
  const yaml = (type, body) =>
    `# yaml-language-server: $schema=https://aka.ms/winget-manifest.${type.toLowerCase()}.${WINGET_SCHEMA_VERSION}.schema.json\n` +
    `# Written by \`npm run release\` (scripts/release-channels.mjs) for esign ${release.version}.\n` +
    YAML.stringify({ ...common, ...body, ManifestType: type, ManifestVersion: WINGET_SCHEMA_VERSION });
  return {
    [`${id}.yaml`]: yaml('version', { DefaultLocale: 'en-US' }),
    [`${id}.installer.yaml`]: yaml('installer', {
      InstallerType: 'zip',
      NestedInstallerType: 'portable',
      NestedInstallerFiles: [{ RelativeFilePath: 'esign.exe', PortableCommandAlias: 'esign' }],
      Commands: ['esign'],
      ReleaseDate: release.date,
      Installers: [
        {
          Architecture: 'x64',
          InstallerUrl: `${download}/${windows}`,
          InstallerSha256: release.sums[windows].toUpperCase(),
        },
      ],
    }),
    [`${id}.locale.en-US.yaml`]: yaml('defaultLocale', {
      PackageLocale: 'en-US',
      Publisher: owner,
      PublisherUrl: `https://github.com/${owner}`,
      PackageName: 'esign',
      PackageUrl: homepage,
      License: license,
      ShortDescription: description,
      Moniker: 'esign',
      Tags: ['cli', 'e-signature', 'envelopes', 'mcp'],
      ReleaseNotesUrl: `${homepage}/releases/tag/v${release.version}`,
    }),
  };
}

/**
 * The MCP registry's entry: the npm package (run as `esign mcp`; the registry checks package.json's
 * mcpName) and the MCP Bundle of the same release with its SHA-256. The settings are esign mcp's
 * own environment variables; the tools and the read-only switch are what the server lists.
 */
function serverJson(release) {
  const { download, homepage } = about(release);
  const bundle = `esign-${release.version}.mcpb`;
  const variable = (name, description, more = {}) => ({ name, description, ...more });
  const environmentVariables = [
    variable('ESIGN_TOKEN', 'Your esign API token (Settings → API Tokens in the dashboard)', {
      isRequired: true,
      isSecret: true,
    }),
    variable(
      'ESIGN_BASE_URL',
      'The API base URL, including /api/v1 (https://; http:// only for a local sandbox)',
      {
        isRequired: true,
      },
    ),
    variable(
      'ESIGN_MCP_CONFIRM',
      'ask: a person confirms each envelope before it is sent; never: send without asking',
      {
        choices: ['ask', 'never'],
        default: 'ask',
      },
    ),
    variable(
      'ESIGN_MCP_ALLOW_DOMAINS',
      'Comma-separated email domains a signatory may be at; empty allows any',
    ),
    variable(
      'ESIGN_MCP_READ_ONLY',
      `true: serve only the tools that send nothing (${release.readOnlyTools.join(', ')})`,
      {
        format: 'boolean',
        default: 'false',
      },
    ),
  ];
  return {
    $schema: MCP_SCHEMA_URL,
    name: mcpNameOf(release.repository),
    title: 'esign',
    description: 'Create e-signature envelopes from templates; a person confirms each one before it is sent.',
    version: release.version,
    repository: { url: homepage, source: 'github' },
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: 'esign',
        version: release.version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [{ type: 'positional', value: 'mcp' }],
        environmentVariables,
      },
      {
        registryType: 'mcpb',
        identifier: `${download}/${bundle}`,
        version: release.version,
        fileSha256: release.sums[bundle],
        transport: { type: 'stdio' },
      },
    ],
    _meta: {
      'io.modelcontextprotocol.registry/publisher-provided': {
        tools: release.tools,
        readOnly: {
          tools: release.readOnlyTools,
          flag: '--read-only',
          environment: 'ESIGN_MCP_READ_ONLY=true',
        },
      },
    },
  };
}

function loadSchema(...path) {
  return JSON.parse(readFileSync(join(schemaDir, ...path), 'utf8'));
}

let compiled;

/** A validator per channel file, from the schemas kept in scripts/schemas/ (draft-07, all of them); compiled once. */
function validators() {
  compiled ??= compileValidators();
  return compiled;
}

function compileValidators() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  // winget's schemas mark 64-bit integers (installer return codes) with a format of their own.
  ajv.addFormat('long', { type: 'number', validate: Number.isInteger });
  const winget = (type) =>
    ajv.compile(
      loadSchema(`winget-${WINGET_SCHEMA_VERSION}`, `manifest.${type}.${WINGET_SCHEMA_VERSION}.json`),
    );
  return {
    scoop: ajv.compile(loadSchema('scoop', 'schema.json')),
    mcp: ajv.compile(loadSchema('mcp-registry', 'server.schema.2025-12-11.json')),
    version: winget('version'),
    installer: winget('installer'),
    defaultLocale: winget('defaultLocale'),
  };
}

/** The schema each file is held to, and how it is read. */
function readChannelFile(name, text) {
  if (name === 'server.json') return { schema: 'mcp', value: JSON.parse(text) };
  if (name === 'esign.json') return { schema: 'scoop', value: JSON.parse(text) };
  if (name.endsWith('.yaml')) {
    const value = YAML.parse(text);
    return { schema: value?.ManifestType, value };
  }
  return undefined;
}

/**
 * The problems of the channel files in `dir` (their names: `names`): each against its schema; every
 * URL into the release's download folder names a file in `dir` whose SHA-256 (`sums`) is the one
 * beside it; the formula through `ruby -c` where Ruby is installed. Returns { problems, checked,
 * notChecked }.
 */
export function checkChannelFiles(dir, names, release) {
  const report = { problems: [], checked: [], notChecked: [] };
  const check = validators();
  const { download } = about(release);
  for (const name of names) {
    const text = readFileSync(join(dir, name), 'utf8');
    const read = readChannelFile(name, text);
    if (read) {
      const validate = check[read.schema];
      if (!validate) report.problems.push(`${name}: not a manifest this release writes (${read.schema})`);
      else if (!validate(read.value)) {
        const errors = validate.errors.map((error) => `${error.instancePath || '/'} ${error.message}`);
        report.problems.push(`${name} is not valid against its schema: ${errors.join('; ')}`);
      } else report.checked.push(`${name}: valid against ${schemaName(read.schema)} (offline)`);
    }
    report.problems.push(...urlProblems(name, text, dir, download, release.sums));
  }
  report.checked.push(
    `every URL into ${download}/ in ${names.join(', ')} names a file of release/, with its SHA-256`,
  );
  if (names.includes('esign.rb')) rubyCheck(join(dir, 'esign.rb'), report);
  return report;
}

function schemaName(schema) {
  if (schema === 'mcp') return 'the MCP registry server.json schema 2025-12-11';
  if (schema === 'scoop') return "scoop's manifest schema";
  return `winget's ${schema} manifest schema ${WINGET_SCHEMA_VERSION}`;
}

/** Each release URL in the text names a file of `dir`, and a file's sum, where it is given, is its own. */
function urlProblems(name, text, dir, download, sums) {
  const problems = [];
  const urls = text.match(/https:\/\/[^\s"'<>]+/g) ?? [];
  const shas = new Set([...text.matchAll(/\b[0-9a-fA-F]{64}\b/g)].map((found) => found[0].toLowerCase()));
  const named = new Set();
  for (const url of urls.filter((each) => each.startsWith(`${download}/`))) {
    const file = url.slice(download.length + 1);
    named.add(file);
    if (!existsSync(join(dir, file)) || !sums[file])
      problems.push(`${name} names ${file}, which release/ does not hold`);
    else if (!shas.has(sums[file]))
      problems.push(`${name} names ${file} without its SHA-256 (${sums[file]})`);
  }
  const fileOf = new Map(Object.entries(sums).map(([file, sum]) => [sum, file]));
  for (const sha of shas) {
    if (!fileOf.has(sha)) problems.push(`${name} holds a SHA-256 (${sha}) of no file in release/`);
    else if (!named.has(fileOf.get(sha)))
      problems.push(`${name} holds the SHA-256 of ${fileOf.get(sha)} but not its URL`);
  }
  return problems;
}

function rubyCheck(file, report) {
  try {
    execFileSync('ruby', ['-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    report.checked.push('esign.rb: ruby -c (Ruby syntax)');
  } catch (error) {
    if (error.code === 'ENOENT') report.notChecked.push('esign.rb with ruby -c: no ruby here');
    else report.problems.push(`esign.rb: ruby -c failed: ${error.stderr}`);
  }
}
