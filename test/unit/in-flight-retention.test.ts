// Requests sent under one abort signal (a batch sends thousands under its second Ctrl-C's) leave
// nothing behind that outlives them. The client's list of requests in flight under a signal was a
// Set, whose replaced tables kept links to their successors and to the requests they held: once one
// table had lived into V8's old generation, every young collection kept the requests sent since alive
// and promoted them, so the old generation grew by about a request's whole garbage per request until
// a full collection (and V8 grew its young generation to the largest it allows).
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/transport/http-client.js';
import { promotionBy } from '../helpers/promotion.js';

describe('HttpClient: requests under one abort signal', () => {
  it('are not kept alive into the old generation after they are answered', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('{"ok":true}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const url = new URL(`http://127.0.0.1:${port}/create`);
    const client = new HttpClient({ timeoutMs: 30_000, env: {}, userAgent: 'test', connections: 4 });
    const signal = new AbortController().signal;
    const send = async (count: number) => {
      await Promise.all(
        Array.from({ length: 4 }, async (_, worker) => {
          for (let i = worker; i < count; i += 4) await client.postJson(url, '{"n":1}', {}, signal);
        }),
      );
    };
    try {
      await send(200);
      const grown = await promotionBy(() => send(2000));
      // Promoted through the old Set: about 3 MB for 2,000 requests; without it, a few hundred KB.
      expect(grown, 'an attempt without a full collection').toBeDefined();
      expect(grown).toBeLessThan(1.5 * 1024 * 1024);
    } finally {
      server.close();
      await client.close();
    }
  });
});
