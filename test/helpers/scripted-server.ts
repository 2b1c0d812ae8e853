// A scripted HTTP server on 127.0.0.1 port 0: each request takes the next scripted reply (or a
// default), and everything received is recorded. It fails loudly on requests nobody expected, and
// (as gh's httpmock `Verify`) on replies a test queued that no request used: `verify()`, which
// useScriptedServer calls after each test and every server calls when it closes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';

interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** When the whole request had arrived (Date.now()). */
  at: number;
}

export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string>; delayMs?: number }
  | {
      kind: 'text';
      status: number;
      body: string;
      contentType?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  /** Read the request, then close the connection without answering (the outcome is unknown). */
  | { kind: 'destroy'; delayMs?: number }
  /** Read the request and never answer. */
  | { kind: 'hang' };

export interface ScriptedServer {
  readonly url: string;
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  /** The most requests that were in flight at once. */
  readonly maxInFlight: number;
  /** Queues replies, used in order. */
  script(...replies: Reply[]): void;
  /** Answers every request the script does not cover (by default such a request fails the test). */
  fallback(reply: ((request: ReceivedRequest, index: number) => Reply) | Reply): void;
  /** Throws, listing them, when scripted replies are still queued: the test expected requests that never came. */
  verify(): void;
  /** Forgets the requests received, the replies still queued and the fallback. */
  reset(): void;
  close(): Promise<void>;
}

export const ok = (data: Record<string, unknown> = {}): Reply => ({
  kind: 'json',
  status: 200,
  body: {
    success: true,
    data: {
      envelope_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      signing_url: 'https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      status: 'ready',
      created_at: '2026-11-22T10:00:00.000Z',
      expires_at: '2026-12-22T10:00:00.000Z',
      ...data,
    },
  },
});

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body,
  headers,
});

/** One queued reply, as a failure lists it. */
function describeReply(reply: Reply): string {
  if (reply.kind === 'json') return `${reply.status} ${JSON.stringify(reply.body).slice(0, 80)}`;
  if (reply.kind === 'text') return `${reply.status} ${reply.body.slice(0, 80)}`;
  return reply.kind;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const queue: Reply[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let fallback: ((request: ReceivedRequest, index: number) => Reply) | undefined;
  let inFlight = 0;
  let maxInFlight = 0;

  const respond = async (reply: Reply, res: ServerResponse) => {
    if (reply.kind === 'hang') return;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.kind === 'destroy') {
      res.socket?.destroy();
      return;
    }
    const body = reply.kind === 'json' ? JSON.stringify(reply.body) : reply.body;
    const contentType = reply.kind === 'json' ? 'application/json' : (reply.contentType ?? 'text/html');
    res.writeHead(reply.status, { 'content-type': contentType, ...reply.headers });
    res.end(body);
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const finished = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('close', finished);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = requests.push(received) - 1;
      const reply =
        queue.shift() ??
        fallback?.(received, index) ??
        json(599, {
          message: `scripted server: unexpected request #${index + 1} ${received.method} ${received.url}`,
        });
      void respond(reply, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/api/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    script: (...replies) => {
      queue.push(...replies);
    },
    fallback: (reply) => {
      fallback = typeof reply === 'function' ? reply : () => reply;
    },
    verify: () => {
      if (queue.length === 0) return;
      const unused = queue.splice(0).map((reply, i) => `  ${i + 1}. ${describeReply(reply)}`);
      throw new Error(
        `scripted server: ${unused.length === 1 ? 'a reply was' : 'replies were'} queued that no request used:\n${unused.join('\n')}`,
      );
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
      fallback = undefined;
    },
    close: async () => {
      const unused = queue.length;
      await new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      if (unused > 0) {
        throw new Error(`scripted server: closed with ${unused} queued replies that no request used`);
      }
    },
  };
}

/**
 * One scripted server for a test file: started before its tests, closed after them, and (unless
 * `resetAfterEach` is false) verified and reset after each test, so that no test meets another's
 * requests, replies or fallback, and a test whose queued replies were not all used fails. The
 * object returned stands for the server from the moment it has started.
 */
export function useScriptedServer({ resetAfterEach = true } = {}): ScriptedServer {
  let started: ScriptedServer | undefined;
  beforeAll(async () => {
    started = await startScriptedServer();
  });
  afterAll(() => started?.close());
  if (resetAfterEach) {
    afterEach(() => {
      try {
        started?.verify();
      } finally {
        started?.reset();
      }
    });
  }
  const server = () => {
    if (!started) throw new Error('the scripted server starts in beforeAll: use it inside a test');
    return started;
  };
  return {
    get url() {
      return server().url;
    },
    get baseUrl() {
      return server().baseUrl;
    },
    get requests() {
      return server().requests;
    },
    get maxInFlight() {
      return server().maxInFlight;
    },
    script: (...replies) => server().script(...replies),
    fallback: (reply) => server().fallback(reply),
    verify: () => server().verify(),
    reset: () => server().reset(),
    close: () => server().close(),
  };
}
