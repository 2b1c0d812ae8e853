// scripts/install.sh as a user runs it, and as an attacker meets it: a release folder served over
// https from 127.0.0.1 by a certificate authority made for this test (given to curl through
// CURL_CA_BUNDLE and to wget through a WGETRC naming it), with curl and with wget alone on the PATH.
// The release is small and fake (an `esign` that is a shell script printing its version), so each
// install takes a fraction of a second; the real executable goes through the same script in .ci/run
// (scripts/check-binary.sh). No network beyond loopback: every refused URL is refused before a
// connection, and the tests assert that nothing was requested.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../../scripts/install.sh');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
/** owner/name of package.json's repository: what `gh attestation verify --repo` must name. */
const REPOSITORY = /github\.com[/:]([^/]+\/[^/]+?)(?:\.git)?$/.exec(pkg.repository.url)?.[1] ?? '';
// On macOS the script also signs what it installs: these tests run where it does not.
const OS = 'linux';
const ARCH = ({ x64: 'x64', arm64: 'arm64' } as Record<string, string>)[process.arch];
const ARCHIVE = `esign-${pkg.version}-${OS}-${ARCH}.tar.gz`;
const supported = process.platform === 'linux' && ARCH !== undefined;
const isRoot = process.getuid?.() === 0;
const UNSHARE = ['/usr/bin/unshare', '/bin/unshare'].find((path) => existsSync(path));
const hasUnshare =
  isRoot && UNSHARE !== undefined && spawnSync(UNSHARE, ['--pid', '--fork', 'true']).status === 0;

const root = mkdtempSync(join(tmpdir(), 'esign-install-'));
/** What the servers hold: path -> bytes, or a redirect. Each test sets the release it serves. */
let files = new Map<string, Buffer | { redirect: string }>();
const requested: string[] = [];
const requestedOverHttp: string[] = [];
let https: Server;
let http: Server;
let url = ''; // https://127.0.0.1:<port>/releases
let httpOrigin = ''; // http://127.0.0.1:<port>
let caFile = '';
let wgetrc = '';

function answer(log: string[]) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const name = (request.url ?? '/').slice(1);
    log.push(name);
    const body = files.get(name);
    if (body instanceof Buffer) response.writeHead(200).end(body);
    else if (body && 'redirect' in body) response.writeHead(302, { location: body.redirect }).end();
    else response.writeHead(404).end('not found');
  };
}

/** A certificate authority of this test's own, and a certificate it signed for 127.0.0.1 and localhost. */
function makeCertificates(dir: string): { key: Buffer; cert: Buffer; ca: string } {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=esign test CA',
  );
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  return {
    key: readFileSync(join(dir, 'server.key')),
    cert: readFileSync(join(dir, 'server.crt')),
    ca: join(dir, 'ca.crt'),
  };
}

const listen = (server: Server) =>
  new Promise<number>((ready) =>
    server.listen(0, '127.0.0.1', () => ready((server.address() as { port: number }).port)),
  );

beforeAll(async () => {
  if (!supported) return;
  const certs = makeCertificates(mkdtempSync(join(root, 'ca-')));
  caFile = certs.ca;
  wgetrc = join(root, 'wgetrc');
  writeFileSync(wgetrc, `ca_certificate = ${caFile}\n`);
  https = createHttpsServer({ key: certs.key, cert: certs.cert }, answer(requested));
  http = createHttpServer(answer(requestedOverHttp));
  url = `https://127.0.0.1:${await listen(https)}/releases`;
  httpOrigin = `http://127.0.0.1:${await listen(http)}`;
});
afterAll(async () => {
  for (const server of [https, http]) {
    if (server) await new Promise<void>((done) => server.close(() => done()));
  }
});

