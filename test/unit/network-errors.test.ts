import { describe, expect, it } from 'vitest';
import { InterruptedError, NetworkError } from '../../src/errors.js';
import { classifyNetworkError } from '../../src/transport/network-error.js';
import { waitFor } from '../helpers/wait-for.js';

const url = new URL('https://esign.example.com/api/v1/native/envelopes/create');
const failure = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('classifyNetworkError: may the request have reached the server?', () => {
  it('errors before the request was written say nothing was sent', () => {
    for (const code of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EHOSTUNREACH',
      'UND_ERR_CONNECT_TIMEOUT',
      'ERR_SSL_WRONG_VERSION_NUMBER',
    ]) {
      const error = classifyNetworkError(failure(code), url) as NetworkError;
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.sent).toBe(false);
      expect(error.code).toBe('network');
      expect(error.message).toContain('Nothing was sent');
    }
  });

  it('any error once the request was being written leaves the outcome unknown, whatever its code', () => {
    for (const code of [
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ECONNRESET',
      'ERR_SSL_DECRYPTION_FAILED',
      'UND_ERR_SOCKET',
    ]) {
      const error = classifyNetworkError(failure(code), url, { writing: true }) as NetworkError;
      expect(error.sent).toBe(true);
      expect(error.code).toBe('outcome_unknown');
      expect(error.hint).toContain('may have been created');
    }
  });

  it('a timeout waiting for the answer is unknown; an interrupt is an interrupt', () => {
    const timeout = classifyNetworkError(failure('UND_ERR_HEADERS_TIMEOUT'), url, {
      writing: true,
    }) as NetworkError;
    expect(timeout.message).toContain('did not answer in time');
    const controller = new AbortController();
    controller.abort();
    expect(
      classifyNetworkError(failure('UND_ERR_ABORTED'), url, { signal: controller.signal }),
    ).toBeInstanceOf(InterruptedError);
  });
});

describe('HttpClient: one abort signal for many requests', () => {
  it('aborting the signal ends every request in flight at once, and a request that finished is left alone', async () => {
    const { createServer } = await import('node:http');
    const { HttpClient } = await import('../../src/transport/http-client.js');
    // Answers /quick at once; /slow never (counting those it has received).
    let slowReceived = 0;
    const server = createServer((req, res) => {
      req.resume();
      if (req.url === '/quick') res.end('{}');
      else slowReceived++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = new HttpClient({ timeoutMs: 30_000, env: {}, userAgent: 'test', connections: 4 });
    const controller = new AbortController();
    try {
      const base = `http://127.0.0.1:${port}`;
      const quick = await client.postJson(new URL(`${base}/quick`), '{}', {}, controller.signal);
      expect(quick.status).toBe(200);
      const slow = [1, 2, 3].map((i) =>
        client.postJson(new URL(`${base}/slow?${i}`), '{}', {}, controller.signal).then(
          () => 'answered',
          (error: unknown) => error,
        ),
      );
      await waitFor(() => slowReceived === 3, 'the three slow requests at the server');
      const started = Date.now();
      controller.abort();
      const outcomes = await Promise.all(slow);
      expect(Date.now() - started).toBeLessThan(2000);
      for (const outcome of outcomes) expect(outcome).toBeInstanceOf(InterruptedError);
    } finally {
      server.closeAllConnections();
      server.close();
      await client.close().catch(() => undefined);
    }
  });
});
