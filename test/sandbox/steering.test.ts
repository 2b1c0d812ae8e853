// A sandbox tests can steer (issue 11): one request, one fault (the X-Sandbox-Fault header, or the
// queue of POST /_sandbox/faults), the request and envelope listings, and fault settings changed while
// it runs.
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  admin,
  createOutcome,
  GLOBEX_SUPPLIER,
  postCreate,
  request,
  sandboxPerTest,
  tokenOf,
  validBody,
} from './helpers.js';

const start = sandboxPerTest();

const withFault = (fault: string) => ({ headers: { 'x-sandbox-fault': fault } });

/** A status, or 'dropped' when the connection closed with no answer. */
const outcome = (sandbox: RunningSandbox, fault?: string) =>
  createOutcome(sandbox, fault === undefined ? {} : withFault(fault));

describe('X-Sandbox-Fault: one request, one fault', () => {
  it('503 with Retry-After, nothing created; the next request is served', async () => {
    const sandbox = await start();
    const answer = await postCreate(sandbox, validBody(), withFault('503'));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.json).toEqual({
      message:
        'Service Unavailable: the sandbox failed this request on purpose (X-Sandbox-Fault). Try again shortly.',
    });
    expect(sandbox.envelopeCount()).toBe(0);
    expect(await outcome(sandbox)).toBe(200);
  });

  it('500, nothing created', async () => {
    const sandbox = await start();
    const answer = await postCreate(sandbox, validBody(), withFault('500'));
    expect(answer.status).toBe(500);
    expect((answer.json as { message: string }).message).toMatch(
      /^Server Error: .*on purpose \(X-Sandbox-Fault\)/,
    );
    expect(sandbox.envelopeCount()).toBe(0);
  });

  it('429 with Retry-After; with a rate limit, the headers say the quota is spent', async () => {
    const plain = await start();
    const answer = await postCreate(plain, validBody(), withFault('429'));
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(plain.envelopeCount()).toBe(0);

    const limited = await start({ rateLimit: '10/h' });
    const spent = await postCreate(limited, validBody(), withFault('429'));
    expect(spent.status).toBe(429);
    expect(spent.headers.get('x-ratelimit-remaining')).toBe('0');
    const resetMs = Number(spent.headers.get('x-ratelimit-reset')) * 1000;
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThanOrEqual(
      Math.ceil((resetMs - Date.now()) / 1000),
    );
    // It did not use the token's quota.
    const next = await postCreate(limited, validBody());
    expect(next.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('drop: the envelope is made, the connection closed with no answer', async () => {
    const sandbox = await start();
    expect(await outcome(sandbox, 'drop')).toBe('dropped');
    expect(sandbox.envelopeCount()).toBe(1);
    await waitFor(() => sandbox.requests().at(-1)?.status === 'dropped', 'the drop in the request log');
    expect(sandbox.requests().at(-1)?.status).toBe('dropped');
  });

  it('latency=<ms> delays that request only', async () => {
    const sandbox = await start();
    const started = performance.now();
    expect(await outcome(sandbox, 'latency=300')).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('a value it does not know is 400 naming the header and the choices', async () => {
    const sandbox = await start();
    const answer = await postCreate(sandbox, validBody(), withFault('404'));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      message: 'X-Sandbox-Fault must be 503, 429, 500, drop or latency=<ms> (0 to 60000) (got "404").',
    });
    expect(sandbox.envelopeCount()).toBe(0);
    const limited = await start({ rateLimit: '5/h' });
    const refused = await postCreate(limited, validBody(), withFault('nope'));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('5'); // shown, not counted
  });
});

describe('POST /_sandbox/faults', () => {
  it('queues one-shot faults for the next create requests, in order; the header goes first', async () => {
    const sandbox = await start();
    const queued = await admin(sandbox, 'POST', 'faults', { next: ['503', 'drop', '500', 'latency=10'] });
    expect(queued.status).toBe(200);
    expect((queued.json as { next: string[] }).next).toEqual(['503', 'drop', '500', 'latency=10']);

    expect(await outcome(sandbox)).toBe(503);
    expect(await outcome(sandbox, '429')).toBe(429); // the header wins and takes nothing from the queue
    expect(((await admin(sandbox, 'GET', 'faults')).json as { next: string[] }).next).toEqual([
      'drop',
      '500',
      'latency=10',
    ]);
    expect(await outcome(sandbox)).toBe('dropped');
    expect(await outcome(sandbox)).toBe(500);
    expect(await outcome(sandbox)).toBe(200);
    expect(await outcome(sandbox)).toBe(200);
    expect(((await admin(sandbox, 'GET', 'faults')).json as { next: string[] }).next).toEqual([]);
    expect(sandbox.envelopeCount()).toBe(3); // the drop, the latency one and the last

    await admin(sandbox, 'POST', 'faults', { next: ['503', '503'] });
    await admin(sandbox, 'POST', 'faults', { next: [] }); // replaces the queue
    expect(await outcome(sandbox)).toBe(200);
  });

  it('changes latency, fail rate, drop rate, rate limit, header style and seed while running', async () => {
    const sandbox = await start();
    const changed = await admin(sandbox, 'POST', 'faults', {
      rate_limit: '1/h',
      rate_limit_headers: 'ietf',
      seed_random: 7,
    });
    expect(changed.json).toEqual({
      latency_ms: 0,
      fail_rate: 0,
      drop_rate: 0,
      rate_limit: { limit: 1, window_seconds: 3600, text: '1/h' },
      rate_limit_headers: 'ietf',
      seed_random: 7,
      next: [],
    });
    expect((await postCreate(sandbox, validBody())).headers.get('ratelimit-policy')).toBe('1;w=3600');
    const limited = await postCreate(sandbox, validBody());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    await admin(sandbox, 'POST', 'faults', { rate_limit: null, fail_rate: 1 });
    const failed = await postCreate(sandbox, validBody());
    expect(failed.status).toBe(503);
    expect(failed.headers.get('ratelimit-policy')).toBeNull();

    await admin(sandbox, 'POST', 'faults', { fail_rate: 0, drop_rate: 1 });
    expect(await outcome(sandbox)).toBe('dropped');

    await admin(sandbox, 'POST', 'faults', { drop_rate: 0, latency_ms: 250 });
    const started = performance.now();
    expect(await outcome(sandbox)).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(((await admin(sandbox, 'GET', 'stats')).json as { faults: unknown }).faults).toMatchObject({
      latency_ms: 250,
      rate_limit: null,
    });
  });

  const invalid: [unknown, string][] = [
    [{ fail_rate: 2 }, 'fail_rate: must be a number from 0 to 1, like 0.1'],
    [{ latency_ms: -1 }, 'latency_ms: must be a whole number from 0 to 60000'],
    [{ latency_ms: '100' }, 'latency_ms: must be a whole number from 0 to 60000'],
    [
      { rate_limit: '5/d' },
      'rate_limit: must be n per window, like 50, 50/s, 100/min, 1000/h, 50/5s or 0.5/s',
    ],
    [
      { rate_limit_headers: 'github' },
      'rate_limit_headers: must be one of x-ratelimit, ietf, structured, none',
    ],
    [{ seed_random: 1.5 }, 'seed_random: must be a whole number from 0 to 4294967295'],
    [{ next: ['503', '404'] }, 'next.1: must be 503, 429, 500, drop or latency=<ms> (0 to 60000)'],
    [{ next: '503' }, 'next: must be a list of one-shot faults, like ["503", "drop"]'],
    [{ failrate: 1 }, "unknown field 'failrate'"],
  ];
  it.each(invalid)('%j is 422 naming the field, and changes nothing', async (body, problem) => {
    const sandbox = await start();
    const answer = await admin(sandbox, 'POST', 'faults', body);
    expect(answer.status).toBe(422);
    expect((answer.json as { message: string }).message.startsWith(`${problem}. Send any of`)).toBe(true);
    expect((answer.json as { errors: { body: string[] } }).errors.body).toContain(problem);
    expect((await admin(sandbox, 'GET', 'faults')).json).toMatchObject({
      fail_rate: 0,
      latency_ms: 0,
      next: [],
    });
  });

  it('needs the admin secret, JSON, and GET or POST', async () => {
    const sandbox = await start();
    expect((await admin(sandbox, 'POST', 'faults', { fail_rate: 1 }, tokenOf(sandbox))).status).toBe(401);
    expect((await admin(sandbox, 'PUT', 'faults', { fail_rate: 1 })).headers.get('allow')).toBe('GET, POST');
    const notJson = await request(`${sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.adminSecret}` },
      body: 'fail_rate=1',
    });
    expect(notJson.status).toBe(415);
    expect(await outcome(sandbox)).toBe(200);
  });
});

