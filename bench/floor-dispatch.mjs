// The leanest undici client for a batch: its dispatcher API with a handler of callbacks (no stream
// per response), request bodies serialized before the clock starts, 16 connections, each answer
// only parsed as JSON. No validation, nothing written. What an undici client cannot go below here.
import { readFileSync } from 'node:fs';
import Pool from 'undici/lib/dispatcher/pool.js';

const [file, template] = process.argv.slice(2);
const base = new URL(process.env.ESIGN_BASE_URL);
const path = `${base.pathname}/native/envelopes/create`;
const headers = {
  authorization: `Bearer ${process.env.ESIGN_TOKEN}`,
  'content-type': 'application/json',
  accept: 'application/json',
};
const bodies = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.stringify({ template_id: template, ...JSON.parse(line) }));
const pool = new Pool(base.origin, { connections: 16 });
let next = 0;
let done = 0;
const started = performance.now();
await new Promise((resolve, reject) => {
  const send = () => {
    if (next >= bodies.length) return;
    const chunks = [];
    pool.dispatch(
      { origin: base.origin, path, method: 'POST', headers, body: bodies[next++] },
      {
        onConnect() {},
        onHeaders: () => true,
        onData: (chunk) => chunks.push(chunk) > 0,
        onComplete() {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (++done === bodies.length) resolve();
          else send();
        },
        onError: reject,
      },
    );
  };
  for (let i = 0; i < 16; i++) send();
});
const seconds = (performance.now() - started) / 1000;
await pool.close();
process.stdout.write(`${JSON.stringify({ rate: bodies.length / seconds })}\n`);
