// Whole-process start-up of esign next to its floors, on every Node line asked for, measured side by
// side in one run: each case runs once a round, rounds alternate, and each ratio is the median of
// the per-round ratios (each round's pair ran moments apart on this shared machine).
//
// What is measured is CPU time (user + system, every thread of the process, from the shell's `time`:
// what the start costs, whatever else the machine is doing); wall time is shown beside it for the
// create, whose exit may wait on work V8 does in the background.
//
// The floors: `node -e 0`, and the smallest script that could send a create, a CommonJS node:http
// POST (bench/floor-create-cjs.cjs). NODE_EXTRA_CA_CERTS is unset: it costs every start.
//
// BENCH_NODES, BENCH_BEFORE and BENCH_AFTER choose the Node lines and installs (bench/lines.mjs);
// BENCH_ROUNDS (20) the rounds.
// The executable: when release/ holds one for this machine (npm run build:binary), its rows against
// the npm install on the Node it was built from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchNodes, buildCache, installs, versionOf } from './lines.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const root = resolve(import.meta.dirname, '..');
const FLOOR_CJS = join(root, 'bench', 'floor-create-cjs.cjs');
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
/** One Tab after `esign envelope cr`: what the shells' completion scripts run. */
const TAB = ['__complete', '--', 'envelope', 'cr'];

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
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const baseUrl = `http://127.0.0.1:${server.address().port}/api/v1`;
  // The runs' own config folder and cache folder (each install keeps its compile cache there).
  const scratch = mkdtempSync(join(tmpdir(), 'esign-bench-'));
  const env = {
    ...process.env,
    ESIGN_CONFIG_DIR: join(scratch, 'config'),
    XDG_CACHE_HOME: join(scratch, 'cache'),
  };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  const floorEnv = { BENCH_URL: `${baseUrl}/native/envelopes/create`, BENCH_TOKEN: TOKEN };
  // Log in once, so that a create reads its token and base URL from the profile, as a user's would.
  const login = spawnSync(
    process.execPath,
    [installs().at(-1).bin, 'login', '--with-token', '--base-url', baseUrl],
    {
      env,
      input: TOKEN,
    },
  );
  if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);
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

async function nodeLine(node, env, floorEnv) {
  const cases = {
    'node -e 0': [node, ['-e', '0'], {}],
    'POST script, CommonJS': [node, [FLOOR_CJS], floorEnv],
  };
  const rows = [];
  const list = installs();
  for (const { name, bin } of list) {
    const label = list.length > 1 ? ` (${name})` : '';
    cases[`--version${label}`] = [node, [bin, '--version'], {}];
    cases[`--help${label}`] = [node, [bin, '--help'], {}];
    cases[`Tab${label}`] = [node, [bin, ...TAB], {}];
    cases[`create${label}`] = [node, [bin, ...CREATE, '-q'], {}];
    rows.push(
      [`--version${label}`, 'node -e 0', 1.2],
      [`--help${label}`, 'node -e 0', 1.5],
      [`Tab${label}`, 'node -e 0', 1.5],
      [`create${label}`, 'POST script, CommonJS', 2.2],
    );
  }
  const times = await interleaved(cases, env);
  printTable(`Node ${versionOf(node)}`, times, rows);
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
  const node = join(buildCache, `node-v${NODE_VERSION}`, target, 'package', 'bin', 'node');
  if (!existsSync(binary) || !existsSync(node)) {
    console.log('\n(no executable in release/ for this machine: run `npm run build:binary` for its rows)');
    return undefined;
  }
  const bin = join(root, 'bin', 'esign.js');
  const cases = {
    'node -e 0': [node, ['-e', '0'], {}],
    'POST script, CommonJS': [node, [FLOOR_CJS], floorEnv],
    'npm install --version': [node, [bin, '--version'], {}],
    'executable --version': [binary, ['--version'], {}],
    'npm install --help': [node, [bin, '--help'], {}],
    'executable --help': [binary, ['--help'], {}],
    'npm install Tab': [node, [bin, ...TAB], {}],
    'executable Tab': [binary, TAB, {}],
    'npm install create': [node, [bin, ...CREATE, '-q'], {}],
    'executable create': [binary, [...CREATE, '-q'], {}],
  };
  const times = await interleaved(cases, env);
  printTable(`the executable (Node v${NODE_VERSION}) against the npm install on the same Node`, times, [
    ['executable --version', 'node -e 0', 1.2],
    ['executable --help', 'node -e 0', 1.5],
    ['executable Tab', 'node -e 0', 1.6],
    ['executable create', 'POST script, CommonJS', 2.2],
    ['executable --help', 'npm install --help', null],
    ['executable create', 'npm install create', null],
  ]);
  return times;
}

/** Runs every case once a round, ROUNDS rounds after a warm-up round; each case's measures, in order. */
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

/**
 * Runs one command under the shell's `time`, which reports the child's own CPU (getrusage of the
 * children, in milliseconds): { cpu, wall } in ms. Awaited, never spawnSync: the server answering
 * the creates runs in this process.
 */
function runOne(command, args, env) {
  const script = 'TIMEFORMAT="esign-bench %3R %3U %3S"; time "$@" >/dev/null';
  return new Promise((done, reject) => {
    const child = spawn('bash', ['-c', script, 'bench', command, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => {
      const timed = /esign-bench ([\d.]+) ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      if (code !== 0 || !timed) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else done({ wall: Number(timed[1]) * 1000, cpu: (Number(timed[2]) + Number(timed[3])) * 1000 });
    });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function printTable(title, times, rows) {
  console.log(
    `\nStart-up, ${title}: CPU (user + system), medians of ${ROUNDS} alternating rounds; wall beside it`,
  );
  console.log(
    `${'command'.padEnd(24)}${'CPU'.padStart(9)}${'wall'.padStart(9)}   ${'against'.padEnd(24)}${'CPU'.padStart(9)}${'ratio'.padStart(8)}  target`,
  );
  for (const [name, floor, target] of rows) {
    const ratio = median(times[name].map((time, round) => time.cpu / times[floor][round].cpu));
    const verdict = target ? `<= ${target}x ${ratio <= target ? 'ok' : 'MISSED'}` : '';
    const ms = (list, key) => `${median(list.map((t) => t[key])).toFixed(1)} ms`;
    console.log(
      `${name.padEnd(24)}${ms(times[name], 'cpu').padStart(9)}${ms(times[name], 'wall').padStart(9)}   ${floor.padEnd(24)}${ms(times[floor], 'cpu').padStart(9)}${`${ratio.toFixed(2)}x`.padStart(8)}  ${verdict}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await startupBench();
