// The undici floor for a create, loaded the way esign's transport loads it: undici's Agent and its
// connector from their own modules (src/transport/undici.ts), not the index (which also loads fetch,
// WebSocket, caching and mocks), and one POST through the dispatcher's handler interface, as
// src/transport/http-client.ts sends it. The same headers and body as bench/floor-create-undici.mjs;
// prints the signing URL.
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import { FLOOR_BODY, floorHeaders } from './floor-request.mjs';

const url = new URL(process.env.BENCH_URL);
const agent = new Agent({ connect: buildConnector({ timeout: 30_000 }) });
const chunks = [];
agent.dispatch(
  {
    origin: url.origin,
    path: url.pathname,
    method: 'POST',
    headers: Object.entries(floorHeaders(process.env.BENCH_TOKEN)).flat(),
    body: FLOOR_BODY,
  },
  {
    onRequestStart() {},
    onResponseStart() {},
    onResponseData(_controller, chunk) {
      chunks.push(chunk);
    },
    onResponseEnd() {
      const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      process.stdout.write(`${answer.data.signing_url}\n`);
      agent.close();
    },
    onResponseError(_controller, error) {
      throw error;
    },
  },
);
