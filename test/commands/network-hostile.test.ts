// The HTTP layer against hostile peers on loopback: slow and endless answers, proxies that refuse
// the tunnel, malformed proxy variables, loopback addresses that must never be proxied, TLS that
// cannot be verified, and a request undici refuses to send (issue 10).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecret, runCli } from '../helpers/context.js';
import { CREATE_ARGS as CREATE, LIVE_TOKEN as TOKEN } from '../helpers/create-command.js';
import {
  endlessBody,
  type Peer,
  startProxy,
  startRawServer,
  startSelfSignedTls,
  trickle,
} from '../helpers/hostile.js';
import { ok, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

/** A host that is never resolved: every test that uses it goes through the loopback proxy, or stops before. */
const REMOTE = 'https://esign.example.com/api/v1';

async function create(env: Record<string, string>, args: string[] = []) {
  const result = await runCli([...CREATE, ...args], { env: { ESIGN_TOKEN: TOKEN, ...env } });
  assertNoSecret(result, TOKEN);
  return result;
}

async function batchOne(env: Record<string, string>, args: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-net-'));
  const file = join(dir, 'one.jsonl');
  writeFileSync(file, `${JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' } })}\n`);
  const result = await runCli(
    ['envelope', 'batch', file, '--template', '01JD7X4ZQ8G1N6RVS0Y2MBKT3E', ...args],
    { env: { ESIGN_TOKEN: TOKEN, ...env } },
  );
  assertNoSecret(result, TOKEN);
  const lines = result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { ...result, lines };
}

describe('--timeout bounds the whole exchange', () => {
  let slow: Peer;
  let endless: Peer;
  beforeAll(async () => {
    slow = await startRawServer(trickle(100));
    endless = await startRawServer(endlessBody());
  });
  afterAll(async () => {
    await slow.close();
    await endless.close();
  });

  it('headers then one byte at a time: exit 6, outcome unknown', async () => {
    const { code, stderr } = await create({ ESIGN_BASE_URL: `${slow.url}/api/v1` }, ['--timeout', '0.5']);
    expect(code).toBe(6);
    expect(stderr).toContain('did not answer in time after the request was sent');
    expect(stderr).toContain('may have been created');
  });

  it('an endless body: exit 6', async () => {
    const { code, stderr } = await create({ ESIGN_BASE_URL: `${endless.url}/api/v1` }, ['--timeout', '0.5']);
    expect(code).toBe(6);
    expect(stderr).toContain('did not answer in time');
  });

  it('a batch record in that state is outcome_unknown', async () => {
    const { lines } = await batchOne({ ESIGN_BASE_URL: `${slow.url}/api/v1` }, ['--timeout', '0.5']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ line: 1, ok: false, error: { code: 'outcome_unknown' } });
  });
});

