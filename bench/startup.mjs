// Whole-process timings of esign next to their floors, measured side by side in one run:
// commands are interleaved round by round so that noise on this shared machine hits all alike.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BIN = new URL('../bin/esign.js', import.meta.url).pathname;
const FLOOR_CREATE = new URL('./floor-create.mjs', import.meta.url).pathname;
const TOKEN = 'tok_bench_0123456789abcdef';

const envelope = JSON.stringify({
  success: true,
  data: {
    envelope_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
    signing_url: 'http://127.0.0.1/sign/01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
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
  const create = [
    'envelope',
    'create',
    '--template',
    '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
    '--name',
    'Ada Lovelace',
    '--email',
    'ada@example.com',
  ];
  // Log in once so the real create reads its token and base URL from the profile, as a user's would.
  spawnSync(process.execPath, [BIN, 'login', '--with-token', '--base-url', baseUrl], { env, input: TOKEN });

  const cases = {
    'node -e 0': [process.execPath, ['-e', '0'], {}],
    'esign --version': [process.execPath, [BIN, '--version'], {}],
    'esign --help': [process.execPath, [BIN, '--help'], {}],
    'esign envelope create --dry-run': [process.execPath, [BIN, ...create, '--dry-run'], {}],
    'undici POST script (floor)': [
      process.execPath,
      [FLOOR_CREATE],
      { BENCH_URL: `${baseUrl}/native/envelopes/create`, BENCH_TOKEN: TOKEN },
    ],
    'esign envelope create (real)': [process.execPath, [BIN, ...create, '-q'], {}],
  };
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  // Spawning synchronously would block the in-process server, so run it in a child of its own.
  const runOne = (command, args, extraEnv) =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      import('node:child_process').then(({ spawn }) => {
        const child = spawn(command, args, {
          env: { ...env, ...extraEnv },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        child.on('close', (code) => {
          if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      });
    });
  for (const [command, args, extraEnv] of Object.values(cases)) await runOne(command, args, extraEnv); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [command, args, extraEnv]] of Object.entries(cases))
      times[name].push(await runOne(command, args, extraEnv));
  }
  server.close();
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const m = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
  const rows = [
    ['esign --version', 'node -e 0', 1.2],
    ['esign --help', 'node -e 0', null],
    ['esign envelope create --dry-run', 'node -e 0', null],
    ['esign envelope create (real)', 'undici POST script (floor)', 1.3],
  ];
  console.log(
    `\nStart-up: whole-process wall time, median of ${ROUNDS} interleaved runs (Node ${process.version})`,
  );
  console.log(
    `${'command'.padEnd(34)}${'median'.padStart(10)}   ${'floor'.padEnd(28)}${'median'.padStart(10)}${'ratio'.padStart(8)}  target`,
  );
  for (const [name, floor, target] of rows) {
    const ratio = m[name] / m[floor];
    console.log(
      `${name.padEnd(34)}${`${m[name].toFixed(1)} ms`.padStart(10)}   ${floor.padEnd(28)}${`${m[floor].toFixed(1)} ms`.padStart(10)}${`${ratio.toFixed(2)}x`.padStart(8)}  ${target ? `<= ${target}x ${ratio <= target ? 'ok' : 'MISSED'}` : ''}`,
    );
  }
  return m;
}

if (import.meta.url === `file://${process.argv[1]}`) await startupBench();
