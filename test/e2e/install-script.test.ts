// scripts/install.sh against a release folder served from 127.0.0.1: a small fake release (an
// `esign` that is a shell script printing its version), so the checks run in well under a second.
// The real executable goes through the same script in .ci/run (scripts/check-binary.sh).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../../scripts/install.sh');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
// On macOS the script also signs what it installs: these tests run where it does not.
const OS = 'linux';
const ARCH = ({ x64: 'x64', arm64: 'arm64' } as Record<string, string>)[process.arch];
const supported = process.platform === 'linux' && ARCH !== undefined;

const root = mkdtempSync(join(tmpdir(), 'esign-install-'));
/** What the server holds: file name -> bytes. Each test sets the release it serves. */
let files = new Map<string, Buffer>();
const requested: string[] = [];
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    const name = (request.url ?? '/').slice(1);
    requested.push(name);
    const body = files.get(name);
    if (body) response.writeHead(200).end(body);
    else response.writeHead(404).end('not found');
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/releases`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** A release of `version`: the archive holding an `esign` that prints it, and SHA256SUMS. */
async function release(version: string): Promise<Map<string, Buffer>> {
  const stage = mkdtempSync(join(root, 'stage-'));
  writeFileSync(join(stage, 'esign'), `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
  const archive = `esign-${version}-${OS}-${ARCH}.tar.gz`;
  const tarball = join(stage, archive);
  await new Promise<void>((done, failed) =>
    execFile('tar', ['-czf', tarball, '-C', stage, 'esign'], (error) => (error ? failed(error) : done())),
  );
  const bytes = readFileSync(tarball);
  const sum = createHash('sha256').update(bytes).digest('hex');
  return new Map([
    [`releases/${archive}`, bytes],
    // Another archive's line first: the script must pick the line for its own archive.
    [
      'releases/SHA256SUMS',
      Buffer.from(`${'0'.repeat(64)}  esign-${version}-other.zip\n${sum}  ${archive}\n`),
    ],
  ]);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  installDir: string;
}

/** Runs install.sh with sh, its own empty install folder, and `env` on top. */
function install(env: Record<string, string> = {}, path = process.env.PATH ?? ''): Promise<Run> {
  const installDir = join(mkdtempSync(join(root, 'home-')), 'bin');
  return new Promise((done) =>
    execFile(
      'sh',
      [SCRIPT],
      { env: { PATH: path, HOME: root, ESIGN_DOWNLOAD_URL: url, ESIGN_INSTALL_DIR: installDir, ...env } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr, installDir }),
    ),
  );
}

/** A PATH holding the usual tools but `uname` replaced by one that prints `system` and `machine`. */
function pathWithUname(system: string, machine: string): string {
  const dir = mkdtempSync(join(root, 'uname-'));
  writeFileSync(join(dir, 'uname'), `#!/bin/sh\n[ "$1" = -m ] && echo ${machine} || echo ${system}\n`);
  chmodSync(join(dir, 'uname'), 0o755);
  return `${dir}:${process.env.PATH}`;
}