describe('GET /_sandbox/requests', () => {
  it('lists what was received: method, path, headers (Authorization redacted), body, time, status, id', async () => {
    const sandbox = await start();
    const before = Date.now();
    const created = await postCreate(sandbox, validBody(), { headers: { 'x-request-id': 'test-run-1' } });
    const refused = await postCreate(sandbox, validBody(), { token: 'sbx_unknown_000000000000' });
    await request(`${sandbox.url}/sign/nothing?x=1`);
    await admin(sandbox, 'GET', 'stats'); // admin requests are not listed
    expect(created.headers.get('x-request-id')).toBe('test-run-1');
    expect(refused.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{8}_[0-9a-z]+$/);

    const listing = (await admin(sandbox, 'GET', 'requests')).json as {
      total: number;
      kept: number;
      capacity: number;
      requests: {
        id: string;
        time: string;
        method: string;
        path: string;
        headers: Record<string, string>;
        body: string;
        status: number | string | null;
      }[];
    };
    expect(listing).toMatchObject({ total: 3, kept: 3, capacity: 10_000 });
    const [first, second, third] = listing.requests;
    expect(first).toMatchObject({
      id: 'test-run-1',
      method: 'POST',
      path: '/api/v1/native/envelopes/create',
      status: 200,
    });
    expect(JSON.parse(first?.body ?? '')).toEqual(validBody());
    expect(first?.headers.authorization).toBe('Bearer [redacted]');
    expect(first?.headers['content-type']).toBe('application/json');
    expect(Date.parse(first?.time ?? '')).toBeGreaterThanOrEqual(before - 1);
    expect(second).toMatchObject({ id: refused.headers.get('x-request-id'), status: 401 });
    expect(JSON.parse(second?.body ?? '')).toEqual(validBody()); // kept though it was refused unread
    expect(third).toMatchObject({ method: 'GET', path: '/sign/nothing?x=1', status: 404 });
    const text = JSON.stringify(listing);
    expect(text).not.toContain(tokenOf(sandbox));
    expect(text).not.toContain('sbx_unknown_000000000000');

    expect((await admin(sandbox, 'GET', 'requests?limit=1')).json).toMatchObject({
      requests: [{ path: '/sign/nothing?x=1' }],
    });
    expect((await admin(sandbox, 'GET', 'requests?limit=x')).status).toBe(400);
    expect((await admin(sandbox, 'DELETE', 'requests')).json).toEqual({ cleared: 3 });
    expect((await admin(sandbox, 'GET', 'requests')).json).toMatchObject({ total: 0, kept: 0, requests: [] });
  });

  it('keeps only the last keepRequests, so memory stays flat; 0 keeps none', async () => {
    const sandbox = await start({ keepRequests: 3 });
    for (let i = 0; i < 5; i++)
      await postCreate(sandbox, validBody(), { headers: { 'x-request-id': `r${i}` } });
    const listing = (await admin(sandbox, 'GET', 'requests')).json as {
      total: number;
      requests: { id: string }[];
    };
    expect(listing.total).toBe(5);
    expect(listing.requests.map((r) => r.id)).toEqual(['r2', 'r3', 'r4']);

    const none = await start({ keepRequests: 0 });
    await postCreate(none, validBody());
    expect((await admin(none, 'GET', 'requests')).json).toMatchObject({ kept: 0, capacity: 0, requests: [] });
  });
});

