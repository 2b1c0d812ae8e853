// scripts/release-channels.mjs: the Homebrew formula, the winget and scoop manifests and the MCP
// registry's server.json that `npm run release` writes. Written into a folder beside stand-in assets,
// they pass their published schemas (kept in scripts/schemas/) and name those assets with their
// sums; a file whose sum, URL or required field is wrong fails, saying which.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { channelFiles, checkChannelFiles, mcpNameOf } from '../../scripts/release-channels.mjs';

const version = '1.2.3';
const repository = 'acme/esign';
const assets = [`esign-${version}.tgz`, `esign-${version}.mcpb`, `esign-${version}-win-x64.zip`];
const TOOLS = ['create_envelope', 'validate_envelope', 'list_templates', 'get_status'];

type Files = Record<string, string>;

/** A release folder: stand-in assets and their sums, and the channel files written from them. */
function releaseFolder(names = assets) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-channels-'));
  const sums: Record<string, string> = {};
  for (const name of names) {
    writeFileSync(join(dir, name), `the bytes of ${name}`);
    sums[name] = createHash('sha256').update(`the bytes of ${name}`).digest('hex');
  }
  const release = {
    version,
    repository,
    description: 'Command-line tool for the electronic-signature envelope service',
    license: 'MIT',
    date: '2026-12-01',
    sums,
    tools: TOOLS,
    readOnlyTools: TOOLS.slice(1),
  };
  const files: Files = channelFiles(release);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, sums, files, release };
}

function checked(dir: string, names: string[], sums: Record<string, string>) {
  return checkChannelFiles(dir, names, { version, repository, sums }) as {
    problems: string[];
    checked: string[];
    notChecked: string[];
  };
}

const hasRuby = (() => {
  try {
    execFileSync('ruby', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('the channel files of a release', () => {
  it('writes the formula, winget, scoop and server.json, each valid and naming the assets with their sums', () => {
    const { dir, sums, files } = releaseFolder();
    expect(Object.keys(files).sort()).toEqual([
      'acme.esign.installer.yaml',
      'acme.esign.locale.en-US.yaml',
      'acme.esign.yaml',
      'esign.json',
      'esign.rb',
      'server.json',
    ]);
    const report = checked(dir, Object.keys(files), sums);
    expect(report.problems).toEqual([]);
    expect(report.checked.filter((line) => line.includes('valid against'))).toHaveLength(5);
    if (hasRuby) expect(report.checked).toContain('esign.rb: ruby -c (Ruby syntax)');

    const download = `https://github.com/${repository}/releases/download/v${version}`;
    const tarball = `esign-${version}.tgz`;
    expect(files['esign.rb']).toContain(`url "${download}/${tarball}"\n  sha256 "${sums[tarball]}"`);
    expect(files['esign.rb']).toContain('depends_on "node"');
    expect(files['esign.rb']).toMatch(
      /generate_completions_from_executable\(bin\/"esign", "completion", shells: \[:bash, :zsh, :fish\]\)/,
    );
    expect(files['esign.rb']).toMatch(/test do\n.*esign --version.*\n.*esign help envelope/);
    const zip = `esign-${version}-win-x64.zip`;
    expect(JSON.parse(files['esign.json'] as string).architecture['64bit']).toEqual({
      url: `${download}/${zip}`,
      hash: sums[zip],
    });
    expect(files['acme.esign.installer.yaml']).toContain(`InstallerSha256: ${sums[zip]?.toUpperCase()}`);

    const server = JSON.parse(files['server.json'] as string);
    expect(server.name).toBe(mcpNameOf(repository));
    expect(server.name).toBe('io.github.acme/esign');
    expect(server.packages[0]).toMatchObject({ registryType: 'npm', identifier: 'esign', version });
    expect(server.packages[0].packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
    expect(server.packages[1]).toMatchObject({
      registryType: 'mcpb',
      identifier: `${download}/esign-${version}.mcpb`,
      fileSha256: sums[`esign-${version}.mcpb`],
    });
    const stated = server._meta['io.modelcontextprotocol.registry/publisher-provided'];
    expect(stated.tools).toEqual(TOOLS);
    expect(stated.readOnly).toEqual({
      tools: TOOLS.slice(1),
      flag: '--read-only',
      environment: 'ESIGN_MCP_READ_ONLY=true',
    });
    const variables = server.packages[0].environmentVariables.map((each: { name: string }) => each.name);
    expect(variables).toEqual(
      expect.arrayContaining(['ESIGN_TOKEN', 'ESIGN_BASE_URL', 'ESIGN_MCP_READ_ONLY']),
    );
  });

  it('writes no winget or scoop manifest without the Windows build (a partial release)', () => {
    const { files } = releaseFolder(assets.slice(0, 2));
    expect(Object.keys(files).sort()).toEqual(['esign.rb', 'server.json']);
  });

  it('fails a manifest whose asset changed after it was written, or that names a file the release lacks', () => {
    const { dir, sums, files } = releaseFolder();
    const zip = `esign-${version}-win-x64.zip`;
    const changed = { ...sums, [zip]: 'f'.repeat(64) };
    const report = checked(dir, Object.keys(files), changed);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        `esign.json names ${zip} without its SHA-256 (${'f'.repeat(64)})`,
        `esign.json holds a SHA-256 (${sums[zip]}) of no file in release/`,
      ]),
    );
    const renamed = files['esign.rb']?.replace(
      `esign-${version}.tgz`,
      `esign-${version}-other.tgz`,
    ) as string;
    writeFileSync(join(dir, 'esign.rb'), renamed);
    expect(checked(dir, ['esign.rb'], sums).problems).toEqual(
      expect.arrayContaining([`esign.rb names esign-${version}-other.tgz, which release/ does not hold`]),
    );
  });

  it('fails a manifest that its channel’s schema rejects, naming the file and the field', () => {
    const { dir, sums } = releaseFolder();
    const scoop = JSON.parse(readFileSync(join(dir, 'esign.json'), 'utf8'));
    delete scoop.license;
    writeFileSync(join(dir, 'esign.json'), JSON.stringify(scoop));
    const server = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'));
    server.description = 'x'.repeat(101);
    writeFileSync(join(dir, 'server.json'), JSON.stringify(server));
    const installer = readFileSync(join(dir, 'acme.esign.installer.yaml'), 'utf8');
    writeFileSync(
      join(dir, 'acme.esign.installer.yaml'),
      installer.replace('Architecture: x64', 'Architecture: x65'),
    );
    const report = checked(dir, ['esign.json', 'server.json', 'acme.esign.installer.yaml'], sums);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^esign\.json is not valid against its schema: .*must have required property 'license'/,
        ),
        expect.stringMatching(
          /^server\.json is not valid against its schema: \/description must NOT have more than 100 characters/,
        ),
        expect.stringMatching(
          /^acme\.esign\.installer\.yaml is not valid against its schema: \/Installers\/0\/Architecture must be equal to one of the allowed values/,
        ),
      ]),
    );
  });

  it.runIf(hasRuby)('fails a formula that is not Ruby (ruby -c)', () => {
    const { dir, sums, files } = releaseFolder();
    writeFileSync(join(dir, 'esign.rb'), (files['esign.rb'] as string).replace(/\nend\n$/, '\n'));
    const report = checked(dir, ['esign.rb'], sums);
    expect(report.problems).toEqual([expect.stringMatching(/^esign\.rb: ruby -c failed: /)]);
  });
});
