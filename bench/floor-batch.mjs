// The floor for a batch: a bare undici pool posting the same records with the same concurrency,
// nothing else (no validation, no journal, no retries). It streams the records file line by line,
// as esign does, and writes each answer to a results file (one line a record, appended as it comes,
// one write a turn of the event loop, the file synced at the end), so that its throughput and its
// peak memory are what streaming N records through undici to a file costs. Prints its rate as JSON.
//
//   node bench/floor-batch.mjs <records.jsonl> <template id> <results file> [concurrency]
import { closeSync, createReadStream, fsyncSync, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

const [file, template, output, concurrency = '16'] = process.argv.slice(2);
const workers = Number(concurrency);
const url = `${process.env.ESIGN_BASE_URL}/native/envelopes/create`;
const headers = { authorization: `Bearer ${process.env.ESIGN_TOKEN}`, 'content-type': 'application/json' };
const agent = new Agent({ connections: workers });
const out = openSync(output, 'w', 0o600);
let pending = '';
let scheduled = false;
const write = (line) => {
  pending += `${line}\n`;
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    const text = pending;
    pending = '';
    writeSync(out, text);
  });
};

const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })[
  Symbol.asyncIterator
]();
let lineNumber = 0;
/** The next record's line and text, or undefined at the end (one reader shared by the workers). */
let reading = Promise.resolve();
const nextLine = () => {
  const taken = reading.then(() => lines.next());
  reading = taken.then(() => undefined);
  return taken.then(({ done, value }) => (done ? undefined : { line: ++lineNumber, text: value }));
};

let count = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: workers }, async () => {
    for (let next = await nextLine(); next; next = await nextLine()) {
      if (next.text.trim() === '') continue;
      const body = JSON.stringify({ template_id: template, ...JSON.parse(next.text) });
      const response = await request(url, { method: 'POST', dispatcher: agent, headers, body });
      const answer = await response.body.json();
      write(JSON.stringify({ line: next.line, ok: response.statusCode === 200, ...answer.data }));
      count++;
    }
  }),
);
await new Promise((resolve) => setImmediate(resolve));
if (pending) writeSync(out, pending);
fsyncSync(out);
closeSync(out);
const seconds = (performance.now() - started) / 1000;
await agent.close();
process.stdout.write(`${JSON.stringify({ rate: count / seconds })}\n`);
