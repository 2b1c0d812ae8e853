// The sandbox's own throughput: creates per second at 1 and 32 connections (~5 s each), and its RSS
// after 100,000 envelopes. Runs the built CLI (`npm run build` first) as a user would:
// `node bin/esign.js sandbox --port 0 --json`, and reads its base URL and token from that JSON.
//
//   node bench/sandbox.mjs           a small table
//   node bench/sandbox.mjs --json    one JSON object (for CI)
//
// bench/run.mjs imports sandboxBench() (prints the table); benchSandbox() only returns the numbers.
// Takes about 20 s on 2 cores.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const ENVELOPES_FOR_RSS = 100_000;

function startSandbox() {
  if (!existsSync(new URL('../dist/main.js', import.meta.url))) {
    throw new Error('dist/ is missing: run `npm run build` first.');
  }
  // Request logs go to stderr, which a user would have on a terminal or a file; /dev/null here.
  const child = spawn(process.execPath, ['bin/esign.js', 'sandbox', '--port', '0', '--json'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const info = new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end !== -1) resolve(JSON.parse(text.slice(0, end)));
    });
    exited.then(({ code }) => reject(new Error(`the sandbox exited with ${code} before it started`)));
  });
  return { child, info, exited };
}

function load(target, connections, extra) {
  return autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    ...extra,
  });
}

async function stats(info) {
  const response = await fetch(`${info.url}/_sandbox/stats`, {
    headers: { authorization: `Bearer ${info.admin_secret}` },
  });
  return response.json();
}

function createTarget(info) {
  const organisation = info.organisations[0];
  const template = organisation.templates[0];
  return {
    url: `${info.base_url}/native/envelopes/create`,
    headers: { authorization: `Bearer ${organisation.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template_id: template.id,
      merge_data: Object.fromEntries(template.merge_tags.map((tag) => [tag, `value of ${tag}`])),
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' },
    }),
  };
}

/** Starts a sandbox, runs `measure(info, target)` against it, and stops it with SIGTERM. */
async function withSandbox(measure) {
  const sandbox = startSandbox();
  try {
    const info = await sandbox.info;
    return await measure(info, createTarget(info));
  } finally {
    sandbox.child.kill('SIGTERM');
    await sandbox.exited;
  }
}

/** Runs the benchmark; `seconds` per connection count. Returns the numbers. */
export async function benchSandbox({ seconds = 5 } = {}) {
  const runs = await withSandbox(async (_info, target) => {
    await load(target, 8, { duration: 1 }); // warm-up: JIT, sockets
    const results = [];
    for (const connections of [1, 32]) {
      const result = await load(target, connections, { duration: seconds });
      results.push({
        connections,
        creates_per_second: Math.round(result.requests.average),
        latency_p50_ms: result.latency.p50,
        latency_p99_ms: result.latency.p99,
        non_2xx: result.non2xx,
        errors: result.errors,
      });
    }
    return results;
  });
  // Memory in a fresh sandbox, so the count is exactly 100,000.
  const memory = await withSandbox(async (info, target) => {
    const atStart = await stats(info);
    const started = performance.now();
    const fill = await load(target, 32, { amount: ENVELOPES_FOR_RSS });
    const seconds = (performance.now() - started) / 1000;
    const after = await stats(info);
    return {
      rss_at_start_bytes: atStart.memory.rss_bytes,
      envelopes: after.envelopes,
      rss_after_envelopes_bytes: after.memory.rss_bytes,
      heap_used_after_envelopes_bytes: after.memory.heap_used_bytes,
      fill_creates_per_second: Math.round(fill['2xx'] / seconds),
    };
  });
  return { node: process.version, cpus: availableParallelism(), runs, ...memory };
}

function printTable(result) {
  const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  const rows = [
    ['connections', 'creates/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
    ...result.runs.map((r) =>
      [r.connections, r.creates_per_second, r.latency_p50_ms, r.latency_p99_ms, r.non_2xx, r.errors].map(
        String,
      ),
    ),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  console.log(
    `esign sandbox: POST /api/v1/native/envelopes/create (node ${result.node}, ${result.cpus} CPUs)`,
  );
  for (const row of rows)
    console.log(row.map((cell, column) => String(cell).padStart(widths[column])).join('  '));
  console.log(
    `RSS: ${mib(result.rss_at_start_bytes)} at start, ${mib(result.rss_after_envelopes_bytes)} with ${result.envelopes.toLocaleString('en')} envelopes` +
      ` (heap ${mib(result.heap_used_after_envelopes_bytes)}; filled at ${result.fill_creates_per_second}/s)`,
  );
}

/** What `npm run bench` (bench/run.mjs) calls: measures and prints the table. */
export async function sandboxBench(options) {
  const result = await benchSandbox(options);
  printTable(result);
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--json')) console.log(JSON.stringify(await benchSandbox()));
  else await sandboxBench();
}
