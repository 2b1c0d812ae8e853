// The batch against a rate-limited sandbox (issue 9): for each case, 1,000 records through
// `esign envelope batch` against `esign sandbox --rate-limit … --rate-limit-headers … --latency 50`,
// each on a sandbox of its own. Reports the achieved rate as a share of the allowed rate, the 429s
// per window (from the batch's own summary) and the failed records.
//
//   node bench/rate-limit.mjs     (npm run build first; bench/run.mjs runs it too)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const BIN = new URL('../bin/esign.js', import.meta.url).pathname;
const RECORDS = Number(process.env.BENCH_RATE_RECORDS ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'esign-bench-rate-'));

async function startSandbox(args) {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

async function stop(child) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const CASES = [
  { limit: '50/s', perSecond: 50, windowS: 1, style: 'x-ratelimit', concurrency: 16 },
  { limit: '50/s', perSecond: 50, windowS: 1, style: 'x-ratelimit', concurrency: 64 },
  { limit: '50/s', perSecond: 50, windowS: 1, style: 'ietf', concurrency: 16 },
  { limit: '50/s', perSecond: 50, windowS: 1, style: 'ietf', concurrency: 64 },
  { limit: '50/s', perSecond: 50, windowS: 1, style: 'none', concurrency: 16 },
  { limit: '50/s', perSecond: 50, windowS: 1, style: 'none', concurrency: 64 },
  { limit: '50/5s', perSecond: 10, windowS: 5, style: 'x-ratelimit', concurrency: 16 },
  { limit: '50/5s', perSecond: 10, windowS: 5, style: 'none', concurrency: 16 },
];

async function runCase(c) {
  const { child, info } = await startSandbox([
    '--rate-limit',
    c.limit,
    '--rate-limit-headers',
    c.style,
    '--latency',
    '50',
  ]);
  try {
    const org = info.organisations[0];
    const template = org.templates[0];
    const records = join(dir, 'records.jsonl');
    const lines = [];
    for (let i = 0; i < RECORDS; i++) {
      const merge = Object.fromEntries(template.merge_tags.map((tag) => [tag, `${tag} ${i}`]));
      lines.push(
        JSON.stringify({ merge_data: merge, signatory: { name: `P ${i}`, email: `p${i}@example.com` } }),
      );
    }
    writeFileSync(records, `${lines.join('\n')}\n`);
    const started = process.hrtime.bigint();
    const run = spawnSync(
      process.execPath,
      [BIN, 'envelope', 'batch', records, '--template', template.id, '--concurrency', String(c.concurrency)],
      {
        env: {
          ...process.env,
          ESIGN_CONFIG_DIR: join(dir, 'c'),
          ESIGN_BASE_URL: info.base_url,
          ESIGN_TOKEN: org.token,
        },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const summary = /Batch: (\d+) created, (\d+) failed, (\d+) unknown.* in ([\d.]+) s/.exec(run.stderr);
    const limited = Number(/rate-limited (\d+) requests?/.exec(run.stderr)?.[1] ?? 0);
    const waited = Number(/waited ([\d.]+) s/.exec(run.stderr)?.[1] ?? 0);
    const created = Number(summary?.[1] ?? Number.NaN);
    const sending = Number(summary?.[4] ?? seconds);
    const windows = sending / c.windowS;
    return {
      ...c,
      code: run.status,
      created,
      failed: Number(summary?.[2] ?? Number.NaN) + Number(summary?.[3] ?? 0),
      share: created / sending / c.perSecond,
      perWindow: limited / windows,
      limited,
      waited,
      sending,
    };
  } finally {
    await stop(child);
  }
}

export async function rateLimitBench() {
  console.log(
    `\nBatch against a rate-limited sandbox: ${RECORDS} records, latency 50 ms, each case on a sandbox of its own`,
  );
  console.log(
    `  ${'limit'.padEnd(7)}${'headers'.padEnd(13)}${'conc.'.padStart(5)}${'share'.padStart(8)}${'429s/window'.padStart(13)}${'429s'.padStart(6)}${'failed'.padStart(8)}${'sending'.padStart(9)}  target`,
  );
  for (const c of CASES) {
    const r = await runCase(c);
    const target = c.style === 'none' ? '>= 85%, <= 3/window, 0 failed' : '>= 95%, <= 1/window, 0 failed';
    console.log(
      `  ${c.limit.padEnd(7)}${c.style.padEnd(13)}${String(c.concurrency).padStart(5)}${`${(r.share * 100).toFixed(0)}%`.padStart(8)}${r.perWindow.toFixed(2).padStart(13)}${String(r.limited).padStart(6)}${String(r.failed).padStart(8)}${`${r.sending.toFixed(1)} s`.padStart(9)}  ${target}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await rateLimitBench();
