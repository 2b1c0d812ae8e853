// Batch throughput against the sandbox, on each Node line (bench/lines.mjs: BENCH_NODES), for each
// install (BENCH_BEFORE and this checkout), side by side in one run with a bare undici pool posting
// the same records on the same Node line, and with the same batch to stdout (no journal, no synced
// results file, no lock: what --output's durability costs is the difference); on the first line
// also (a) the sandbox's own ceiling for the same request, measured by autocannon with 16
// connections, the leanest undici client and (c) a shell loop of `esign envelope create` over the
// first 200 records, scaled; then, on each line, the peak RSS of a BENCH_BATCH_BIG-record batch
// (100,000; 0 leaves it out) against the bare pool over the same records, in BENCH_BATCH_BIG_ROUNDS
// (3) alternating rounds, and how much each peak grew from the RECORDS-record runs. The bare pool
// (bench/floor-batch.mjs) streams the same records file with the same concurrency to the same
// sandbox and writes each answer to a results file of its own, as esign does with --output.
//
// Targets: esign's peak at BENCH_BATCH_BIG records <= 1.2x the pool's; its growth from RECORDS to
// BENCH_BATCH_BIG records at most 10 MB more than the pool's; its throughput >= 0.9x the pool's.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { benchNodes, installs, versionOf } from './lines.mjs';

const BIN = new URL('../bin/esign.js', import.meta.url).pathname;
const RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 10_000);
const BIG = Number(process.env.BENCH_BATCH_BIG ?? 100_000);
const SHELL_LOOP = 200;
const dir = mkdtempSync(join(tmpdir(), 'esign-bench-batch-'));

