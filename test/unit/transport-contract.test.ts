// What esign's transport relies on in undici, checked against the installed copy: an undici upgrade
// that moves an internal module, renames a handler callback or changes its order fails here, by
// name, before it fails a user. Real requests against servers on 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnswerAfterWriteError } from '../../src/transport/early-answer.js';
import { HttpClient } from '../../src/transport/http-client.js';
import { Agent, buildConnector, loadProxyAgent, UNDICI_CHECKED } from '../../src/transport/undici.js';

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '../..');

let server: Server;
let origin: string;
/** What happened, in order: the handler's callbacks and the server's own view. */
let log: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    log.push('server: request');
    request.resume();
    request.on('end', () => {
      // Node writes header strings as Latin-1: these two characters are the UTF-8 bytes of 'é'.
      response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-\u00c3\u00a9' });
      response.end('{"ok":true}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** A handler that records every callback undici makes, current or deprecated. */
function recorder(onStart?: (controller: { abort(reason: Error): void }) => void) {
  const seen: { rawHeaders?: unknown; chunks: Buffer[]; error?: Error; controllers: unknown[] } = {
    chunks: [],
    controllers: [],
  };
  let finish: () => void = () => undefined;
  const ended = new Promise<void>((done) => {
    finish = done;
  });
  const record = (name: string) => (controller: unknown) => {
    log.push(name);
    seen.controllers.push(controller);
  };
  const handler = {
    onRequestStart: (controller: { abort(reason: Error): void }) => {
      record('onRequestStart')(controller);
      onStart?.(controller);
    },
    onResponseStart: (controller: { rawHeaders?: unknown }, statusCode: number) => {
      record(`onResponseStart ${statusCode}`)(controller);
      seen.rawHeaders = controller.rawHeaders;
    },
    onResponseData: (controller: unknown, chunk: Buffer) => {
      record('onResponseData')(controller);
      seen.chunks.push(chunk);
    },
    onResponseEnd: (controller: unknown) => {
      record('onResponseEnd')(controller);
      finish();
    },
    onResponseError: (controller: unknown, error: Error) => {
      record('onResponseError')(controller);
      seen.error = error;
      finish();
    },
    // The callbacks undici 7 deprecates: esign's handler has none of them, and undici must not
    // need them when the current ones are there.
    onConnect: () => log.push('deprecated onConnect'),
    onHeaders: () => log.push('deprecated onHeaders') > 0,
    onData: () => log.push('deprecated onData') > 0,
    onComplete: () => log.push('deprecated onComplete'),
    onError: () => log.push('deprecated onError'),
  };
  return { handler, seen, ended };
}

function dispatch(agent: InstanceType<typeof Agent>, handler: object, headers: string[] = []) {
  agent.dispatch(
    { origin, path: '/contract', method: 'POST', headers, body: '{}' },
    handler as Parameters<InstanceType<typeof Agent>['dispatch']>[1],
  );
}

describe('undici: the version and the internal modules the transport loads by path', () => {
  it(`is undici ${UNDICI_CHECKED.major}.${UNDICI_CHECKED.minMinor}+ within major ${UNDICI_CHECKED.major}, the range src/transport/undici.ts was checked against`, () => {
    const { version } = JSON.parse(readFileSync(require.resolve('undici/package.json'), 'utf8'));
    const [major, minor] = String(version).split('.').map(Number);
    expect(major, `undici ${version}: re-check src/transport/undici.ts, then UNDICI_CHECKED`).toBe(
      UNDICI_CHECKED.major,
    );
    expect(minor).toBeGreaterThanOrEqual(UNDICI_CHECKED.minMinor);
  });

  it('undici/lib/dispatcher/agent.js and undici/lib/core/connect.js are the public Agent and buildConnector', () => {
    const index = require('undici');
    expect(require('undici/lib/dispatcher/agent.js')).toBe(index.Agent);
    expect(require('undici/lib/core/connect.js')).toBe(index.buildConnector);
    expect(Agent).toBe(index.Agent);
    expect(buildConnector).toBe(index.buildConnector);
    expect(typeof buildConnector({ timeout: 1000 })).toBe('function');
  });

  it('the proxy agent is the public ProxyAgent, and takes the options the transport gives every agent', async () => {
    const ProxyAgent = await loadProxyAgent();
    expect(ProxyAgent).toBe(require('undici').ProxyAgent);
    const agent = new ProxyAgent({
      uri: 'http://127.0.0.1:9',
      connections: 1,
      connect: { timeout: 1000 },
      headersTimeout: 1000,
      bodyTimeout: 1000,
      keepAliveTimeout: 10_000,
    });
    // The tunnel (CONNECT) goes through the dispatcher's connect(), which undici's index attaches.
    expect(typeof (require('undici').Pool.prototype as { connect?: unknown }).connect).toBe('function');
    await agent.close();
  });
});

describe('undici: the handler interface the transport implements', () => {
  it('calls onRequestStart before a byte reaches the server, then onResponseStart, onResponseData, onResponseEnd, and none of the deprecated callbacks', async () => {
    log = [];
    const agent = new Agent({ connect: readAnswerConnector() });
    const { handler, seen, ended } = recorder();
    dispatch(agent, handler);
    await ended;
    await agent.close();
    expect(log.filter((entry) => entry !== 'onResponseData')).toEqual([
      'onRequestStart',
      'server: request',
      'onResponseStart 201',
      'onResponseEnd',
    ]);
    expect(log).toContain('onResponseData');
    expect(Buffer.concat(seen.chunks).toString()).toBe('{"ok":true}');
    // The raw name/value buffers, which the transport decodes itself (values as UTF-8).
    const raw = seen.rawHeaders as Buffer[];
    expect(Array.isArray(raw) && raw.every((item) => Buffer.isBuffer(item))).toBe(true);
    const id = raw.findIndex((name) => name.toString('latin1').toLowerCase() === 'x-request-id');
    expect(raw[id + 1]?.toString('utf8')).toBe('req-\u00e9');
    // One controller for the whole request.
    expect(new Set(seen.controllers).size).toBe(1);
  });

  it('a request given up on in onRequestStart ends in onResponseError with the reason, and the server sees nothing', async () => {
    log = [];
    const agent = new Agent();
    const reason = new Error('given up');
    const { handler, seen, ended } = recorder((controller) => controller.abort(reason));
    dispatch(agent, handler);
    await ended;
    await agent.close();
    expect(log).toEqual(['onRequestStart', 'onResponseError']);
    expect(seen.error).toBe(reason);
  });

  it('a refused connection ends in onResponseError alone: no onRequestStart, so nothing was sent', async () => {
    log = [];
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const agent = new Agent();
    const { handler, seen, ended } = recorder();
    agent.dispatch(
      { origin: `http://127.0.0.1:${port}`, path: '/', method: 'POST', body: '{}' },
      handler as Parameters<InstanceType<typeof Agent>['dispatch']>[1],
    );
    await ended;
    await agent.close();
    expect(log).toEqual(['onResponseError']);
    expect((seen.error as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('a header undici will not send ends in onResponseError alone, before any connection', async () => {
    log = [];
    const agent = new Agent();
    const { handler, seen, ended } = recorder();
    dispatch(agent, handler, ['authorization', 'Bearer tok\nen']);
    await ended;
    await agent.close();
    expect(log).toEqual(['onResponseError']);
    expect(seen.error).toBeInstanceOf(Error);
  });
});

describe('the transport', () => {
  it("sends each request to the server and reads the server's request id", async () => {
    log = [];
    const client = new HttpClient({ timeoutMs: 5000, env: {}, userAgent: 'contract' });
    try {
      const first = await client.postJson(new URL(`${origin}/one`), '{}', {});
      await client.postJson(new URL(`${origin}/two`), '{}', {});
      expect(first.status).toBe(201);
      expect(first.requestId).toBe('req-\u00e9');
    } finally {
      await client.close();
    }
    expect(log).toEqual(['server: request', 'server: request']);
  });

  it('patches no undici prototype and sets no V8 flag, on import or on a request', async () => {
    // In a process of its own, so that nothing else (undici's index, this file) has run first.
    const dir = mkdtempSync(join(tmpdir(), 'esign-transport-'));
    const script = join(dir, 'transport-import.mjs');
    await build({
      entryPoints: [join(ROOT, 'test/helpers/transport-import.ts')],
      outfile: script,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      // undici is CommonJS and require()s Node's built-ins.
      banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
    });
    const report = JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' }));
    expect(report).toEqual({
      status: 200,
      connectBefore: 'undefined',
      connectAfterImport: 'undefined',
      connectAfterRequest: 'undefined',
      flagsChangedByImport: false,
      flagsChangedByRequest: false,
    });
  });
});

/** The connector the transport gives its direct agent: the contract holds through it too. */
function readAnswerConnector() {
  return readAnswerAfterWriteError(buildConnector({ timeout: 5000 }));
}
