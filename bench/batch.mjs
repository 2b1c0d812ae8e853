// Batch throughput against the sandbox, side by side in one run with (a) the sandbox's own ceiling
// for the same request, measured by autocannon with 16 connections, (b) a bare undici pool posting
// the same records and (c) a shell loop of `esign envelope create` over the first 200 records,
// scaled; then the peak RSS of a 100,000-record batch.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

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

function spawnOk(args, env, what) {
  const result = spawnSync(process.execPath, ['--import', HOOK, ...args], {
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
function clientRun(args, { env, sandbox }, what, inner) {
  const server = cpuSeconds(sandbox.pid);
  const { seconds, result } = timed(() => spawnOk(args, env, what));
  const clientUs = measured(result.stderr, 'cpu-us') / RECORDS;
  const serverUs = ((cpuSeconds(sandbox.pid) - server) * 1e6) / RECORDS;
  return {
    rate: RECORDS / seconds,
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
  const batchArgs = (file) => [
    BIN,
    'envelope',
    'batch',
    file,
    '--template',
    template.id,
    '--concurrency',
    '16',
  ];
  let outputs = 0;

  // Each contender sends the same RECORDS creates with 16 connections to a sandbox of its own, warmed
  // up alike; esign and the bare pool are timed as whole processes. Rounds are interleaved; medians.
  const contenders = {
    // (a) the sandbox's ceiling for the same request. autocannon counts in whole seconds (a run of a
    // fixed number of requests ends on its next tick), so the ceiling is the 2xx rate of a 2 s run.
    ceiling: async ({ info, org, sandbox }) => {
      const server = cpuSeconds(sandbox.pid);
      const result = await autocannonCreates(info, org, template, { duration: 2 });
      return {
        rate: result['2xx'] / result.duration,
        serverUs: ((cpuSeconds(sandbox.pid) - server) * 1e6) / result['2xx'],
      };
    },
    batch: (s) =>
      clientRun(
        [...batchArgs(records), '--output', join(dir, `out-${outputs++}.jsonl`)],
        s,
        'batch',
        summaryRate,
      ),
    batchToStdout: (s) => clientRun(batchArgs(records), s, 'batch to stdout', summaryRate),
    // (b) a bare undici pool over the same records (its request() API): what a plain undici client pays
    bareUndici: (s) =>
      clientRun(
        [new URL('./floor-batch.mjs', import.meta.url).pathname, records, template.id],
        s,
        'bare pool',
        floorRate,
      ),
    // the leanest undici client: callbacks, bodies serialized beforehand, nothing checked or written
    leanUndici: (s) =>
      clientRun(
        [new URL('./floor-dispatch.mjs', import.meta.url).pathname, records, template.id],
        s,
        'lean undici',
        floorRate,
      ),
    // the same RECORDS requests from autocannon: it reports them per whole second (see above)
    autocannonFixed: async ({ info, org }) => {
      const result = await autocannonCreates(info, org, template, { amount: RECORDS });
      return { rate: result['2xx'] / result.duration };
    },
  };
  const runs = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, measure] of Object.entries(contenders)) runs[name].push(await withWarmSandbox(measure));
  }
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

  // (c) a shell loop of esign envelope create over the first 200 records, and the peak RSS of a big batch
  const { loopRps, peakMb, bigRps } = await withWarmSandbox(async ({ env }) => {
    const loop = join(dir, 'loop.sh');
    const tags = template.merge_tags.map((tag) => `--set "${tag}=${tag} $i"`).join(' ');
    writeFileSync(
      loop,
      `for i in $(seq 1 ${SHELL_LOOP}); do "${process.execPath}" "${BIN}" envelope create --template ${template.id} ${tags} --name "Person $i" --email "person$i@example.com" -q >/dev/null || exit 1; done\n`,
    );
    const loop200 = timed(() => {
      const shell = spawnSync('bash', [loop], { env, encoding: 'utf8' });
      if (shell.status !== 0) throw new Error(`shell loop failed: ${shell.stderr}`);
    });
    const big = join(dir, 'big.jsonl');
    writeRecords(big, BIG, template);
    const bigRun = timed(() =>
      spawnOk([...batchArgs(big), '--output', join(dir, 'big-out.jsonl')], env, 'big batch'),
    );
    return {
      loopRps: SHELL_LOOP / loop200.seconds,
      peakMb: measured(bigRun.result.stderr, 'rss-kb') / 1024,
      bigRps: BIG / bigRun.seconds,
    };
  });

  const pct = (value) =>
    (Number.isFinite(value) ? `${((value / m.ceiling.rate) * 100).toFixed(0)}%` : '').padStart(5);
  const num = (value, unit = '') => (Number.isFinite(value) ? `${value.toFixed(0)}${unit}` : '—');
  const row = (label, { rate, innerRate, clientUs, serverUs, cores }, note = '') => {
    console.log(
      `  ${label.padEnd(36)}${num(rate).padStart(7)} ${pct(rate)} ${num(innerRate).padStart(8)} ${pct(innerRate)} ${num(clientUs, ' µs').padStart(7)} ${num(serverUs, ' µs').padStart(7)} ${(Number.isFinite(cores) ? cores.toFixed(2) : '').padStart(5)}  ${note}`,
    );
  };
  console.log(
    `\nBatch throughput: ${RECORDS} creates, 16 connections, each run on a sandbox of its own warmed up alike,`,
  );
  console.log(
    `median of ${ROUNDS} interleaved rounds (Node ${process.version}, ${availableParallelism()} cores). Rates per second:`,
  );
  console.log(
    `  whole process, and after start-up (esign: the sending phase); CPU a record; cores both processes kept busy`,
  );
  console.log(
    `  ${''.padEnd(36)}${'whole'.padStart(7)} ${'share'.padStart(5)} ${'sending'.padStart(8)} ${'share'.padStart(5)} ${'client'.padStart(7)} ${'server'.padStart(7)} ${'cores'.padStart(5)}`,
  );
  const none = { innerRate: Number.NaN, clientUs: Number.NaN, cores: Number.NaN };
  row('autocannon, 2 s (the ceiling)', { ...none, ...m.ceiling, innerRate: m.ceiling.rate });
  row('esign envelope batch --output', m.batch, 'target: whole share >= 70%');
  row('esign envelope batch, to stdout', m.batchToStdout, 'nothing synced to disk');
  row('bare undici pool (request())', m.bareUndici);
  row('leanest undici client (dispatch)', m.leanUndici, 'nothing validated or written');
  row(
    `autocannon, ${RECORDS} requests`,
    { ...none, ...m.autocannonFixed, serverUs: Number.NaN },
    'ends on a whole second: not a rate',
  );
  // Each round's own ratio too: the two ran seconds apart, so a slow spell of the shared
  // machine weighs on both sides of it alike.
  const roundRatios = runs.batch.map((run, i) => run.rate / runs.bareUndici[i].rate);
  console.log(
    `  batch --output, whole process: ${((m.batch.rate / m.bareUndici.rate) * 100).toFixed(0)}% of the bare pool, ${((m.batch.rate / m.leanUndici.rate) * 100).toFixed(0)}% of the leanest client`,
  );
  console.log(
    `    the rounds' own ratios to the bare pool: ${roundRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(' ')} (median ${(median(roundRatios) * 100).toFixed(0)}%)`,
  );
  console.log(
    `  shell loop of envelope create, ${SHELL_LOOP} records  ${loopRps.toFixed(1).padStart(7)} records/s  (batch --output is ${(m.batch.rate / loopRps).toFixed(0)}x; target >= 50x)`,
  );
  console.log(
    `  peak RSS of a ${BIG}-record batch            ${peakMb.toFixed(0).padStart(7)} MB         (${bigRps.toFixed(0)} records/s; target < 150 MB)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await batchBench();