describe('proxies', () => {
  let refusing: Awaited<ReturnType<typeof startProxy>>;
  beforeAll(async () => {
    refusing = await startProxy({ kind: '407' });
  });
  afterAll(() => refusing.close());

  it('a 407 to CONNECT sent nothing, says the proxy wants credentials, and names the proxy', async () => {
    refusing.received.length = 0;
    const { code, stderr } = await create({
      ESIGN_BASE_URL: REMOTE,
      HTTPS_PROXY: `http://user:s3cret@127.0.0.1:${refusing.port}`,
    });
    expect(code).toBe(6);
    expect(refusing.received).toEqual(['CONNECT esign.example.com:443']);
    expect(stderr).toContain(
      `the proxy 127.0.0.1:${refusing.port} (from HTTPS_PROXY) wants credentials (407`,
    );
    expect(stderr).toContain('Nothing was sent.');
    expect(stderr).not.toContain('may have been created');
    expect(stderr).not.toContain('s3cret');
  });

  it('a batch behind a refusing proxy fails its records; none is unknown', async () => {
    const { lines, stderr } = await batchOne({
      ESIGN_BASE_URL: REMOTE,
      HTTPS_PROXY: `http://127.0.0.1:${refusing.port}`,
    });
    expect(lines[0]).toMatchObject({ ok: false, error: { code: 'network' } });
    expect(stderr).toMatch(/0 unknown/);
  });

  it('a proxy that cannot be reached is named, not the API host', async () => {
    const { code, stderr } = await create({ ESIGN_BASE_URL: REMOTE, HTTPS_PROXY: 'http://127.0.0.1:9' });
    expect(code).toBe(6);
    expect(stderr).toContain('the connection to the proxy 127.0.0.1:9 (from HTTPS_PROXY) was refused');
    expect(stderr).toContain('Nothing was sent.');
  });

  it('a malformed proxy variable is a usage error naming it, before any request', async () => {
    for (const [name, value] of [
      ['HTTPS_PROXY', '127.0.0.1:9'],
      ['HTTPS_PROXY', 'not a url'],
      ['https_proxy', 'ftp://proxy.example.com'],
    ] as const) {
      const { code, stderr } = await create({ ESIGN_BASE_URL: REMOTE, [name]: value });
      expect(code, value).toBe(2);
      expect(stderr).toContain(`error: ${name}: '${value}' is not a proxy URL`);
    }
  });

  it('every loopback address bypasses the proxy: 127.0.0.2 is reached directly', async () => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const body = (ok() as { body: unknown }).body;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
    const { port } = server.address() as { port: number };
    try {
      refusing.received.length = 0;
      const { code } = await create({
        ESIGN_BASE_URL: `http://127.0.0.2:${port}/api/v1`,
        HTTP_PROXY: `http://127.0.0.1:${refusing.port}`,
        HTTPS_PROXY: `http://127.0.0.1:${refusing.port}`,
      });
      expect(code).toBe(0);
      expect(refusing.received).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a malformed proxy variable does not matter for a loopback base URL, which never uses it', async () => {
    const server: ScriptedServer = await startScriptedServer();
    try {
      server.script(ok());
      const { code } = await create({ ESIGN_BASE_URL: server.baseUrl, HTTPS_PROXY: 'not a url' }, ['-q']);
      expect(code).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('requests that never leave', () => {
  it('a token undici refuses to put in a header: nothing was sent (exit 6, not outcome unknown)', async () => {
    const server = await startScriptedServer();
    try {
      const result = await runCli(CREATE, {
        env: { ESIGN_TOKEN: 'tok\u0007bell_5f1c9a7e3b2d', ESIGN_BASE_URL: server.baseUrl },
      });
      expect(result.code).toBe(6);
      expect(result.stderr).toContain('Nothing was sent.');
      expect(result.stderr).not.toContain('may have been created');
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe('corporate TLS', () => {
  it('a certificate that cannot be verified: the hint names NODE_EXTRA_CA_CERTS', async () => {
    const tls = await startSelfSignedTls();
    try {
      const { code, stderr } = await create({ ESIGN_BASE_URL: `https://localhost:${tls.port}/api/v1` });
      expect(code).toBe(6);
      expect(stderr).toContain('could not be verified');
      expect(stderr).toContain('NODE_EXTRA_CA_CERTS=');
      expect(stderr).toContain('Nothing was sent.');
    } finally {
      await tls.close();
    }
  });

  it('through a forwarding proxy too, and the proxy is not blamed', async () => {
    const tls = await startSelfSignedTls();
    const proxy = await startProxy({ kind: 'forward', forwardTo: tls.port });
    try {
      const { code, stderr } = await create({
        ESIGN_BASE_URL: REMOTE,
        HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`,
      });
      expect(code).toBe(6);
      expect(proxy.received).toEqual(['CONNECT esign.example.com:443']);
      expect(stderr).toContain('the certificate of esign.example.com could not be verified');
      expect(stderr).toContain('NODE_EXTRA_CA_CERTS=');
    } finally {
      await proxy.close();
      await tls.close();
    }
  });
});
