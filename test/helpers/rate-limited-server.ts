// A rate-limited API on 127.0.0.1: `limit` creates per fixed window of `windowMs`, counted by
// arrival; past it a 429 with Retry-After (whole seconds, rounded up, as real APIs send it) until
// the window resets. Rate-limit headers on every answer in the chosen style. It records when each
// request arrived and what it answered, so that tests can check pacing from the server's side.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type HeaderStyle = 'x-ratelimit' | 'ietf' | 'structured' | 'none';

export interface Arrival {
  at: number;
  status: number;
}

export interface RateLimitedServer {
  readonly baseUrl: string;
  readonly arrivals: Arrival[];
  /** 429s per window that had any. */
  created(): number;
  rejected(): number;
  close(): Promise<void>;
}

export async function startRateLimitedServer(options: {
  limit: number;
  windowMs: number;
  style: HeaderStyle;
  latencyMs?: number;
}): Promise<RateLimitedServer> {
  const { limit, windowMs, style } = options;
  const arrivals: Arrival[] = [];
  const sockets = new Set<Socket>();
  let count = 0;
  const windowOf = (now: number) => Math.floor(now / windowMs);
  let current = windowOf(Date.now());
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = Date.now();
      const window = windowOf(now);
      if (window !== current) {
        current = window;
        count = 0;
      }
      const resetAt = (window + 1) * windowMs;
      const allowed = count < limit;
      if (allowed) count++;
      const remaining = Math.max(0, limit - count);
      const resetIn = Math.max(0, Math.ceil((resetAt - now) / 1000));
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (style === 'x-ratelimit') {
        headers['x-ratelimit-limit'] = String(limit);
        headers['x-ratelimit-remaining'] = String(remaining);
        headers['x-ratelimit-reset'] = String(Math.ceil(resetAt / 1000));
      } else if (style === 'ietf') {
        headers['ratelimit-limit'] = `${limit}, ${limit};w=${windowMs / 1000}`;
        headers['ratelimit-remaining'] = String(remaining);
        headers['ratelimit-reset'] = String(resetIn);
      } else if (style === 'structured') {
        headers.ratelimit = `"default";r=${remaining};t=${resetIn}`;
        headers['ratelimit-policy'] = `"default";q=${limit};w=${windowMs / 1000}`;
      }
      const status = allowed ? 200 : 429;
      arrivals.push({ at: now, status });
      if (!allowed) headers['retry-after'] = String(Math.max(1, resetIn));
      const index = arrivals.length;
      const id = `01JD7X4ZQ8G1N6RVS0Y${String(index).padStart(7, '0')}`;
      const body = allowed
        ? {
            success: true,
            data: {
              envelope_id: id,
              signing_url: `https://sign.example.com/s/${id}`,
              status: 'ready',
              created_at: '2026-11-22T10:00:00.000Z',
              expires_at: '2026-12-22T10:00:00.000Z',
            },
          }
        : { message: 'Too Many Requests' };
      setTimeout(() => {
        res.writeHead(status, headers);
        res.end(JSON.stringify(body));
      }, options.latencyMs ?? 0);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    arrivals,
    created: () => arrivals.filter((a) => a.status === 200).length,
    rejected: () => arrivals.filter((a) => a.status === 429).length,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
