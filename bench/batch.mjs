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

export async function batchBench() {
  const { child, info } = await startSandbox();
  try {
    const org = info.organisations[0];
    const template = org.templates[0];
    const env = {
      ...process.env,
      ESIGN_CONFIG_DIR: join(dir, 'config'),
      ESIGN_BASE_URL: info.base_url,
      ESIGN_TOKEN: org.token,
    };
    const records = join(dir, 'records.jsonl');
    writeRecords(records, RECORDS, template);
    const body = JSON.stringify({
      template_id: template.id,
      merge_data: Object.fromEntries(template.merge_tags.map((tag) => [tag, `${tag} 1`])),
      signatory: { name: 'Person 1', email: 'person1@example.com' },
    });

    // (a) the sandbox's ceiling for the same request
    const ceiling = await autocannon({
      url: `${info.base_url}/native/envelopes/create`,
      method: 'POST',
      connections: 16,
      duration: 5,
      headers: {
        authorization: `Bearer ${org.token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body,
    });
    const ceilingRps = ceiling['2xx'] / (ceiling.duration || 5);

    // the batch itself
    const withTemplate = (file) => [file, '--template', template.id];
    const started = process.hrtime.bigint();
    const batch = spawnSync(
      process.execPath,
      [
        BIN,
        'envelope',
        'batch',
        ...withTemplate(records),
        '--concurrency',
        '16',
        '--output',
        join(dir, 'out.jsonl'),
      ],
      { env, encoding: 'utf8' },
    );
    const batchSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (batch.status !== 0) throw new Error(`batch exited ${batch.status}: ${batch.stderr}`);
    const batchRps = RECORDS / batchSeconds;

    // the same batch with results on stdout: no intents, no syncs
    const stdoutStarted = process.hrtime.bigint();
    const toStdout = spawnSync(
      process.execPath,
      [BIN, 'envelope', 'batch', ...withTemplate(records), '--concurrency', '16'],
      {
        env,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    if (toStdout.status !== 0)
      throw new Error(`batch to stdout exited ${toStdout.status}: ${toStdout.stderr}`);
    const stdoutRps = RECORDS / (Number(process.hrtime.bigint() - stdoutStarted) / 1e9);

    // a bare undici pool over the same records: what any client pays here
    const floor = spawnSync(
      process.execPath,
      [new URL('./floor-batch.mjs', import.meta.url).pathname, records, template.id],
      {
        env,
        encoding: 'utf8',
      },
    );
    if (floor.status !== 0) throw new Error(`bare undici pool failed: ${floor.stderr}`);
    const bareRps = JSON.parse(floor.stdout).rate;

    // (b) a shell loop of esign envelope create over the first 200 records
    const loop = join(dir, 'loop.sh');
    const tags = template.merge_tags.map((tag) => `--set "${tag}=${tag} $i"`).join(' ');
    writeFileSync(
      loop,
      `for i in $(seq 1 ${SHELL_LOOP}); do "${process.execPath}" "${BIN}" envelope create --template ${template.id} ${tags} --name "Person $i" --email "person$i@example.com" -q >/dev/null || exit 1; done\n`,
    );
    const loopStarted = process.hrtime.bigint();
    const shell = spawnSync('bash', [loop], { env, encoding: 'utf8' });
    const loopSeconds = Number(process.hrtime.bigint() - loopStarted) / 1e9;
    if (shell.status !== 0) throw new Error(`shell loop failed: ${shell.stderr}`);
    const loopRps = SHELL_LOOP / loopSeconds;

    // peak RSS of a big batch
    const big = join(dir, 'big.jsonl');
    writeRecords(big, BIG, template);
    const rssHook = join(dir, 'rss-hook.mjs');
    writeFileSync(
      rssHook,
      "process.on('exit', () => process.stderr.write('peak-rss-kb=' + process.resourceUsage().maxRSS + '\\n'));\n",
    );
    const bigStarted = process.hrtime.bigint();
    const bigRun = spawnSync(
      process.execPath,
      [
        '--import',
        rssHook,
        BIN,
        'envelope',
        'batch',
        ...withTemplate(big),
        '--concurrency',
        '16',
        '--output',
        join(dir, 'big-out.jsonl'),
      ],
      { env, encoding: 'utf8' },
    );
    const bigSeconds = Number(process.hrtime.bigint() - bigStarted) / 1e9;
    if (bigRun.status !== 0) throw new Error(`big batch exited ${bigRun.status}: ${bigRun.stderr}`);
    const peakMb = Number(/peak-rss-kb=(\d+)/.exec(bigRun.stderr)?.[1] ?? 0) / 1024;

    console.log(`\nBatch throughput against the sandbox (Node ${process.version})`);
    console.log(
      `  autocannon ceiling, 16 connections, 5 s        ${ceilingRps.toFixed(0).padStart(7)} creates/s`,
    );
    console.log(
      `  esign envelope batch, ${RECORDS} records, -c 16, --output ${batchRps.toFixed(0).padStart(7)} records/s  (${((batchRps / ceilingRps) * 100).toFixed(0)}% of the ceiling; target >= 70%)`,
    );
    console.log(
      `  the same, results on stdout (nothing synced)   ${stdoutRps.toFixed(0).padStart(7)} records/s  (${((stdoutRps / ceilingRps) * 100).toFixed(0)}% of the ceiling)`,
    );
    console.log(
      `  bare undici pool, same records, 16 connections ${bareRps.toFixed(0).padStart(7)} records/s  (${((bareRps / ceilingRps) * 100).toFixed(0)}% of the ceiling; batch is ${((batchRps / bareRps) * 100).toFixed(0)}% of it)`,
    );
    console.log(
      `  shell loop of envelope create, ${SHELL_LOOP} records   ${loopRps.toFixed(1).padStart(7)} records/s  (batch is ${(batchRps / loopRps).toFixed(0)}x; target >= 50x)`,
    );
    console.log(
      `  peak RSS of a ${BIG}-record batch             ${peakMb.toFixed(0).padStart(7)} MB         (${(BIG / bigSeconds).toFixed(0)} records/s; target < 150 MB)`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await batchBench();
