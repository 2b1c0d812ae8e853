// The one POST every create floor sends (bench/floor-create-*.mjs, floor-create-cjs.cjs): the body
// `esign envelope create --template … --name 'Ada Lovelace' --email ada@example.com` sends, and the
// headers it sends (esign's user agent, and a fixed request id for its fresh one). floor-create-cjs.cjs
// repeats them in CommonJS.
export const FLOOR_TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

export const FLOOR_BODY = JSON.stringify({
  template_id: FLOOR_TEMPLATE,
  merge_data: {},
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
});

export const floorHeaders = (token) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json',
  'user-agent': 'esign/0.1.0',
  'x-request-id': '2f1e0a3c-5b7d-4e9f-8a1b-3c5d7e9f1a2b',
});
