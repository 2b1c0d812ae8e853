// The floor for a real create: a minimal Node script making the same POST with undici, nothing else.
import { request } from 'undici';

const [url, token] = [process.env.BENCH_URL, process.env.BENCH_TOKEN];
const body = JSON.stringify({
  template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  merge_data: {},
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
});
const response = await request(url, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  },
  body,
});
const data = await response.body.json();
process.stdout.write(`${data.data.signing_url}\n`);
