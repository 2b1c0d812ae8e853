// Whole-process timings of esign next to their floors, measured side by side in one run: commands
// are interleaved round by round so that noise on this shared machine hits all alike, and each
// ratio is the median of the per-round ratios (alternating pairs), not a ratio of medians.
//
// The floors: `node -e 0`, and the smallest script that could send a create, a node:http POST, as
// CommonJS (the true floor) and as an ES module (on Node 22.5+ an ES import of node:http also loads
// Node's bundled undici). NODE_EXTRA_CA_CERTS is unset: it costs every start (Node 20: ~40 ms).
//
// Node lines: this one; BENCH_NODES=/path/to/node:/other/node for others (.ci/run keeps Node 22, 24
// and 26 in ~/.cache/esign-build/node<NN>/node_modules/node/bin/node). The executable: when
// release/ holds one for this machine (npm run build:binary), its --version, --help and create
// against the npm install run by the same Node it was built from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const root = new URL('..', import.meta.url).pathname;
const BIN = join(root, 'bin', 'esign.js');
const FLOOR_CJS = join(root, 'bench', 'floor-create-cjs.cjs');
const FLOOR_ESM = join(root, 'bench', 'floor-create-esm.mjs');
const TOKEN = 'tok_bench_0123456789abcdef';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const CREATE = [
  'envelope',
  'create',
  '--template',
  TEMPLATE,
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
];

const envelope = JSON.stringify({
  success: true,
  data: {
    envelope_id: TEMPLATE,
    signing_url: `http://127.0.0.1/sign/${TEMPLATE}`,
    status: 'ready',
    created_at: '2026-11-22T10:00:00.000Z',
    expires_at: '2026-12-22T10:00:00.000Z',
  },
});

export async function startupBench() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(envelope);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${server.address().port}/api/v1`;
  const env = {
    ...process.env,
    ESIGN_CONFIG_DIR: join(mkdtempSync(join(tmpdir(), 'esign-bench-')), 'config'),
  };
  delete env.NODE_EXTRA_CA_CERTS;
  const floorEnv = { BENCH_URL: `${baseUrl}/native/envelopes/create`, BENCH_TOKEN: TOKEN };
  // Log in once so the real create reads its token and base URL from the profile, as a user's would.
  spawnSync(process.execPath, [BIN, 'login', '--with-token', '--base-url', baseUrl], { env, input: TOKEN });
  const results = {};
  try {
    for (const node of benchNodes()) results[node] = await nodeLine(node, env, floorEnv);
    const binary = await binaryRows(env, floorEnv);
    if (binary) results.binary = binary;
  } finally {
    server.close();
  }
  return results;
}

function benchNodes() {
  const others = (process.env.BENCH_NODES ?? '').split(delimiter).filter(Boolean);
  return [process.execPath, ...others.filter((node) => node !== process.execPath)];
}

async function nodeLine(node, env, floorEnv) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const cases = {
    'node -e 0': [node, ['-e', '0'], {}],
    'esign --version': [node, [BIN, '--version'], {}],
    'esign --help': [node, [BIN, '--help'], {}],
    'esign envelope create --dry-run': [node, [BIN, ...CREATE, '--dry-run'], {}],
    'POST script, CommonJS': [node, [FLOOR_CJS], floorEnv],
    'POST script, ES module': [node, [FLOOR_ESM], floorEnv],
    'esign envelope create': [node, [BIN, ...CREATE, '-q'], {}],
  };
  const times = await interleaved(cases, env);
  printTable(`Node ${version}`, times, [
    ['esign --version', 'node -e 0', 1.2],
    ['esign --help', 'node -e 0', 1.3],
    ['esign envelope create --dry-run', 'node -e 0', null],
    ['esign envelope create', 'POST script, ES module', 1.2],
    ['esign envelope create', 'POST script, CommonJS', 1.7],
  ]);
  return times;
}

/** The executable for this machine, against the npm install on the Node it was built from. */
async function binaryRows(env, floorEnv) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const target = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const binary = join(
    root,
    'release',
    `esign-${version}-${target}${process.platform === 'win32' ? '.exe' : ''}`,
  );
  const { NODE_VERSION } = await import('../scripts/node-version.mjs');
  const cache =
    process.env.ESIGN_BUILD_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'esign-build');
  const node = join(cache, `node-v${NODE_VERSION}`, target, 'package', 'bin', 'node');
  if (!existsSync(binary) || !existsSync(node)) {
    console.log('\n(no executable in release/ for this machine: run `npm run build:binary` for its rows)');
    return undefined;
  }
  const cases = {
    'node -e 0': [node, ['-e', '0'], {}],
    'npm install --version': [node, [BIN, '--version'], {}],
    'executable --version': [binary, ['--version'], {}],
    'npm install --help': [node, [BIN, '--help'], {}],
    'executable --help': [binary, ['--help'], {}],
    'npm install create': [node, [BIN, ...CREATE, '-q'], {}],
    'executable create': [binary, [...CREATE, '-q'], {}],
    'POST script, CommonJS': [node, [FLOOR_CJS], floorEnv],
    'POST script, ES module': [node, [FLOOR_ESM], floorEnv],
  };
  const times = await interleaved(cases, env);
  printTable(`the executable (Node v${NODE_VERSION}) against the npm install on the same Node`, times, [
    ['executable --version', 'npm install --version', null],
    ['executable --help', 'npm install --help', null],
    ['executable --help', 'node -e 0', 1.3],
    ['executable create', 'npm install create', null],
    ['executable create', 'POST script, ES module', 1.2],
    ['executable create', 'POST script, CommonJS', 1.7],
  ]);
  return times;
}

/** Runs every case once a round, ROUNDS rounds after a warm-up; the times of each, in order. */
async function interleaved(cases, env) {
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (const [command, args, extraEnv] of Object.values(cases))
    await runOne(command, args, { ...env, ...extraEnv });
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [command, args, extraEnv]] of Object.entries(cases)) {
      times[name].push(await runOne(command, args, { ...env, ...extraEnv }));
    }
  }
  return times;
}

// Spawning synchronously would block the in-process server, so each run is awaited.
function runOne(command, args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function printTable(title, times, rows) {
  console.log(`\nStart-up, ${title}: wall time, medians of ${ROUNDS} interleaved rounds`);
  console.log(
    `${'command'.padEnd(32)}${'median'.padStart(10)}   ${'against'.padEnd(26)}${'median'.padStart(10)}${'ratio'.padStart(8)}  target`,
  );
  for (const [name, floor, target] of rows) {
    const ratio = median(times[name].map((time, round) => time / times[floor][round]));
    const verdict = target ? `<= ${target}x ${ratio <= target ? 'ok' : 'MISSED'}` : '';
    console.log(
      `${name.padEnd(32)}${`${median(times[name]).toFixed(1)} ms`.padStart(10)}   ${floor.padEnd(26)}${`${median(times[floor]).toFixed(1)} ms`.padStart(10)}${`${ratio.toFixed(2)}x`.padStart(8)}  ${verdict}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await startupBench();
