// POST /api/v1/native/envelopes/create over real HTTP: the spec's answers where it speaks, and the
// careful-API answers of docs/sandbox.md where it is silent.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateEnvelopeResponse, ULID_PATTERN } from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { ulidTime } from '../../src/sandbox/state/ulid.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  ACME_OFFER,
  CREATE_PATH,
  GLOBEX_SUPPLIER,
  postCreate,
  request,
  startQuietSandbox,
  tokenOf,
  validBody,
} from './helpers.js';

const DAY_MS = 86_400_000;
let sandbox: RunningSandbox;
const logLines: string[] = [];

beforeAll(async () => {
  sandbox = await startQuietSandbox({ log: (line) => logLines.push(line) });
});
afterAll(() => sandbox.close());

describe('a valid create request', () => {
  it('answers 200 with a body that matches the spec schema, status ready and a 30-day default expiry', async () => {
    const before = Date.now();
    const answer = await postCreate(sandbox, validBody());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const parsed = CreateEnvelopeResponse.safeParse(answer.json);
    expect(parsed.success).toBe(true);
    const data = (answer.json as CreateEnvelopeResponse).data;
    expect(Object.keys(answer.json as object)).toEqual(['success', 'data']);
    expect(Object.keys(data)).toEqual(['envelope_id', 'signing_url', 'status', 'created_at', 'expires_at']);
    expect(data.status).toBe('ready');
    expect(data.envelope_id).toMatch(ULID_PATTERN);
    expect(data.signing_url).toBe(`${sandbox.url}/sign/${data.envelope_id}`);
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const created = Date.parse(data.created_at);
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(data.expires_at) - created).toBe(30 * DAY_MS);
    expect(ulidTime(data.envelope_id)).toBe(created);
  });

  it('uses expires_in_days, and accepts 1 and 365', async () => {
    for (const days of [1, 7, 365]) {
      const answer = await postCreate(sandbox, validBody({ expires_in_days: days }));
      expect(answer.status).toBe(200);
      const data = (answer.json as CreateEnvelopeResponse).data;
      expect(Date.parse(data.expires_at) - Date.parse(data.created_at)).toBe(days * DAY_MS);
    }
  });

  it('gives every envelope a new id, in creation order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await postCreate(sandbox, validBody())).json as CreateEnvelopeResponse).data.envelope_id);
    expect(new Set(ids).size).toBe(5);
    expect([...ids].sort()).toEqual(ids);
  });

  it('accepts a phone, a lower-case template id, partial merge data and JSON content types with parameters', async () => {
    const answer = await postCreate(
      sandbox,
      validBody({
        template_id: ACME_OFFER.toLowerCase(),
        merge_data: {},
        signatory: { name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0958' },
      }),
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
    );
    expect(answer.status).toBe(200);
  });

  it("works for the second organisation's own template", async () => {
    const answer = await postCreate(
      sandbox,
      validBody({ template_id: GLOBEX_SUPPLIER, merge_data: { supplier_name: 'Initech' } }),
      {
        token: tokenOf(sandbox, 1),
      },
    );
    expect(answer.status).toBe(200);
  });
});

describe('authentication (spec 5)', () => {
  const cases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['another scheme', { authorization: 'Basic YWRhOnNlY3JldA==' }],
    ['a token with no scheme', { authorization: 'sbx_acme_corp_00000000000000000000000000000000' }],
    ['an unknown token', { authorization: 'Bearer sbx_acme_corp_00000000000000000000000000000000' }],
    ['a token with a space inside', { authorization: 'Bearer abc def' }],
  ];
  it.each(cases)('answers 401 {"message":"Unauthenticated."} for %s', async (_name, headers) => {
    const answer = await postCreate(sandbox, validBody(), { token: null, headers });
    expect(answer.status).toBe(401);
    expect(answer.text).toBe('{"message":"Unauthenticated."}');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('checks the token before the body', async () => {
    const answer = await postCreate(sandbox, undefined, {
      token: 'sbx_nope_000000000000000000',
      raw: 'not json',
    });
    expect(answer.status).toBe(401);
  });

  it('does not accept the admin secret as an API token', async () => {
    const answer = await postCreate(sandbox, validBody(), { token: sandbox.adminSecret });
    expect(answer.status).toBe(401);
  });
});

describe('organisation isolation', () => {
  it('answers 403 {"message":"Forbidden."} for another organisation\'s template, both ways', async () => {
    const acmeUsesGlobex = await postCreate(
      sandbox,
      validBody({ template_id: GLOBEX_SUPPLIER, merge_data: {} }),
      { token: tokenOf(sandbox, 0) },
    );
    expect(acmeUsesGlobex.status).toBe(403);
    expect(acmeUsesGlobex.text).toBe('{"message":"Forbidden."}');
    const globexUsesAcme = await postCreate(sandbox, validBody(), { token: tokenOf(sandbox, 1) });
    expect(globexUsesAcme.status).toBe(403);
    expect(globexUsesAcme.text).toBe('{"message":"Forbidden."}');
  });

  it("does not tell another organisation's merge tags in a 422", async () => {
    const answer = await postCreate(
      sandbox,
      validBody({ template_id: GLOBEX_SUPPLIER, merge_data: { nope: 'x' }, signatory: {} }),
    );
    expect(answer.status).toBe(422);
    expect(answer.text).not.toContain('supplier_name');
    expect(Object.keys((answer.json as { errors: object }).errors)).toEqual([
      'signatory.name',
      'signatory.email',
    ]);
  });
});

describe('an unknown template', () => {
  it('answers 404 with a message', async () => {
    const answer = await postCreate(sandbox, validBody({ template_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }));
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ message: 'Template 01ARZ3NDEKTSV4RRFFQ69G5FAV was not found.' });
  });
});

