// The undici floor for a create, through undici's index: the smallest ES-module script that sends
// the POST a create sends (the same headers and body, to the same server) with undici as installed,
// and prints the signing URL. With bench/floor-create-agent.mjs, the cheaper of the two is the floor
// a create is measured against: what its HTTP client costs before esign adds anything.
//
// BENCH_URL is the create URL, BENCH_TOKEN the token. An https:// URL works too: the server's
// certificate is trusted through NODE_EXTRA_CA_CERTS, as it is for esign.
import { request } from 'undici';
import { FLOOR_BODY, floorHeaders } from './floor-request.mjs';

const response = await request(process.env.BENCH_URL, {
  method: 'POST',
  headers: floorHeaders(process.env.BENCH_TOKEN),
  body: FLOOR_BODY,
});
const answer = await response.body.json();
process.stdout.write(`${answer.data.signing_url}\n`);
