// The request log is capped in bytes, not only in entries (issue 21): bodies sent without a token
// are kept as a 1 KiB prefix, and the oldest requests go once the log holds its bytes' worth, so no
// stream of large requests can grow the sandbox until it dies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KEEP_REQUEST_BYTES } from '../../src/sandbox/request-log.js';
import { RingLog } from '../../src/sandbox/ring-log.js';
import { admin, postCreate, sandboxPerTest } from './helpers.js';

const start = sandboxPerTest();
const MIB = 1024 * 1024;

interface Listing {
  total: number;
  kept: number;
  capacity: number;
  kept_bytes: number;
  capacity_bytes: number;
  requests: {
    id: string;
    time: string;
    body: string;
    body_bytes: number;
    body_truncated: boolean;
    status: number;
  }[];
}

describe('the request log in bytes', () => {
  it('keeps 1 KiB of a body sent without a token, marked truncated with its full length', async () => {
    const sandbox = await start();
    const big = `{"junk":"${'é'.repeat(MIB / 2 - 20)}"}`; // two bytes a character: a prefix may cut one
    const small = JSON.stringify({ template_id: 'x' });
    expect((await postCreate(sandbox, null, { token: null, raw: big })).status).toBe(401);
    expect((await postCreate(sandbox, null, { token: null, raw: big })).status).toBe(401);
    expect((await postCreate(sandbox, null, { token: 'sbx_unknown_000000000000', raw: small })).status).toBe(
      401,
    );
    const listing = (await admin(sandbox, 'GET', 'requests')).json as Listing;
    const [first, again, second] = listing.requests;
    expect(again).toEqual({ ...first, id: again?.id, time: again?.time });
    expect(first?.body_truncated).toBe(true);
    expect(first?.body_bytes).toBe(Buffer.byteLength(big));
    expect(Buffer.byteLength(first?.body ?? '')).toBeLessThanOrEqual(1024);
    expect(Buffer.byteLength(first?.body ?? '')).toBeGreaterThanOrEqual(1023);
    expect(big.startsWith(first?.body ?? 'nothing')).toBe(true); // whole characters only
    expect(second).toMatchObject({ body: small, body_bytes: small.length, body_truncated: false });
    expect(listing.kept_bytes).toBeLessThan(8 * 1024);
    expect(listing.capacity_bytes).toBe(DEFAULT_KEEP_REQUEST_BYTES);
  });

  it('with a token, bodies are whole, and the oldest requests go once the log holds its bytes', async () => {
    const sandbox = await start({ keepRequestBytes: 100 * 1024 });
    const body = `{"junk":"${'x'.repeat(30 * 1024)}"}`; // whole JSON: a 422, read with the token
    for (let i = 0; i < 10; i++) {
      const answer = await postCreate(sandbox, null, { raw: body, headers: { 'x-request-id': `r${i}` } });
      expect(answer.status).toBe(422);
    }
    const listing = (await admin(sandbox, 'GET', 'requests')).json as Listing;
    expect(listing.total).toBe(10);
    expect(listing.kept).toBe(3);
    expect(listing.requests.map((r) => r.id)).toEqual(['r7', 'r8', 'r9']);
    expect(listing.requests.every((r) => r.body === body && !r.body_truncated)).toBe(true);
    expect(listing.kept_bytes).toBeLessThanOrEqual(100 * 1024);
    expect(listing.capacity_bytes).toBe(100 * 1024);
    expect((await admin(sandbox, 'DELETE', 'requests')).json).toEqual({ cleared: 10 });
    expect((await admin(sandbox, 'GET', 'requests')).json).toMatchObject({ kept: 0, kept_bytes: 0 });
  });
});

describe('RingLog with a byte budget', () => {
  it('keeps the newest items whose sizes fit, at most `capacity`, the sum tracked as items resize', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 })), {
          maxLength: 30,
        }),
        (capacity, maxBytes, sizes) => {
          const log = new RingLog<{ n: number; size: number }>(capacity, {
            maxBytes,
            sizeOf: (item) => item.size,
          });
          const added = sizes.map(([first, later], n) => {
            const item = { n, size: first };
            log.add(item);
            item.size = later; // the body read after the request was listed
            log.resized(item);
            return item;
          });
          const kept = log.items();
          // The newest `kept.length` items, in order; within the budget unless only the newest is left.
          expect(kept).toEqual(added.slice(added.length - kept.length));
          expect(kept.length).toBeLessThanOrEqual(capacity);
          expect(log.bytes).toBe(kept.reduce((sum, item) => sum + item.size, 0));
          if (kept.length > 1) expect(log.bytes).toBeLessThanOrEqual(maxBytes);
        },
      ),
    );
  });
});
