// Batch throughput against the sandbox, side by side in one run with (a) the sandbox's own ceiling
// for the same request, measured by autocannon with 16 connections, (b) a bare undici pool posting
// the same records and (c) a shell loop of `esign envelope create` over the first 200 records,
// scaled; then the peak RSS of a 100,000-record batch.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    return await measure({ info, org, template, env });
  } finally {
    await stopSandbox(child);
  }
}

const timed = (run) => {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e9;
};

function spawnOk(args, env, what) {
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${what} exited ${result.status}: ${result.stderr}`);
  return result;
}

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
    // (a) the sandbox's ceiling for the same request
    // autocannon counts in whole seconds (a run of a fixed number of requests ends on its next tick),
    // so the ceiling is the 2xx rate over a 2-second run.
    ceiling: async ({ info, org }) => {
      const result = await autocannonCreates(info, org, template, { duration: 2 });
      return result['2xx'] / result.duration;
    },
    batch: ({ env }) =>
      RECORDS /
      timed(() =>
        spawnOk([...batchArgs(records), '--output', join(dir, `out-${outputs++}.jsonl`)], env, 'batch'),
      ),
    batchToStdout: ({ env }) => RECORDS / timed(() => spawnOk(batchArgs(records), env, 'batch to stdout')),
    // (b) a bare undici pool over the same records: what any undici client pays here
    bareUndici: ({ env }) =>
      JSON.parse(
        spawnOk(
          [new URL('./floor-batch.mjs', import.meta.url).pathname, records, template.id],
          env,
          'bare pool',
        ).stdout,
      ).rate,
  };
  const rates = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, measure] of Object.entries(contenders))
      rates[name].push(await withWarmSandbox(measure));
  }
  const m = Object.fromEntries(Object.entries(rates).map(([name, values]) => [name, median(values)]));

  // (c) a shell loop of esign envelope create over the first 200 records, and the peak RSS of a big batch
  const { loopRps, peakMb, bigRps } = await withWarmSandbox(async ({ env }) => {
    const loop = join(dir, 'loop.sh');
    const tags = template.merge_tags.map((tag) => `--set "${tag}=${tag} $i"`).join(' ');
    writeFileSync(
      loop,
      `for i in $(seq 1 ${SHELL_LOOP}); do "${process.execPath}" "${BIN}" envelope create --template ${template.id} ${tags} --name "Person $i" --email "person$i@example.com" -q >/dev/null || exit 1; done\n`,
    );
    const loopSeconds = timed(() => {
      const shell = spawnSync('bash', [loop], { env, encoding: 'utf8' });
      if (shell.status !== 0) throw new Error(`shell loop failed: ${shell.stderr}`);
    });
    const big = join(dir, 'big.jsonl');
    writeRecords(big, BIG, template);
    const rssHook = join(dir, 'rss-hook.mjs');
    writeFileSync(
      rssHook,
      "process.on('exit', () => process.stderr.write('peak-rss-kb=' + process.resourceUsage().maxRSS + '\\n'));\n",
    );
    let stderr = '';
    const bigSeconds = timed(() => {
      stderr = spawnOk(
        ['--import', rssHook, ...batchArgs(big), '--output', join(dir, 'big-out.jsonl')],
        env,
        'big batch',
      ).stderr;
    });
    return {
      loopRps: SHELL_LOOP / loopSeconds,
      peakMb: Number(/peak-rss-kb=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024,
      bigRps: BIG / bigSeconds,
    };
  });

  const pct = (value) => `${((value / m.ceiling) * 100).toFixed(0)}%`;
  console.log(
    `\nBatch throughput: ${RECORDS} creates, 16 connections, each run on a sandbox of its own warmed up alike,`,
  );
  console.log(`median of ${ROUNDS} interleaved rounds (Node ${process.version})`);
  console.log(
    `  autocannon (the ceiling)                      ${m.ceiling.toFixed(0).padStart(7)} creates/s`,
  );
  console.log(
    `  esign envelope batch --output                 ${m.batch.toFixed(0).padStart(7)} records/s  (${pct(m.batch)} of the ceiling; target >= 70%)`,
  );
  console.log(
    `  esign envelope batch, results on stdout       ${m.batchToStdout.toFixed(0).padStart(7)} records/s  (${pct(m.batchToStdout)}; nothing synced to disk)`,
  );
  console.log(
    `  bare undici pool, same records                ${m.bareUndici.toFixed(0).padStart(7)} records/s  (${pct(m.bareUndici)}; batch --output is ${((m.batch / m.bareUndici) * 100).toFixed(0)}% of it)`,
  );
  console.log(
    `  shell loop of envelope create, ${SHELL_LOOP} records  ${loopRps.toFixed(1).padStart(7)} records/s  (batch --output is ${(m.batch / loopRps).toFixed(0)}x; target >= 50x)`,
  );
  console.log(
    `  peak RSS of a ${BIG}-record batch            ${peakMb.toFixed(0).padStart(7)} MB         (${bigRps.toFixed(0)} records/s; target < 150 MB)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await batchBench();
