// Whole-process start-up of esign next to its floors, on every Node line asked for, measured side by
// side in one run: each case runs once a round, rounds alternate, and each ratio is the median of
// the per-round ratios (each round's pair ran moments apart on this shared machine).
//
// What is measured is CPU time (user + system, every thread of the process, from the shell's `time`:
// what the start costs, whatever else the machine is doing); wall time is shown beside it for the
// create, whose exit may wait on work V8 does in the background.
//
// The floors: `node -e 0` for --version, --help and Tab. For a create, the undici floor: the cheaper
// (by median) of two minimal scripts sending the same POST to the same server with undici as
// installed, one through its index (bench/floor-create-undici.mjs), one loading its Agent and
// connector the way src/transport/ does (bench/floor-create-agent.mjs); and, reported beside it, the
// CommonJS node:http script (bench/floor-create-cjs.cjs), what no HTTP library costs. The same over
// TLS: a local https server with a test CA made at bench time (openssl), trusted through
// NODE_EXTRA_CA_CERTS by every process of those rows alike; elsewhere NODE_EXTRA_CA_CERTS is unset
// (it costs every start). Each ratio is printed with its spread: the lowest and highest of the
// per-round ratios around the median, and the quartiles.
//
// BENCH_NODES, BENCH_BEFORE and BENCH_AFTER choose the Node lines and installs (bench/lines.mjs);
// BENCH_ROUNDS (20) the rounds; BENCH_TLS=0 leaves the TLS rows out.
// The executable: when release/ holds one for this machine (npm run build:binary), its rows against
// the npm install on the Node it was built from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchNodes, buildCache, installs, versionOf } from './lines.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const root = resolve(import.meta.dirname, '..');
const FLOOR_CJS = join(root, 'bench', 'floor-create-cjs.cjs');
const FLOOR_INDEX = join(root, 'bench', 'floor-create-undici.mjs');
const FLOOR_AGENT = join(root, 'bench', 'floor-create-agent.mjs');
const TLS = process.env.BENCH_TLS !== '0';
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
  const answer = (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(envelope);
    });
  };
  const server = createServer(answer);
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
  login(env, baseUrl);
  const tls = TLS ? await tlsServer(scratch, answer, env) : undefined;
  const results = {};
  try {
    for (const node of benchNodes()) results[node] = await nodeLine(node, env, floorEnv, tls?.env);
    const binary = await binaryRows(env, floorEnv);
    if (binary) results.binary = binary;
  } finally {
    server.close();
    tls?.server.close();
  }
  return results;
}

function login(env, baseUrl) {
  const login = spawnSync(
    process.execPath,
    [installs().at(-1).bin, 'login', '--with-token', '--base-url', baseUrl],
    { env, input: TOKEN },
  );
  if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);
}

/**
 * The same server over TLS, with a certificate for 127.0.0.1 from a test CA made now (openssl); the
 * environment of its rows: a profile of its own whose base URL is https://, and the CA trusted
 * through NODE_EXTRA_CA_CERTS (by esign and the floors alike). Undefined without openssl.
 */
async function tlsServer(scratch, answer, env) {
  const dir = join(scratch, 'tls');
  const openssl = (...args) => spawnSync('openssl', args, { cwd: scratch, encoding: 'utf8' });
  if (openssl('version').status !== 0) {
    console.log('\n(no openssl on this machine: the TLS rows are left out)');
    return undefined;
  }
  spawnSync('mkdir', ['-p', dir]);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const steps = [
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'tls/ca.key',
      '-out',
      'tls/ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=esign bench CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    ['req', ...ec, '-keyout', 'tls/server.key', '-out', 'tls/server.csr', '-subj', '/CN=127.0.0.1'],
    [
      'x509',
      '-req',
      '-in',
      'tls/server.csr',
      '-CA',
      'tls/ca.pem',
      '-CAkey',
      'tls/ca.key',
      '-CAcreateserial',
      '-out',
      'tls/server.pem',
      '-days',
      '2',
      '-extfile',
      'tls/ext.cnf',
    ],
  ];
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const step of steps) {
    const made = openssl(...step);
    if (made.status !== 0) throw new Error(`openssl ${step[0]} failed: ${made.stderr}`);
  }
  const server = createTlsServer(
    { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
    answer,
  );
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const baseUrl = `https://127.0.0.1:${server.address().port}/api/v1`;
  const tlsEnv = {
    ESIGN_CONFIG_DIR: join(scratch, 'config-tls'),
    NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    BENCH_URL: `${baseUrl}/native/envelopes/create`,
    BENCH_TOKEN: TOKEN,
  };
  login({ ...env, ...tlsEnv }, baseUrl);
  return { server, env: tlsEnv };
}

/** The undici floor: the cheaper, by median, of its two scripts (a name, or a list to choose from). */
const UNDICI_FLOOR = ['undici floor, index', 'undici floor, Agent'];
const UNDICI_FLOOR_TLS = ['undici floor, index, TLS', 'undici floor, Agent, TLS'];