async function startSandbox() {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

function writeRecords(path, count, template) {
  const tags = template.merge_tags;
  const lines = [];
  for (let i = 0; i < count; i++) {
    const merge = Object.fromEntries(tags.map((tag) => [tag, `${tag} ${i}`]));
    lines.push(
      JSON.stringify({
        merge_data: merge,
        signatory: { name: `Person ${i}`, email: `person${i}@example.com` },
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const ROUNDS = Number(process.env.BENCH_BATCH_ROUNDS ?? 3);
const BIG_ROUNDS = Number(process.env.BENCH_BATCH_BIG_ROUNDS ?? 3);
/** Results files written so far: each run writes a file of its own. */
let outputs = 0;

async function stopSandbox(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const createBody = (template) =>
  JSON.stringify({
    template_id: template.id,
    merge_data: Object.fromEntries(template.merge_tags.map((tag) => [tag, `${tag} 1`])),
    signatory: { name: 'Person 1', email: 'person1@example.com' },
  });

function autocannonCreates(info, org, template, limit) {
  return autocannon({
    url: `${info.base_url}/native/envelopes/create`,
    method: 'POST',
    connections: 16,
    ...limit,
    headers: {
      authorization: `Bearer ${org.token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: createBody(template),
  });
}

/**
 * Runs `measure` against a sandbox of its own, warmed up by 2 s of autocannon first, so that every
 * contender meets the same server: JIT-compiled, and holding the same number of envelopes.
 */
async function withWarmSandbox(measure, { warm = true } = {}) {
  const { child, info } = await startSandbox();
  try {
    const org = info.organisations[0];
    const template = org.templates[0];
    if (warm) await autocannonCreates(info, org, template, { duration: 2 });
    const env = {
      ...process.env,
      ESIGN_CONFIG_DIR: join(dir, 'config'),
      ESIGN_BASE_URL: info.base_url,
      ESIGN_TOKEN: org.token,
    };
    return await measure({ info, org, template, env, sandbox: child });
  } finally {
    await stopSandbox(child);
  }
}

const timed = (run) => {
  const started = process.hrtime.bigint();
  const result = run();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, result };
};

// Every node process measured loads this hook: at exit it reports its CPU time (all threads) and
// its peak RSS on stderr.
const HOOK = join(dir, 'measure-hook.mjs');
const hook = () =>
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    process.stderr.write(
      `\nbench-cpu-us=${cpu.user + cpu.system} bench-rss-kb=${process.resourceUsage().maxRSS}\n`,
    );
  });
writeFileSync(HOOK, `(${hook})();\n`);
const measured = (stderr, key) => Number(new RegExp(`bench-${key}=(\\d+)`).exec(stderr)?.[1] ?? Number.NaN);

/** CPU seconds a process has used so far (Linux /proc; NaN elsewhere). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

function spawnOk(node, args, env, what) {
  const result = spawnSync(node, ['--import', HOOK, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`${what} exited ${result.status}: ${result.stderr}`);
  return result;
}

/**
 * Runs a client process over RECORDS records: its rate as a whole process and after its start-up
 * (`inner` reads that from its output), its CPU and the server's per record, and the cores both kept
 * busy.
 */
function clientRun(node, args, { env, sandbox }, what, inner) {
  const server = cpuSeconds(sandbox.pid);
  const { seconds, result } = timed(() => spawnOk(node, args, env, what));
  const clientUs = measured(result.stderr, 'cpu-us') / RECORDS;
  const serverUs = ((cpuSeconds(sandbox.pid) - server) * 1e6) / RECORDS;
  return {
    rate: RECORDS / seconds,
    peakMb: measured(result.stderr, 'rss-kb') / 1024,
    innerRate: inner(result),
    clientUs,
    serverUs,
    cores: ((clientUs + serverUs) * RECORDS) / 1e6 / seconds,
  };
}

/** The sending phase's own rate, from the batch's summary line. */
const summaryRate = (result) => Number(/\((\d+)\/s\); results/.exec(result.stderr)?.[1] ?? Number.NaN);
const floorRate = (result) => JSON.parse(result.stdout).rate;

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function batchBench() {
  const { template } = await withWarmSandbox(async (s) => s, { warm: false });
  const records = join(dir, 'records.jsonl');
  writeRecords(records, RECORDS, template);
  const batchArgs = (bin, file) => [
    bin,
    'envelope',
    'batch',
    file,
    '--template',
    template.id,
    '--concurrency',
    '16',
  ];
  const list = installs();
  const after = list.at(-1).bin;
  const label = (name) => (list.length > 1 ? ` (${name})` : '');
  const nodes = benchNodes();
  for (const [index, node] of nodes.entries()) {
    // Each contender sends the same RECORDS creates with 16 connections to a sandbox of its own,
    // warmed up alike; esign and the bare pool are timed as whole processes. Rounds alternate; medians.
    const contenders = {};
    for (const { name, bin } of list) {
      contenders[`batch${label(name)}`] = (s) =>
        clientRun(
          node,
          [...batchArgs(bin, records), '--output', join(dir, `out-${outputs++}.jsonl`)],
          s,
          'batch',
          summaryRate,
        );
    }
    // a bare undici pool over the same records (its request() API): what a plain undici client pays
    contenders.bareUndici = (s) => clientRun(node, poolArgs(records, template), s, 'bare pool', floorRate);
    // the same batch to stdout: no journal, no results file synced, no lock, so that what --output's
    // durability costs is the difference between the two, on every line
    contenders.batchToStdout = (s) =>
      clientRun(node, batchArgs(after, records), s, 'batch to stdout', summaryRate);
    if (index === 0) Object.assign(contenders, firstLineOnly(node, batchArgs(after, records)));
    const runs = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, measure] of Object.entries(contenders))
        runs[name].push(await withWarmSandbox(measure));
    }
    printLine(
      node,
      runs,
      list.map(({ name }) => `batch${label(name)}`),
    );
    if (BIG > 0) printMemory(node, runs, list, await bigBatches(node, list, label));
    if (index === 0) await shellLoop(node, after, runs[`batch${label('after')}`]);
  }
}

/** The contenders measured on the first Node line only: what bounds the batch from the other side. */
function firstLineOnly(node, batchArgs) {
  return {
    // the sandbox's ceiling for the same request. autocannon counts in whole seconds (a run of a
    // fixed number of requests ends on its next tick), so the ceiling is the 2xx rate of a 2 s run.
    ceiling: async ({ info, org, template, sandbox }) => {
      const server = cpuSeconds(sandbox.pid);
      const result = await autocannonCreates(info, org, template, { duration: 2 });
      return {
        rate: result['2xx'] / result.duration,
        serverUs: ((cpuSeconds(sandbox.pid) - server) * 1e6) / result['2xx'],
      };
    },
    // the leanest undici client: callbacks, bodies serialized beforehand, nothing checked or written
    leanUndici: (s) =>
      clientRun(
        node,
        [new URL('./floor-dispatch.mjs', import.meta.url).pathname, batchArgs[3], batchArgs[5]],
        s,
        'lean undici',
        floorRate,
      ),
  };
}

function printLine(node, runs, batches) {
  const m = Object.fromEntries(
    Object.entries(runs).map(([name, values]) => [
      name,
      Object.fromEntries(
        ['rate', 'innerRate', 'clientUs', 'serverUs', 'cores'].map((key) => [
          key,
          median(values.map((v) => v[key] ?? Number.NaN)),
        ]),
      ),
    ]),
  );
  const ceiling = m.ceiling?.rate;
  const pct = (value) =>
    (Number.isFinite(value) && ceiling ? `${((value / ceiling) * 100).toFixed(0)}%` : '').padStart(5);
  const num = (value, unit = '') => (Number.isFinite(value) ? `${value.toFixed(0)}${unit}` : '—');
  const row = (label, { rate, innerRate, clientUs, serverUs, cores }, note = '') => {
    console.log(
      `  ${label.padEnd(36)}${num(rate).padStart(7)} ${pct(rate)} ${num(innerRate).padStart(8)} ${pct(innerRate)} ${num(clientUs, ' µs').padStart(7)} ${num(serverUs, ' µs').padStart(7)} ${(Number.isFinite(cores) ? cores.toFixed(2) : '').padStart(5)}  ${note}`,
    );
  };
  console.log(
    `\nBatch throughput, Node ${versionOf(node)}: ${RECORDS} creates, 16 connections, each run on a sandbox`,
  );
  console.log(
    `of its own warmed up alike, median of ${ROUNDS} alternating rounds (${availableParallelism()} cores). Rates per second:`,
  );
  console.log(
    `  whole process, and after start-up (esign: the sending phase); CPU a record; cores both processes kept busy`,
  );
  console.log(
    `  ${''.padEnd(36)}${'whole'.padStart(7)} ${'share'.padStart(5)} ${'sending'.padStart(8)} ${'share'.padStart(5)} ${'client'.padStart(7)} ${'server'.padStart(7)} ${'cores'.padStart(5)}`,
  );
  const none = { innerRate: Number.NaN, clientUs: Number.NaN, cores: Number.NaN };
  if (m.ceiling) row('autocannon, 2 s (the ceiling)', { ...none, ...m.ceiling, innerRate: m.ceiling.rate });
  for (const name of batches) row(`esign envelope ${name} --output`, m[name]);
  row('esign envelope batch, to stdout', m.batchToStdout, 'nothing synced to disk');
  row('bare undici pool, --output alike', m.bareUndici, 'streams the records, writes each answer');
  if (m.leanUndici) row('leanest undici client (dispatch)', m.leanUndici, 'nothing validated or written');
  for (const name of batches) {
    // Each round's own ratio: the two ran seconds apart, so a slow spell of the shared machine
    // weighs on both sides of it alike.
    const ratios = runs[name].map((run, i) => run.rate / runs.bareUndici[i].rate);
    console.log(
      `  ${name} --output, whole process: ${(median(ratios)).toFixed(2)}x the bare pool (the rounds: ${ratios.map((r) => r.toFixed(2)).join(' ')}; target >= 0.9x)`,
    );
  }
  const toStdout = runs.batchToStdout.map((run, i) => run.rate / runs.bareUndici[i].rate);
  console.log(
    `  batch to stdout, whole process: ${median(toStdout).toFixed(2)}x the bare pool (the rounds: ${toStdout.map((r) => r.toFixed(2)).join(' ')}; --output's journal, syncs and lock are the difference)`,
  );
}

const poolArgs = (records, template) => [
  new URL('./floor-batch.mjs', import.meta.url).pathname,
  records,
  template.id,
  join(dir, `pool-out-${outputs++}.jsonl`),
  '16',
];

/**
 * The peak RSS of a BIG-record batch --output for each install, and of the bare pool over the same
 * records, BIG_ROUNDS alternating rounds, each on a fresh sandbox: { name: [{ peakMb, rate }] }.
 */
async function bigBatches(node, list, label) {
  const big = join(dir, 'big.jsonl');
  const contenders = {};
  for (const { name, bin } of list) {
    contenders[`batch${label(name)}`] = ({ template }) => [
      bin,
      'envelope',
      'batch',
      big,
      '--template',
      template.id,
      '--concurrency',
      '16',
      '--output',
      join(dir, `big-out-${outputs++}.jsonl`),
    ];
  }
  contenders.bareUndici = ({ template }) => poolArgs(big, template);
  const runs = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let round = 0; round < BIG_ROUNDS; round++) {
    for (const [name, args] of Object.entries(contenders)) {
      runs[name].push(
        await withWarmSandbox(async (s) => {
          if (round === 0 && name === Object.keys(contenders)[0]) writeRecords(big, BIG, s.template);
          const run = timed(() => spawnOk(node, args(s), s.env, `${name}, ${BIG} records`));
          return { peakMb: measured(run.result.stderr, 'rss-kb') / 1024, rate: BIG / run.seconds };
        }),
      );
    }
  }
  return runs;
}

const spread = (values, digits = 2) => {
  const f = (v) => v.toFixed(digits);
  return `${f(median(values))} (range ${f(Math.min(...values))}-${f(Math.max(...values))})`;
};

/** Peak RSS at RECORDS and BIG records, esign against the bare pool, with each ratio's rounds. */
function printMemory(node, small, list, big) {
  console.log(
    `\nBatch memory, Node ${versionOf(node)}: peak RSS, --output, 16 connections; medians of alternating rounds (${ROUNDS} at ${RECORDS} records, ${BIG_ROUNDS} at ${BIG})`,
  );
  const pool = (runs) => runs.bareUndici.map((run) => run.peakMb);
  for (const { name } of list) {
    const key = `batch${list.length > 1 ? ` (${name})` : ''}`;
    const esignSmall = small[key].map((run) => run.peakMb);
    const esignBig = big[key].map((run) => run.peakMb);
    const ratio = esignBig.map((peak, i) => peak / pool(big)[i]);
    const growth = median(esignBig) - median(esignSmall);
    const poolGrowth = median(pool(big)) - median(pool(small));
    const rates = big[key].map((run, i) => run.rate / big.bareUndici[i].rate);
    console.log(
      `  ${key.padEnd(18)} ${RECORDS}: ${median(esignSmall).toFixed(0)} MB (pool ${median(pool(small)).toFixed(0)})   ${BIG}: ${median(esignBig).toFixed(0)} MB (pool ${median(pool(big)).toFixed(0)})`,
    );
    console.log(
      `    peak at ${BIG}: ${spread(ratio)}x the pool's (target <= 1.2x ${median(ratio) <= 1.2 ? 'ok' : 'MISSED'})`,
    );
    console.log(
      `    growth ${RECORDS} -> ${BIG}: ${growth.toFixed(0)} MB, the pool's ${poolGrowth.toFixed(0)} MB: ${(growth - poolGrowth).toFixed(0)} MB more (target <= 10 MB ${growth - poolGrowth <= 10 ? 'ok' : 'MISSED'})`,
    );
    console.log(
      `    throughput at ${BIG}: ${spread(rates)}x the pool's (target >= 0.9x ${median(rates) >= 0.9 ? 'ok' : 'MISSED'})`,
    );
  }
}

/** A shell loop of `esign envelope create` over SHELL_LOOP records, against the batch's rate. */
async function shellLoop(node, bin, batchRuns) {
  const loopRps = await withWarmSandbox(async ({ env, template }) => {
    const loop = join(dir, 'loop.sh');
    const tags = template.merge_tags.map((tag) => `--set "${tag}=${tag} $i"`).join(' ');
    writeFileSync(
      loop,
      `for i in $(seq 1 ${SHELL_LOOP}); do "${node}" "${bin}" envelope create --template ${template.id} ${tags} --name "Person $i" --email "person$i@example.com" -q >/dev/null || exit 1; done\n`,
    );
    const loop200 = timed(() => {
      const shell = spawnSync('bash', [loop], { env, encoding: 'utf8' });
      if (shell.status !== 0) throw new Error(`shell loop failed: ${shell.stderr}`);
    });
    return SHELL_LOOP / loop200.seconds;
  });
  const batchRate = median(batchRuns.map((run) => run.rate));
  console.log(
    `  shell loop of envelope create, ${SHELL_LOOP} records  ${loopRps.toFixed(1).padStart(7)} records/s  (batch --output is ${(batchRate / loopRps).toFixed(0)}x; target >= 50x)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await batchBench();
