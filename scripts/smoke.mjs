// A smoke test of an installed esign, for systems the test suite does not run on (macOS, Windows in
// .github/workflows/ci.yml): `esign --version` is package.json's version, then `esign sandbox` on a
// free port, `esign login --with-token` into a throwaway config folder, and `esign envelope create
// --json`, which must print a signing URL.
//
//   node scripts/smoke.mjs [COMMAND]     COMMAND: how to start esign (default `esign`, found on PATH:
//                                        the npm install's shim, esign.cmd on Windows; or the path
//                                        of an executable)
// Exits 0 when all of it worked, 1 with the step that failed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const command = process.argv[2] ?? 'esign';
const windows = process.platform === 'win32';
const expectedVersion = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
const configDir = mkdtempSync(join(tmpdir(), 'esign-smoke-'));
const env = { ...process.env, ESIGN_CONFIG_DIR: configDir, NO_COLOR: '1' };

// npm's shim on Windows is a .cmd file, which Node starts only through the shell. Every argument
// here is this script's own text (no quotes inside), so quoting each one in "" is enough for cmd.
const launch = (args) => ({
  file: windows ? `"${command}"` : command,
  args: windows ? args.map((arg) => `"${arg}"`) : args,
  options: { env, shell: windows, windowsHide: true },
});

function esign(args, input) {
  const { file, args: argv, options } = launch(args);
  const result = spawnSync(file, argv, { ...options, input, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    fail(`esign ${args.join(' ')} exited ${result.status ?? result.error?.message}`, result.stderr);
  }
  return result.stdout;
}

function fail(what, detail = '') {
  console.error(`smoke: ${what}`);
  if (detail) console.error(detail.trimEnd());
  stop();
  rmSync(configDir, { recursive: true, force: true });
  process.exit(1);
}

let sandbox;
function stop() {
  if (!sandbox || sandbox.exitCode !== null) return;
  // Through cmd.exe on Windows: end the whole tree, or the sandbox outlives the shell around it.
  if (windows) spawnSync('taskkill', ['/pid', String(sandbox.pid), '/T', '/F'], { stdio: 'ignore' });
  else sandbox.kill('SIGTERM');
}

const version = esign(['--version']).trim();
if (version !== expectedVersion) fail(`esign --version printed "${version}", not ${expectedVersion}`);
console.log(`esign --version: ${version}`);

const started = launch(['sandbox', '--port', '0', '--json']);
sandbox = spawn(started.file, started.args, { ...started.options, stdio: ['ignore', 'pipe', 'pipe'] });
let sandboxErr = '';
sandbox.stderr.on('data', (chunk) => {
  sandboxErr += chunk;
});
const info = JSON.parse(
  await new Promise((resolve) => {
    const early = (code) => fail(`esign sandbox exited ${code} before it listened`, sandboxErr);
    sandbox.once('exit', early);
    createInterface({ input: sandbox.stdout }).once('line', (line) => {
      sandbox.off('exit', early);
      resolve(line);
    });
  }),
);
console.log(`esign sandbox: ${info.base_url}`);
const organisation = info.organisations[0];
const template = organisation.templates[0];
esign(['login', '--with-token', '--base-url', info.base_url], `${organisation.token}\n`);
const sets = template.merge_tags.flatMap((tag) => ['--set', `${tag}=Smoke-${tag}`]);
const created = JSON.parse(
  esign([
    'envelope',
    'create',
    '--template',
    template.id,
    ...sets,
    '--name',
    'Smoke Test',
    '--email',
    'smoke@example.com',
    '--json',
  ]),
);
if (typeof created.signing_url !== 'string' || !created.signing_url.startsWith('http')) {
  fail('envelope create printed no signing URL', JSON.stringify(created));
}
console.log(`esign envelope create: ${created.envelope_id} (${created.status})`);
stop();
rmSync(configDir, { recursive: true, force: true });
console.log(`smoke passed on ${process.platform}-${process.arch}, Node ${process.versions.node}`);
