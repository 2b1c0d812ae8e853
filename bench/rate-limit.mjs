// The batch against a rate-limited sandbox (issue 9): for each case, 1,000 records through
// `esign envelope batch` against `esign sandbox --rate-limit … --rate-limit-headers … --latency 50`,
// each on a sandbox of its own. Reports the achieved rate as a share of the allowed rate, the 429s
// per window (from the batch's own summary) and the failed records.
//
//   node bench/rate-limit.mjs     (npm run build first; bench/run.mjs runs it too)
//
// Side by side, e.g. before/after a limiter change (each build a copy of bin/ and dist/):
//   BENCH_RATE_BINS=before=/tmp/old/bin/esign.js,after=bin/esign.js BENCH_RATE_RUNS=3 node bench/rate-limit.mjs
// runs every case with each binary, RUNS times (3 by default), all at once (each on a sandbox of its own;
// run i starts i/RUNS of a window later, so the runs meet the windows at different points), and
// reports the median share, 429s per window and failed records of each. BENCH_RATE_CASES=0,1 picks
// cases by their number in the list below.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const BIN = new URL('../bin/esign.js', import.meta.url).pathname;
const RECORDS = Number(process.env.BENCH_RATE_RECORDS ?? 1000);
const RUNS = Math.max(1, Number(process.env.BENCH_RATE_RUNS ?? 3));
/** `name=path` pairs, compared side by side; by default this checkout's binary alone. */
const BINS = (process.env.BENCH_RATE_BINS ?? '')
  .split(',')
  .filter(Boolean)
  .map((pair) => {
    const [name, path] = pair.split('=');
    return { name, bin: path ? new URL(path, `file://${process.cwd()}/`).pathname : BIN };
  });
if (BINS.length === 0) BINS.push({ name: '', bin: BIN });
const PICKED = process.env.BENCH_RATE_CASES?.split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'esign-bench-rate-'));

async function startSandbox(args, bin) {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', ...args], {
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

function run(bin, args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('close', (status) => resolve({ status, stderr }));
  });
}

async function runCase(c, bin, tag, delayMs = 0) {
  const { child, info } = await startSandbox(
    ['--rate-limit', c.limit, '--rate-limit-headers', c.style, '--latency', '50'],
    bin,
  );
  try {
    const org = info.organisations[0];
    const template = org.templates[0];
    const records = join(dir, `records-${tag}.jsonl`);
    const lines = [];
    for (let i = 0; i < RECORDS; i++) {
      const merge = Object.fromEntries(template.merge_tags.map((tag) => [tag, `${tag} ${i}`]));
      lines.push(
        JSON.stringify({ merge_data: merge, signatory: { name: `P ${i}`, email: `p${i}@example.com` } }),
      );
    }
    writeFileSync(records, `${lines.join('\n')}\n`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const started = process.hrtime.bigint();
    const result = await run(
      bin,
      ['envelope', 'batch', records, '--template', template.id, '--concurrency', String(c.concurrency)],
      {
        ...process.env,
        ESIGN_CONFIG_DIR: join(dir, `c-${tag}`),
        ESIGN_BASE_URL: info.base_url,
        ESIGN_TOKEN: org.token,
      },
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const summary = /Batch: (\d+) created, (\d+) failed, (\d+) unknown.* in ([\d.]+) s/.exec(result.stderr);
    const limited = Number(/rate-limited (\d+) requests?/.exec(result.stderr)?.[1] ?? 0);
    const waited = Number(/waited ([\d.]+) s/.exec(result.stderr)?.[1] ?? 0);
    const created = Number(summary?.[1] ?? Number.NaN);
    const sending = Number(summary?.[4] ?? seconds);
    const windows = sending / c.windowS;
    return {
      ...c,
      code: result.status,
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

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function rateLimitBench() {
  console.log(
    `\nBatch against a rate-limited sandbox: ${RECORDS} records, latency 50 ms, each case on a sandbox of its own` +
      (RUNS > 1 ? `, medians of ${RUNS} runs` : '') +
      (BINS.length > 1 ? `, ${BINS.map((b) => b.name).join(' and ')} side by side` : ''),
  );
  console.log(
    `  ${'limit'.padEnd(7)}${'headers'.padEnd(13)}${'conc.'.padStart(5)}${BINS.length > 1 ? 'build'.padStart(8) : ''}${'share'.padStart(8)}${'429s/window'.padStart(13)}${'429s'.padStart(6)}${'failed'.padStart(8)}${'sending'.padStart(9)}  target`,
  );
  for (const [index, c] of CASES.entries()) {
    if (PICKED && !PICKED.includes(index)) continue;
    const rows = BINS.map(() => []);
    // The runs of a case go at once (each on a sandbox of its own; a rate-limited batch mostly waits).
    const results = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        // Each run starts at another point of the windows (they are aligned to the epoch): the
        // share a run gets depends on where in a window it starts, more so without headers.
        Promise.all(
          BINS.map((b, k) => runCase(c, b.bin, `${index}-${i}-${k}`, (i * c.windowS * 1000) / RUNS)),
        ),
      ),
    );
    for (const run of results) {
      for (const [k, r] of run.entries()) rows[k].push(r);
    }
    const target = c.style === 'none' ? '>= 85%, <= 3/window, 0 failed' : '>= 95%, <= 1/window, 0 failed';
    BINS.forEach((b, k) => {
      const runs = rows[k];
      const share = median(runs.map((r) => r.share));
      const perWindow = median(runs.map((r) => r.perWindow));
      const limited = median(runs.map((r) => r.limited));
      const failed = Math.max(...runs.map((r) => r.failed));
      const sending = median(runs.map((r) => r.sending));
      console.log(
        `  ${c.limit.padEnd(7)}${c.style.padEnd(13)}${String(c.concurrency).padStart(5)}${BINS.length > 1 ? b.name.padStart(8) : ''}${`${(share * 100).toFixed(0)}%`.padStart(8)}${perWindow.toFixed(2).padStart(13)}${String(limited).padStart(6)}${String(failed).padStart(8)}${`${sending.toFixed(1)} s`.padStart(9)}  ${target}` +
          (RUNS > 1 ? `  (shares ${runs.map((r) => `${(r.share * 100).toFixed(0)}%`).join(' ')})` : ''),
      );
    });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await rateLimitBench();
