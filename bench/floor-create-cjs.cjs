// The true floor for a real create: a minimal CommonJS script making the same POST with node:http.
// (As an ES module, importing node:http also loads Node's own bundled undici on Node 22.5+.)
const http = require('node:http');

const body = JSON.stringify({
  template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  merge_data: {},
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
});
const request = http.request(process.env.BENCH_URL, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${process.env.BENCH_TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json',
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
