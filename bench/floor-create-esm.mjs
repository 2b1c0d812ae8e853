// The same minimal node:http POST as floor-create-cjs.cjs, written as an ES module.
import { request as httpRequest } from 'node:http';

const body = JSON.stringify({
  template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  merge_data: {},
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
});
const request = httpRequest(process.env.BENCH_URL, {
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