/** A release of `version`: the archive holding an `esign` that prints it, and SHA256SUMS. */
function release(version: string, prefix = 'releases'): Map<string, Buffer> {
  const stage = mkdtempSync(join(root, 'stage-'));
  writeFileSync(join(stage, 'esign'), `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
  const archive = `esign-${version}-${OS}-${ARCH}.tar.gz`;
  execFileSync('tar', ['-czf', join(stage, archive), '-C', stage, 'esign']);
  const bytes = readFileSync(join(stage, archive));
  const sum = createHash('sha256').update(bytes).digest('hex');
  return new Map([
    [`${prefix}/${archive}`, bytes],
    // Another archive's line first: the script must pick the line for its own archive.
    [
      `${prefix}/SHA256SUMS`,
      Buffer.from(`${'0'.repeat(64)}  esign-${version}-other.zip\n${sum}  ${archive}\n`),
    ],
  ]);
}

const TOOLS = ['sh', 'tar', 'gzip', 'sha256sum', 'awk', 'cut', 'sed', 'tail', 'tr', 'mktemp', 'mkdir'];
const MORE_TOOLS = ['cat', 'mv', 'rm', 'chmod', 'uname'];
const toolDirs = new Map<string, string>();
/** A folder of links to the tools the script needs, with `downloader` (curl or wget) and no other. */
function toolsWith(downloader: 'curl' | 'wget'): string {
  const known = toolDirs.get(downloader);
  if (known) return known;
  const dir = mkdtempSync(join(root, `tools-${downloader}-`));
  for (const tool of [...TOOLS, ...MORE_TOOLS, downloader]) {
    const found = ['/usr/bin', '/bin'].map((folder) => join(folder, tool)).find((path) => existsSync(path));
    if (!found) throw new Error(`${tool} is not installed: the install tests need it`);
    symlinkSync(found, join(dir, tool));
  }
  toolDirs.set(downloader, dir);
  return dir;
}
const hasWget = ['/usr/bin/wget', '/bin/wget'].some((path) => existsSync(path));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  installDir: string;
}

interface InstallOptions {
  env?: Record<string, string>;
  downloader?: 'curl' | 'wget';
  /** Folders put before the tools on the PATH (a fake gh, a fake uname). */
  before?: string[];
  installDir?: string;
  /** Runs the script as PID 1 of a new PID namespace (unshare), where `$$` is known in advance. */
  ownPidNamespace?: boolean;
}

/** Runs install.sh with sh, its own empty install folder (unless given), and `env` on top. */
function install(options: InstallOptions = {}): Promise<Run> {
  const installDir = options.installDir ?? join(mkdtempSync(join(root, 'home-')), 'bin');
  const path = [...(options.before ?? []), toolsWith(options.downloader ?? 'curl')].join(':');
  const command = options.ownPidNamespace
    ? [UNSHARE as string, '--pid', '--fork', 'sh', SCRIPT]
    : ['sh', SCRIPT];
  const env = {
    PATH: path,
    HOME: root,
    CURL_CA_BUNDLE: caFile,
    WGETRC: wgetrc,
    ESIGN_DOWNLOAD_URL: url,
    ESIGN_INSTALL_DIR: installDir,
    ...options.env,
  };
  return new Promise((done) =>
    execFile(command[0] as string, command.slice(1), { env }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code) : 0, stdout, stderr, installDir }),
    ),
  );
}

/** A fake `gh`: answers `attestation verify --help`, `auth status` and `attestation verify` as `mode` says, logging its arguments. */
function fakeGh(mode: 'verified' | 'rejected' | 'old' | 'logged-out'): { dir: string; log: string } {
  const dir = mkdtempSync(join(root, `gh-${mode}-`));
  const log = join(dir, 'calls.log');
  writeFileSync(
    join(dir, 'gh'),
    `#!/bin/sh
printf '%s\\n' "$*" >>'${log}'
mode='${mode}'
case "$1 $2" in
  'attestation verify')
    [ "$mode" != old ] || { echo 'unknown command "attestation" for "gh"' >&2; exit 1; }
    [ "$3" != --help ] || exit 0
    [ "$mode" = verified ] && { echo 'Verification succeeded!'; exit 0; }
    echo 'Verification failed: no attestations found' >&2; exit 1 ;;
  'auth status') [ "$mode" != logged-out ] || exit 1; exit 0 ;;