describe('GET /_sandbox/envelopes', () => {
  it('lists what this run created, and DELETE empties the list but not the sandbox', async () => {
    const sandbox = await start();
    const first = await postCreate(sandbox, validBody());
    await postCreate(
      sandbox,
      validBody({ template_id: GLOBEX_SUPPLIER, merge_data: { supplier_name: 'Initech' } }),
      {
        token: tokenOf(sandbox, 1),
      },
    );
    await postCreate(sandbox, validBody(), withFault('503'));
    const listing = (await admin(sandbox, 'GET', 'envelopes')).json as {
      total: number;
      envelopes: Record<string, unknown>[];
    };
    expect(listing.total).toBe(2);
    const data = (first.json as { data: Record<string, string> }).data;
    expect(listing.envelopes[0]).toEqual({
      envelope_id: data.envelope_id,
      organisation: 'Acme Corp',
      template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      status: 'ready',
      created_at: data.created_at,
      expires_at: data.expires_at,
      signing_url: data.signing_url,
      merge_data: validBody().merge_data,
      signatory: validBody().signatory,
    });
    expect(listing.envelopes[1]).toMatchObject({
      organisation: 'Globex Inc',
      merge_data: { supplier_name: 'Initech' },
    });
    expect((await admin(sandbox, 'GET', 'envelopes?limit=1')).json).toMatchObject({
      envelopes: [{ organisation: 'Globex Inc' }],
    });

    expect((await admin(sandbox, 'DELETE', 'envelopes')).json).toEqual({ cleared: 2 });
    expect((await admin(sandbox, 'GET', 'envelopes')).json).toMatchObject({ total: 0, envelopes: [] });
    expect(sandbox.envelopeCount()).toBe(2);
    expect((await request(data.signing_url as string)).status).toBe(200);
    expect((await admin(sandbox, 'POST', 'envelopes')).status).toBe(405);
  });
});