async function nodeLine(node, env, floorEnv, tlsEnv) {
  const cases = {
    'node -e 0': [node, ['-e', '0'], {}],
    'POST script, CommonJS': [node, [FLOOR_CJS], floorEnv],
    'undici floor, index': [node, [FLOOR_INDEX], floorEnv],
    'undici floor, Agent': [node, [FLOOR_AGENT], floorEnv],
  };
  if (tlsEnv) {
    cases['POST script, CJS, TLS'] = [node, [FLOOR_CJS], tlsEnv];
    cases['undici floor, index, TLS'] = [node, [FLOOR_INDEX], tlsEnv];
    cases['undici floor, Agent, TLS'] = [node, [FLOOR_AGENT], tlsEnv];
  }
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
      [`create${label}`, UNDICI_FLOOR, 1.4],
      [`create${label}`, 'POST script, CommonJS', null],
    );
    if (tlsEnv) {
      cases[`create, TLS${label}`] = [node, [bin, ...CREATE, '-q'], tlsEnv];
      rows.push(
        [`create, TLS${label}`, UNDICI_FLOOR_TLS, null],
        [`create, TLS${label}`, 'POST script, CJS, TLS', null],
      );
    }
  }
  const times = await interleaved(cases, env);
  printTable(`Node ${versionOf(node)}`, times, rows);
  if (process.env.BENCH_INSTRUCTIONS === '1') await instructionRows(node, cases, rows, env);
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

/** The value at fraction `at` (0 to 1) of the sorted values, interpolated. */
function quantile(values, at) {
  const sorted = [...values].sort((a, b) => a - b);
  const index = (sorted.length - 1) * at;
  const low = Math.floor(index);
  return sorted[low] + ((sorted[Math.ceil(index)] ?? sorted[low]) - sorted[low]) * (index - low);
}

/** A floor given as a list of cases: the one with the lower median of `key`. */
function chooseFloor(times, floor, key) {
  if (!Array.isArray(floor)) return floor;
  return floor.reduce((best, name) =>
    median(times[name].map((t) => t[key])) < median(times[best].map((t) => t[key])) ? name : best,
  );
}

/** A ratio's median with its spread: the quartiles of the per-round ratios, then their lowest and highest. */
function spreadText(ratios) {
  const f = (value) => value.toFixed(2);
  return `${f(quantile(ratios, 0.5))}x  (quartiles ${f(quantile(ratios, 0.25))}-${f(quantile(ratios, 0.75))}, range ${f(Math.min(...ratios))}-${f(Math.max(...ratios))})`;
}

function printTable(title, times, rows, { key = 'cpu', what = 'CPU (user + system)', rounds = ROUNDS } = {}) {
  console.log(
    `\nStart-up, ${title}: ${what}, medians of ${rounds} alternating rounds${key === 'cpu' ? '; wall beside it' : ''}`,
  );
  console.log(
    `${'command'.padEnd(22)}${key.padStart(10)}${(key === 'cpu' ? 'wall' : '').padStart(10)}   ${'against'.padEnd(26)}${key.padStart(10)}  ratio (spread)  target`,
  );
  const unit = key === 'cpu' ? (v) => `${v.toFixed(1)} ms` : (v) => `${(v / 1e6).toFixed(0)} M`;
  const show = (list, k) => (list[0]?.[k] === undefined ? '' : unit(median(list.map((t) => t[k]))));
  for (const [name, floors, target] of rows) {
    const floor = chooseFloor(times, floors, key);
    const ratios = times[name].map((time, round) => time[key] / times[floor][round][key]);
    const ratio = median(ratios);
    const verdict = target ? `  <= ${target}x ${ratio <= target ? 'ok' : 'MISSED'}` : '';
    console.log(
      `${name.padEnd(22)}${show(times[name], key).padStart(10)}${(key === 'cpu' ? show(times[name], 'wall') : '').padStart(10)}   ${floor.padEnd(26)}${show(times[floor], key).padStart(10)}  ${spreadText(ratios)}${verdict}`,
    );
  }
}

/**
 * BENCH_INSTRUCTIONS=1: the create rows again, counted in instructions (valgrind's callgrind, every
 * thread of the process), BENCH_INSTRUCTION_ROUNDS (3) alternating rounds: stable on a busy machine,
 * where CPU time is not.
 */
async function instructionRows(node, cases, rows, env) {
  const rounds = Number(process.env.BENCH_INSTRUCTION_ROUNDS ?? 3);
  const wanted = rows.filter(([name]) => name.startsWith('create'));
  const names = new Set(wanted.flatMap(([name, floor]) => [name, ...[floor].flat()]));
  const counts = Object.fromEntries([...names].map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const [command, args, extraEnv] = cases[name];
      counts[name].push({ instructions: await instructionsOf(command, args, { ...env, ...extraEnv }) });
    }
  }
  printTable(`Node ${versionOf(node)}`, counts, wanted, {
    key: 'instructions',
    what: 'instructions (callgrind)',
    rounds,
  });
}

function instructionsOf(command, args, env) {
  return new Promise((done, reject) => {
    const child = spawn(
      'valgrind',
      ['--tool=callgrind', '--callgrind-out-file=/dev/null', command, ...args],
      {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => {
      const collected = /Collected : (\d+)/.exec(stderr);
      if (code !== 0 || !collected)
        reject(new Error(`valgrind ${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else done(Number(collected[1]));
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await startupBench();