describe.skipIf(!supported)('scripts/install.sh', () => {
  it('installs the archive for this machine, checked against SHA256SUMS, into ESIGN_INSTALL_DIR', async () => {
    files = await release(pkg.version);
    const run = await install();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Installed esign ${pkg.version} in ${run.installDir}/esign`);
    expect(readFileSync(join(run.installDir, 'esign'), 'utf8')).toBe(`#!/bin/sh\necho ${pkg.version}\n`);
  });

  it('ESIGN_VERSION chooses the version; the default is the one the script was released with', async () => {
    const older = await release('9.8.7');
    const current = await release(pkg.version);
    files = new Map([...older, ...current]);
    files.set(
      'releases/SHA256SUMS',
      Buffer.concat([
        older.get('releases/SHA256SUMS') as Buffer,
        current.get('releases/SHA256SUMS') as Buffer,
      ]),
    );
    const chosen = await install({ ESIGN_VERSION: '9.8.7' });
    expect(chosen.stderr).toBe('');
    expect(chosen.code).toBe(0);
    expect(readFileSync(join(chosen.installDir, 'esign'), 'utf8')).toContain('echo 9.8.7');
    expect(readFileSync(SCRIPT, 'utf8')).toContain(`release_version='${pkg.version}'`);
  });

  it('a tampered archive installs nothing: exit 1, and the sums that differ', async () => {
    files = await release(pkg.version);
    const name = `releases/esign-${pkg.version}-${OS}-${ARCH}.tar.gz`;
    files.set(name, Buffer.concat([files.get(name) as Buffer, Buffer.from('x')]));
    const run = await install();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('does not match its sum in SHA256SUMS: nothing installed');
    expect(existsSync(run.installDir)).toBe(false);
  });

  it('a missing sum installs nothing', async () => {
    files = await release(pkg.version);
    files.set('releases/SHA256SUMS', Buffer.from(`${'a'.repeat(64)}  esign-${pkg.version}-win-x64.zip\n`));
    const run = await install();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`SHA256SUMS has no sum for esign-${pkg.version}-${OS}-${ARCH}.tar.gz`);
    expect(existsSync(run.installDir)).toBe(false);
  });

  it('a failed download installs nothing (the archive, or SHA256SUMS)', async () => {
    files = await release(pkg.version);
    const withoutArchive = await install({ ESIGN_VERSION: '0.0.1' });
    expect(withoutArchive.code).toBe(1);
    expect(withoutArchive.stderr).toContain(`Could not download ${url}/esign-0.0.1-${OS}-${ARCH}.tar.gz`);
    expect(existsSync(withoutArchive.installDir)).toBe(false);
    files.delete('releases/SHA256SUMS');
    const withoutSums = await install();
    expect(withoutSums.code).toBe(1);
    expect(withoutSums.stderr).toContain(`Could not download ${url}/SHA256SUMS`);
    expect(existsSync(withoutSums.installDir)).toBe(false);
  });

  it('an unknown platform installs nothing and downloads nothing', async () => {
    files = await release(pkg.version);
    requested.length = 0;
    const system = await install({}, pathWithUname('Plan9', 'x86_64'));
    expect(system.code).toBe(1);
    expect(system.stderr).toContain('No esign executable for this system (Plan9)');
    const machine = await install({}, pathWithUname('Linux', 'sparc64'));
    expect(machine.code).toBe(1);
    expect(machine.stderr).toContain('No esign executable for this processor (sparc64)');
    expect(requested).toEqual([]);
    expect(existsSync(system.installDir) || existsSync(machine.installDir)).toBe(false);
  });

  it('works with wget when curl is not there', async () => {
    const wget = ['/usr/bin/wget', '/bin/wget'].find((path) => existsSync(path));
    if (!wget) return;
    files = await release(pkg.version);
    const tools = mkdtempSync(join(root, 'tools-'));
    for (const tool of [
      'tar',
      'gzip',
      'sha256sum',
      'awk',
      'cut',
      'mktemp',
      'mkdir',
      'cp',
      'mv',
      'rm',
      'chmod',
      'uname',
      'sh',
    ]) {
      const found = ['/usr/bin', '/bin'].map((dir) => join(dir, tool)).find((path) => existsSync(path));
      if (found) symlinkSync(found, join(tools, tool));
    }
    symlinkSync(wget, join(tools, 'wget'));
    const run = await install({}, tools);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(join(run.installDir, 'esign'), 'utf8')).toContain(`echo ${pkg.version}`);
  });

  it('without ESIGN_DOWNLOAD_URL it says what to set, and installs nothing', async () => {
    const run = await install({ ESIGN_DOWNLOAD_URL: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ESIGN_DOWNLOAD_URL is not set');
    expect(existsSync(run.installDir)).toBe(false);
  });
});
