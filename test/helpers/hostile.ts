// Hostile peers on loopback for the network tests: raw TCP servers that answer however a test
// scripts them (a byte a second, an endless body, 413 and close), a tiny HTTP proxy that answers
// CONNECT with 407 or forwards the tunnel, and a TLS server with a self-signed certificate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

export interface Peer {
  readonly url: string;
  readonly port: number;
  /** How many connections were accepted. */
  readonly connections: number;
  close(): Promise<void>;
}

function track(server: Server, host: string): Promise<Peer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        get connections() {
          return connections;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Reads one request head (up to the blank line) from a socket, then calls `answer` with what followed. */
function onRequestHead(socket: Socket, answer: (head: string, rest: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1) return;
    socket.off('data', onData);
    answer(buffered.subarray(0, end).toString('latin1'), buffered.subarray(end + 4));
  };
  socket.on('data', onData);
}

/** A raw HTTP server: each connection's request head goes to `script`, which writes what it likes. */
export function startRawServer(
  script: (socket: Socket, head: string) => void,
  host = '127.0.0.1',
): Promise<Peer> {
  const server = createServer((socket) => onRequestHead(socket, (head) => script(socket, head)));
  return track(server, host);
}

/** Headers, then one body byte every `everyMs` for ever (until the client goes). */
export function trickle(everyMs = 200) {
  return (socket: Socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{');
    const timer = setInterval(() => socket.write(' '), everyMs);
    socket.on('close', () => clearInterval(timer));
  };
}

/** Headers, then body chunks as fast as the client reads them, for ever. */
export function endlessBody() {
  return (socket: Socket) => {
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    const chunk = `2000\r\n${' '.repeat(0x2000)}\r\n`;
    const pump = () => {
      while (!socket.destroyed && socket.write(chunk)) {}
    };
    socket.on('drain', pump);
    pump();
  };
}

export interface Proxy extends Peer {
  /** The request lines received (`CONNECT host:port HTTP/1.1`, or a plain proxied request line). */
  readonly received: string[];
}

/**
 * A loopback HTTP proxy. `mode` 407 answers every CONNECT with 407 Proxy Authentication Required;
 * `forward` opens the tunnel to `forwardTo` (whatever the CONNECT asked for) and pipes both ways.
 */
export async function startProxy(
  mode: { kind: '407' } | { kind: 'forward'; forwardTo: number },
): Promise<Proxy> {
  const received: string[] = [];
  const server = createHttpServer((req: IncomingMessage, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    received.push(`CONNECT ${req.url}`);
    client.on('error', () => {});
    if (mode.kind === '407') {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="corp"\r\ncontent-length: 0\r\n\r\n',
      );
      return;
    }
    const upstream = connect(mode.forwardTo, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
  });
  const peer = await track(server as unknown as Server, '127.0.0.1');
  return Object.assign(Object.create(null), peer, {
    received,
    get connections() {
      return peer.connections;
    },
  }) as Proxy;
}

/** A TLS server with a fresh self-signed certificate for localhost, answering every request with `reply`. */
export async function startSelfSignedTls(
  reply = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
): Promise<Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'esign-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ],
    { stdio: 'ignore' },
  );
  const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (socket) => {
    socket.on('error', () => {});
    onRequestHead(socket as unknown as Socket, () => socket.end(reply));
  });
  return track(server as unknown as Server, '127.0.0.1');
}
