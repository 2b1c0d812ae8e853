// The CommonJS floor for a create: a minimal script making the same POST (the body and headers of
// bench/floor-request.mjs) with node:http, or node:https for an https:// BENCH_URL, and printing the
// signing URL. (As an ES module, importing node:http also loads Node's own bundled undici on Node
// 22.5+.) Reported beside the undici floor, not a target: it is what no HTTP library costs.
const url = process.env.BENCH_URL;
const http = url.startsWith('https:') ? require('node:https') : require('node:http');

const body = JSON.stringify({
  template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  merge_data: {},
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
});
const request = http.request(url, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${process.env.BENCH_TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'esign/0.1.0',
    'x-request-id': '2f1e0a3c-5b7d-4e9f-8a1b-3c5d7e9f1a2b',
    'content-length': Buffer.byteLength(body),
  },
});
request.on('response', (response) => {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => {
    text += chunk;
  });
  response.on('end', () => process.stdout.write(`${JSON.parse(text).data.signing_url}\n`));
});
request.end(body);