describe('invalid fields: 422 with a message and per-field errors', () => {
  const { template_id: _t, ...withoutTemplate } = validBody();
  const { merge_data: _m, ...withoutMergeData } = validBody();
  const { signatory: _s, ...withoutSignatory } = validBody();
  const cases: [string, unknown, string, RegExp][] = [
    ['template_id missing', withoutTemplate, 'template_id', /required/],
    ['template_id not a ULID', validBody({ template_id: 'tmpl_123' }), 'template_id', /ULID/],
    [
      'template_id with I, L, O or U',
      validBody({ template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKTIL' }),
      'template_id',
      /ULID/,
    ],
    ['template_id a number', validBody({ template_id: 42 }), 'template_id', /string/],
    ['merge_data missing', withoutMergeData, 'merge_data', /required/],
    ['merge_data an array', validBody({ merge_data: ['a'] }), 'merge_data', /object/],
    ['merge_data a string', validBody({ merge_data: 'company=Acme' }), 'merge_data', /object/],
    ['merge_data null', validBody({ merge_data: null }), 'merge_data', /object/],
    [
      'a merge value that is a number',
      validBody({ merge_data: { salary: 100000 } }),
      'merge_data.salary',
      /string/,
    ],
    ['a merge value that is null', validBody({ merge_data: { role: null } }), 'merge_data.role', /string/],
    [
      'a merge key the template does not have',
      validBody({ merge_data: { colour: 'blue' } }),
      'merge_data.colour',
      /not a merge tag.*company, role, start_date, salary/,
    ],
    ['signatory missing', withoutSignatory, 'signatory', /required/],
    ['signatory a string', validBody({ signatory: 'Ada' }), 'signatory', /object/],
    [
      'signatory.name missing',
      validBody({ signatory: { email: 'ada@example.com' } }),
      'signatory.name',
      /required/,
    ],
    [
      'signatory.name blank',
      validBody({ signatory: { name: '  ', email: 'ada@example.com' } }),
      'signatory.name',
      /empty/,
    ],
    ['signatory.email missing', validBody({ signatory: { name: 'Ada' } }), 'signatory.email', /required/],
    [
      'signatory.email invalid',
      validBody({ signatory: { name: 'Ada', email: 'ada@' } }),
      'signatory.email',
      /email/,
    ],
    [
      'signatory.phone invalid',
      validBody({ signatory: { name: 'Ada', email: 'ada@example.com', phone: 'call me' } }),
      'signatory.phone',
      /phone/,
    ],
    [
      'an unknown signatory field',
      validBody({ signatory: { name: 'Ada', email: 'ada@example.com', title: 'Dr' } }),
      'signatory.title',
      /not a field/,
    ],
    ['expires_in_days 0', validBody({ expires_in_days: 0 }), 'expires_in_days', /at least 1/],
    ['expires_in_days 366', validBody({ expires_in_days: 366 }), 'expires_in_days', /at most 365/],
    ['expires_in_days 1.5', validBody({ expires_in_days: 1.5 }), 'expires_in_days', /whole number/],
    ['expires_in_days as a string', validBody({ expires_in_days: '30' }), 'expires_in_days', /number/],
    ['an unknown field (a typo)', validBody({ expires_in_day: 5 }), 'expires_in_day', /not a field/],
    ['a body that is an array', [validBody()], 'body', /JSON object/],
    ['a body that is a string', 'hello', 'body', /JSON object/],
  ];
  it.each(cases)('%s', async (_name, body, field, message) => {
    const answer = await postCreate(sandbox, body);
    expect(answer.status).toBe(422);
    const json = answer.json as { message: string; errors: Record<string, string[]> };
    expect(typeof json.message).toBe('string');
    expect(json.message.startsWith(field)).toBe(true);
    expect(Object.keys(json.errors)).toEqual([field]);
    expect(json.errors[field]?.join(' ')).toMatch(message);
  });

  it('reports every problem at once, unknown merge keys included', async () => {
    const answer = await postCreate(sandbox, {
      template_id: ACME_OFFER,
      merge_data: { company: 1, colour: 'blue' },
      signatory: { name: '', email: 'nope' },
      expires_in_days: 400,
    });
    expect(answer.status).toBe(422);
    const json = answer.json as { message: string; errors: Record<string, string[]> };
    expect(Object.keys(json.errors).sort()).toEqual([
      'expires_in_days',
      'merge_data.colour',
      'merge_data.company',
      'signatory.email',
      'signatory.name',
    ]);
    expect(json.message).toMatch(/\(and 4 more errors\)\.$/);
  });
});

describe('bodies and methods the endpoint does not take', () => {
  it('answers 400 for a body that is not JSON, with where it breaks', async () => {
    const answer = await postCreate(sandbox, undefined, {
      raw: '{"template_id": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E",}',
    });
    expect(answer.status).toBe(400);
    expect((answer.json as { message: string }).message).toMatch(
      /not valid JSON: line 1, column \d+: trailing comma/,
    );
  });

  it('answers 400 for an empty body', async () => {
    const answer = await postCreate(sandbox, undefined, { raw: '' });
    expect(answer.status).toBe(400);
    expect(answer.json).toHaveProperty('message');
  });

  it('answers 415 for a form body and for one without a content type', async () => {
    const form = await postCreate(sandbox, undefined, {
      raw: 'template_id=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((form.json as { message: string }).message).toMatch(/application\/json/);
    // fetch sends bytes without a content type
    const text = await fetch(`${sandbox.baseUrl}${CREATE_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(sandbox)}` },
      body: new Blob([JSON.stringify(validBody())]),
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toEqual({ message: expect.stringContaining('no Content-Type') });
  });

  it('answers 413 for a body over 1 MiB, announced or streamed', async () => {
    const big = JSON.stringify(validBody({ merge_data: { company: 'x'.repeat(1024 * 1024) } }));
    const announced = await postCreate(sandbox, undefined, { raw: big });
    expect(announced.status).toBe(413);
    expect((announced.json as { message: string }).message).toMatch(/1 MiB/);

    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 24) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await fetch(`${sandbox.baseUrl}${CREATE_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(sandbox)}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('accepts a body of just under 1 MiB', async () => {
    const body = validBody({ merge_data: { company: 'x'.repeat(1024 * 1024 - 200) } });
    const answer = await postCreate(sandbox, body);
    expect(answer.status).toBe(200);
  });

  it('answers 405 with Allow for other methods on the create path', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await request(`${sandbox.baseUrl}${CREATE_PATH}`, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
      expect(answer.json).toHaveProperty('message');
    }
  });

  it('answers 404 JSON for other paths', async () => {
    for (const path of [
      '/',
      '/api/v1',
      '/api/v1/native/envelopes',
      '/api/v1/native/envelopes/create/',
      '/api/v2/native/envelopes/create',
    ]) {
      const answer = await request(`${sandbox.url}${path}`, { method: 'POST' });
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect((answer.json as { message: string }).message).toMatch(/^Not found/);
    }
  });

  it('answers 400 JSON to a request that is not HTTP', async () => {
    const { port } = new URL(sandbox.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('HELLO THERE\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(reply.endsWith('{"message":"Bad Request."}')).toBe(true);
  });

  it('ignores a query string', async () => {
    const answer = await request(`${sandbox.baseUrl}${CREATE_PATH}?debug=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(sandbox)}`, 'content-type': 'application/json' },
      body: JSON.stringify(validBody()),
    });
    expect(answer.status).toBe(200);
  });
});

describe('the request log', () => {
  it('has method, path, status and milliseconds, and never a token', async () => {
    await postCreate(sandbox, validBody());
    await waitFor(
      () => logLines.some((line) => /^POST \/api\/v1\/native\/envelopes\/create 200 \d+ms$/.test(line)),
      'the create in the request log',
    );
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines).toContainEqual(
      expect.stringMatching(/^POST \/api\/v1\/native\/envelopes\/create 200 \d+ms$/),
    );
    expect(logLines).toContainEqual(
      expect.stringMatching(/^POST \/api\/v1\/native\/envelopes\/create 401 \d+ms$/),
    );
    const all = logLines.join('\n');
    for (const org of sandbox.organisations) expect(all).not.toContain(org.token);
    expect(all).not.toContain(sandbox.adminSecret);
    expect(all).not.toContain('debug=1');
  });

  it('records what was received, with the Authorization value redacted (for tests)', () => {
    const last = sandbox.requests().at(-1);
    expect(last?.method).toBe('POST');
    expect(JSON.parse(last?.body ?? '')).toEqual(validBody());
    expect(last?.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.stringify(sandbox.requests())).not.toContain(tokenOf(sandbox));
  });
});