esac
exit 1
`,
    { mode: 0o755 },
  );
  return { dir, log };
}

const nothingInstalled = (run: Run) => !existsSync(join(run.installDir, 'esign'));

describe.skipIf(!supported)('scripts/install.sh', () => {
  describe.each([
    { downloader: 'curl' as const, skip: false },
    { downloader: 'wget' as const, skip: !hasWget },
  ])('with $downloader', ({ downloader, skip }) => {
    it.skipIf(skip)('installs over https, checked against SHA256SUMS, and says what it checked', async () => {
      files = release(pkg.version);
      const run = await install({ downloader });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const installed = join(run.installDir, 'esign');
      expect(run.stdout).toContain(`Installed esign ${pkg.version} in ${installed}\n`);
      expect(run.stdout).toContain(
        `Checked:\n  - ${ARCHIVE} matches its SHA-256 in SHA256SUMS, both downloaded over https from ${url}\n`,
      );
      expect(run.stdout).toContain(
        'Not checked: its build provenance, because the GitHub CLI (gh) is not installed.\n',
      );
      expect(run.stdout).toContain(`gh attestation verify ${ARCHIVE} --repo ${REPOSITORY}`);
      expect(readFileSync(installed, 'utf8')).toBe(`#!/bin/sh\necho ${pkg.version}\n`);
      expect(statSync(installed).mode & 0o777).toBe(0o755);
      expect(readdirSync(run.installDir)).toEqual(['esign']); // no temporary file left
    });

    it.skipIf(skip)('follows a redirect to another https address, as release downloads do', async () => {
      const moved = release(pkg.version, 'cdn');
      files = new Map([...moved]);
      for (const name of ['SHA256SUMS', ARCHIVE]) {
        files.set(`releases/${name}`, {
          redirect: `${new URL(url).origin.replace('127.0.0.1', 'localhost')}/cdn/${name}`,
        });
      }
      const run = await install({ downloader });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(requested).toContain(`cdn/${ARCHIVE}`);
    });

    it.skipIf(skip)(
      'refuses an https->http redirect, also with ESIGN_INSTALL_ALLOW_HTTP=1, and asks nothing over http',
      async () => {
        files = release(pkg.version);
        // The man in the middle's own sums, on a plain-http server: never fetched.
        files.set('evil/SHA256SUMS', Buffer.from(`${'1'.repeat(64)}  ${ARCHIVE}\n`));
        files.set('releases/SHA256SUMS', { redirect: `${httpOrigin}/evil/SHA256SUMS` });
        requestedOverHttp.length = 0;
        const run = await install({ downloader, env: { ESIGN_INSTALL_ALLOW_HTTP: '1' } });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(
          `Refusing a redirect from ${url}/SHA256SUMS to ${downloader === 'wget' ? `${httpOrigin}/evil/SHA256SUMS` : 'a URL that is not https'}: downloads are https only. Nothing installed.`,
        );
        expect(requestedOverHttp).toEqual([]);
        expect(existsSync(run.installDir)).toBe(false);
      },
    );

    it.skipIf(skip)('plain http to 127.0.0.1 works only with ESIGN_INSTALL_ALLOW_HTTP=1', async () => {
      files = release(pkg.version);
      requestedOverHttp.length = 0;
      const refused = await install({ downloader, env: { ESIGN_DOWNLOAD_URL: `${httpOrigin}/releases` } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Refusing ${httpOrigin}/releases: downloads are https only.`);
      expect(refused.stderr).toContain('ESIGN_INSTALL_ALLOW_HTTP=1');
      expect(requestedOverHttp).toEqual([]);
      const allowed = await install({
        downloader,
        env: { ESIGN_DOWNLOAD_URL: `${httpOrigin}/releases`, ESIGN_INSTALL_ALLOW_HTTP: '1' },
      });
      expect(allowed.stderr).toBe('');
      expect(allowed.code).toBe(0);
      expect(allowed.stdout).toContain(`both downloaded over http from ${httpOrigin}/releases`);
      expect(requestedOverHttp).toEqual(['releases/SHA256SUMS', `releases/${ARCHIVE}`]);
    });

    it.skipIf(skip)('a tampered archive installs nothing: exit 1, and the sums that differ', async () => {
      files = release(pkg.version);
      const name = `releases/${ARCHIVE}`;
      files.set(name, Buffer.concat([files.get(name) as Buffer, Buffer.from('x')]));
      const run = await install({ downloader });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('does not match its sum in SHA256SUMS: nothing installed');
      expect(existsSync(run.installDir)).toBe(false);
    });

    it.skipIf(skip)('a server whose certificate the CA did not sign installs nothing', async () => {
      files = release(pkg.version);
      const run = await install({ downloader, env: { CURL_CA_BUNDLE: '/dev/null', WGETRC: '/dev/null' } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `Could not download ${url}/SHA256SUMS (with ${downloader}): nothing installed.`,
      );
      expect(existsSync(run.installDir)).toBe(false);
    });
  });

  it('refuses plain http to any other host, with or without ESIGN_INSTALL_ALLOW_HTTP=1, before any download', async () => {
    files = release(pkg.version);
    requested.length = 0;
    requestedOverHttp.length = 0;
    for (const address of [
      'http://example.invalid/releases',
      'http://127.0.0.1.example.invalid/releases',
      'http://127.0.0.1:80@example.invalid/releases',
      'http://localhost:x@example.invalid/releases',
    ]) {
      for (const allow of ['', '1']) {
        const run = await install({ env: { ESIGN_DOWNLOAD_URL: address, ESIGN_INSTALL_ALLOW_HTTP: allow } });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`Refusing ${address}: downloads are https only.`);
        expect(existsSync(run.installDir)).toBe(false);
      }
    }
    const ftp = await install({ env: { ESIGN_DOWNLOAD_URL: 'ftp://127.0.0.1/releases' } });
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toContain('it must be an https:// URL');
    expect(requested).toEqual([]);
    expect(requestedOverHttp).toEqual([]);
  });

  it('an `esign` folder in the way installs nothing, and the folder keeps what it held', async () => {
    files = release(pkg.version);
    const installDir = join(mkdtempSync(join(root, 'home-')), 'bin');
    mkdirSync(join(installDir, 'esign'), { recursive: true });
    writeFileSync(join(installDir, 'esign', 'notes.txt'), 'mine');
    const run = await install({ installDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${installDir}/esign exists and is not a regular file: nothing installed.`);
    expect(run.stdout).not.toContain('Installed');
    expect(readdirSync(join(installDir, 'esign'))).toEqual(['notes.txt']);
    expect(readdirSync(installDir)).toEqual(['esign']);
  });

  it('an `esign` link in the way is not written through', async () => {
    files = release(pkg.version);
    const installDir = join(mkdtempSync(join(root, 'home-')), 'bin');
    mkdirSync(installDir, { recursive: true });
    const victim = join(root, 'victim-link.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(installDir, 'esign'));
    const run = await install({ installDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('exists and is not a regular file');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readlinkSync(join(installDir, 'esign'))).toBe(victim);
  });

  it('replaces an earlier esign (a regular file) in one rename', async () => {
    files = release(pkg.version);
    const installDir = join(mkdtempSync(join(root, 'home-')), 'bin');
    mkdirSync(installDir, { recursive: true });
    writeFileSync(join(installDir, 'esign'), '#!/bin/sh\necho 0.0.1\n', { mode: 0o755 });
    const run = await install({ installDir });
    expect(run.code).toBe(0);
    expect(readFileSync(join(installDir, 'esign'), 'utf8')).toContain(`echo ${pkg.version}`);
    expect(readdirSync(installDir)).toEqual(['esign']);
  });

  // The attack the issue describes: the temporary file had a predictable name (.esign.install.$$), so
  // a link planted under it in a shared folder was followed by root's cp, and then renamed into place.
  // In a PID namespace of its own the script is PID 1, so the old name is known: `.esign.install.1`.
  it.skipIf(!hasUnshare)(
    'a link planted under a temporary name is neither followed nor installed (PID known in advance)',
    async () => {
      files = release(pkg.version);
      const installDir = join(mkdtempSync(join(root, 'shared-')), 'bin');
      mkdirSync(installDir, { recursive: true });
      const victim = join(root, 'victim-tmp.txt');
      writeFileSync(victim, 'precious');
      for (const name of ['.esign.install.1', '.esign.install.2', '.esign.install.3']) {
        symlinkSync(victim, join(installDir, name));
      }
      const run = await install({ installDir, ownPidNamespace: true });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(readFileSync(victim, 'utf8')).toBe('precious');
      const installed = lstatSync(join(installDir, 'esign'));
      expect(installed.isFile()).toBe(true);
      expect(readFileSync(join(installDir, 'esign'), 'utf8')).toContain(`echo ${pkg.version}`);
      expect(readdirSync(installDir).sort()).toEqual([
        '.esign.install.1',
        '.esign.install.2',
        '.esign.install.3',
        'esign',
      ]);
      expect(readlinkSync(join(installDir, '.esign.install.1'))).toBe(victim);
    },
  );

  describe('build provenance with the GitHub CLI', () => {
    it('verifies the archive with gh attestation verify --repo, and says so', async () => {
      files = release(pkg.version);
      const gh = fakeGh('verified');
      const run = await install({ before: [gh.dir] });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `  - its build provenance: gh attestation verify ${ARCHIVE} --repo ${REPOSITORY}\n`,
      );
      expect(run.stdout).not.toContain('Not checked');
      expect(readFileSync(gh.log, 'utf8')).toMatch(
        new RegExp(`^attestation verify \\S+/${ARCHIVE.replaceAll('.', '\\.')} --repo ${REPOSITORY}$`, 'm'),
      );
    });

    it('an archive gh does not verify installs nothing', async () => {
      files = release(pkg.version);
      const run = await install({ before: [fakeGh('rejected').dir] });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`The build provenance of ${ARCHIVE} could not be verified`);
      expect(run.stderr).toContain('gh: Verification failed: no attestations found');
      expect(nothingInstalled(run)).toBe(true);
    });

    it('a gh without the attestation command, or not logged in: installed, and the check named as not done', async () => {
      files = release(pkg.version);
      const old = await install({ before: [fakeGh('old').dir] });
      expect(old.code).toBe(0);
      expect(old.stdout).toContain(
        "Not checked: its build provenance, because this gh has no 'attestation' command",
      );
      const loggedOut = await install({ before: [fakeGh('logged-out').dir] });
      expect(loggedOut.code).toBe(0);
      expect(loggedOut.stdout).toContain('Not checked: its build provenance, because gh is not logged in');
    });

    it('ESIGN_INSTALL_REQUIRE_ATTESTATION=1: no verified provenance, nothing installed', async () => {
      files = release(pkg.version);
      const env = { ESIGN_INSTALL_REQUIRE_ATTESTATION: '1' };
      const noGh = await install({ env });
      expect(noGh.code).toBe(1);
      expect(noGh.stderr).toContain(
        'the build provenance could not be checked: the GitHub CLI (gh) is not installed',
      );
      expect(nothingInstalled(noGh)).toBe(true);
      const verified = await install({ env, before: [fakeGh('verified').dir] });
      expect(verified.code).toBe(0);
    });
  });

  it('ESIGN_VERSION chooses the version; the default is the one the script was released with', async () => {
    const older = release('9.8.7');
    const current = release(pkg.version);
    files = new Map([...older, ...current]);
    files.set(
      'releases/SHA256SUMS',
      Buffer.concat([
        older.get('releases/SHA256SUMS') as Buffer,
        current.get('releases/SHA256SUMS') as Buffer,
      ]),
    );
    const chosen = await install({ env: { ESIGN_VERSION: '9.8.7' } });
    expect(chosen.stderr).toBe('');
    expect(chosen.code).toBe(0);
    expect(readFileSync(join(chosen.installDir, 'esign'), 'utf8')).toContain('echo 9.8.7');
    const script = readFileSync(SCRIPT, 'utf8');
    expect(script).toContain(`release_version='${pkg.version}'`);
    expect(script).toContain(`release_repository='${REPOSITORY}'`);
  });

  it('without ESIGN_DOWNLOAD_URL it downloads from the GitHub release of its version', async () => {
    // A curl that records what it was asked and fails as an unreachable host does.
    const dir = mkdtempSync(join(root, 'curl-'));
    const log = join(dir, 'calls.log');
    writeFileSync(join(dir, 'curl'), `#!/bin/sh\nprintf '%s\\n' "$*" >>'${log}'\nexit 6\n`, { mode: 0o755 });
    const run = await install({ before: [dir], env: { ESIGN_DOWNLOAD_URL: '' } });
    const expected = `https://github.com/${REPOSITORY}/releases/download/v${pkg.version}/SHA256SUMS`;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Could not download ${expected} (with curl): nothing installed.`);
    expect(readFileSync(log, 'utf8')).toContain(`--proto =https --proto-redir =https`);
  });

  it('a missing sum installs nothing', async () => {
    files = release(pkg.version);
    files.set('releases/SHA256SUMS', Buffer.from(`${'a'.repeat(64)}  esign-${pkg.version}-win-x64.zip\n`));
    const run = await install();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`SHA256SUMS has no sum for ${ARCHIVE}`);
    expect(existsSync(run.installDir)).toBe(false);
  });

  it('a failed download installs nothing (the archive, or SHA256SUMS)', async () => {
    files = release(pkg.version);
    const withoutArchive = await install({ env: { ESIGN_VERSION: '0.0.1' } });
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
    files = release(pkg.version);
    requested.length = 0;
    const uname = (system: string, machine: string) => {
      const dir = mkdtempSync(join(root, 'uname-'));
      writeFileSync(join(dir, 'uname'), `#!/bin/sh\n[ "$1" = -m ] && echo ${machine} || echo ${system}\n`, {
        mode: 0o755,
      });
      return dir;
    };
    const system = await install({ before: [uname('Plan9', 'x86_64')] });
    expect(system.code).toBe(1);
    expect(system.stderr).toContain('No esign executable for this system (Plan9)');
    const machine = await install({ before: [uname('Linux', 'sparc64')] });
    expect(machine.code).toBe(1);
    expect(machine.stderr).toContain('No esign executable for this processor (sparc64)');
    expect(requested).toEqual([]);
    expect(existsSync(system.installDir) || existsSync(machine.installDir)).toBe(false);
  });
});
