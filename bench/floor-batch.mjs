// The floor for a batch: a bare undici pool with 16 connections posting the same records, nothing
// else (no validation, no results written). Prints its rate as JSON.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [file, template] = process.argv.slice(2);
const url = `${process.env.ESIGN_BASE_URL}/native/envelopes/create`;
const headers = { authorization: `Bearer ${process.env.ESIGN_TOKEN}`, 'content-type': 'application/json' };
const lines = readFileSync(file, 'utf8').trim().split('\n');
const agent = new Agent({ connections: 16 });
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < lines.length) {
      const body = JSON.stringify({ template_id: template, ...JSON.parse(lines[next++]) });
      const response = await request(url, { method: 'POST', dispatcher: agent, headers, body });
      await response.body.json();
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
await agent.close();
process.stdout.write(`${JSON.stringify({ rate: lines.length / seconds })}\n`);
