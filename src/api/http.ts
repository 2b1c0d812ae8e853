// The HTTP layer: one keep-alive undici agent per command, proxies from the environment, timeouts,
// and network failures classified by whether the request may have reached the server.
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher as DispatcherType } from 'undici';
import connect from 'undici/lib/api/api-connect.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import type { Env } from '../context.js';
import { InterruptedError, NetworkError } from '../errors.js';

// undici parses HTTP with a WebAssembly build of llhttp. After a response, V8 keeps optimising that
// module in the background for 140-210 ms and the process cannot exit until it is done. A CLI makes
// a few requests and leaves, so the baseline compiler is all it needs.
setFlagsFromString('--liftoff-only');
// A proxy tunnel (HTTPS_PROXY) is opened with CONNECT through Dispatcher.prototype.connect, which
// undici's index attaches along with request(), stream() and the rest; esign needs only this one.
Object.assign(Dispatcher.prototype, { connect });

export interface HttpOptions {
  timeoutMs: number;
  env: Env;
  /** Keep-alive connections per origin. */
  connections?: number;
  userAgent: string;
}

export interface HttpResponse {
  status: number;
  /**
   * The response headers esign reads, by lower-case name (see RESPONSE_HEADERS); repeated headers
   * are joined with ", ". Server text: escape before printing.
   */
  headers: Record<string, string | undefined>;
  text: string;
  ms: number;
  /** The server's request id (the first of REQUEST_ID_HEADERS present), else the X-Request-Id esign sent. */
  requestId: string;
}

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** undici's own callback interface for a dispatched request. */
interface DispatchHandler {
  onConnect(abort: (reason?: unknown) => void): void;
  onHeaders(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: Buffer[] | null): void;
  onError(error: Error): void;
}

/** Where services put their id for a request, in the order esign prefers them. */
export const REQUEST_ID_HEADERS = [
  'x-request-id',
  'request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-correlation-id',
  'correlation-id',
  'x-ms-request-id',
  'x-github-request-id',
  'x-trace-id',
  'cf-ray',
] as const;

/** The rate-limit headers (see rate-limit-headers.ts). */
export const RATE_LIMIT_HEADERS = [
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
] as const;

/** The response headers esign reads; decoding the rest would cost for nothing. */
export const RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  ...RATE_LIMIT_HEADERS,
  ...REQUEST_ID_HEADERS,
]);
// A header whose name has none of these lengths is skipped without decoding its name.
const WANTED_LENGTHS = new Uint8Array(64);
for (const name of RESPONSE_HEADERS) WANTED_LENGTHS[name.length] = 1;

/** A server's request id longer than this is cut (it is shown in messages). */
const MAX_REQUEST_ID = 200;

export function headerObject(raw: Buffer[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const nameBuffer = raw[i] as Buffer;
    if (nameBuffer.length >= 64 || WANTED_LENGTHS[nameBuffer.length] === 0) continue;
    const name = nameBuffer.toString('latin1').toLowerCase();
    if (!RESPONSE_HEADERS.has(name)) continue;
    const value = (raw[i + 1] as Buffer).toString('utf8').trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** The server's request id among decoded headers, if it gave one. */
export function serverRequestId(headers: Record<string, string | undefined>): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    if (value) return value.length > MAX_REQUEST_ID ? value.slice(0, MAX_REQUEST_ID) : value;
  }
  return undefined;
}

const LOOPBACK = 'localhost,127.0.0.1,[::1]';

export class HttpClient {
  readonly #agent: DispatcherType;
  readonly #userAgent: string;
  #lastHeaders: Record<string, string> | undefined;
  #lastJsonHeaders: string[] = [];

  constructor(options: HttpOptions) {
    const { env } = options;
    const noProxy = [env.NO_PROXY ?? env.no_proxy ?? '', LOOPBACK].filter(Boolean).join(',');
    this.#userAgent = options.userAgent;
    this.#agent = new EnvHttpProxyAgent({
      httpProxy: env.HTTP_PROXY || env.http_proxy || '',
      httpsProxy: env.HTTPS_PROXY || env.https_proxy || '',
      noProxy,
      connections: options.connections ?? 1,
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 10_000,
    });
  }

  /**
   * POSTs JSON. Throws NetworkError (with `sent`) when no HTTP answer came back.
   *
   * This talks to undici's dispatcher with a handler of callbacks instead of its request() API: no
   * stream object per response, which halves the client's CPU per request in a batch.
   */
  postJson(
    url: URL,
    body: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<HttpResponse> {
    const started = performance.now();
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      let status = 0;
      let writing = false;
      let rawHeaders: Buffer[] = [];
      const chunks: Buffer[] = [];
      let size = 0;
      let abortRequest: ((reason?: unknown) => void) | undefined;
      const onAbort = () => abortRequest?.(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const handler: DispatchHandler = {
        onConnect: (abort) => {
          // undici calls this just before it writes the request: from here on, it may have left.
          writing = true;
          abortRequest = abort;
          if (signal?.aborted) abort(signal.reason);
        },
        onHeaders: (statusCode, headerList) => {
          if (statusCode >= 200) {
            status = statusCode;
            rawHeaders = headerList;
          }
          return true;
        },
        onData: (chunk) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          return true;
        },
        onComplete: () => {
          settle();
          const responseHeaders = headerObject(rawHeaders);
          resolve({
            status,
            headers: responseHeaders,
            text: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'),
            ms: performance.now() - started,
            requestId: serverRequestId(responseHeaders) ?? requestId,
          });
        },
        onError: (error) => {
          settle();
          reject(classifyNetworkError(error, url, signal, writing, requestId));
        },
      };
      this.#agent.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'POST',
          headers: [...this.#jsonHeaders(headers), 'x-request-id', requestId],
          body,
        },
        handler as unknown as DispatcherType.DispatchHandler,
      );
    });
  }

  /** The request headers, built once per set of caller headers (a batch sends thousands alike). */
  #jsonHeaders(headers: Record<string, string>): string[] {
    if (headers !== this.#lastHeaders) {
      this.#lastHeaders = headers;
      this.#lastJsonHeaders = Object.entries({
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': this.#userAgent,
      }).flat();
    }
    return this.#lastJsonHeaders;
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

// Errors raised before a byte of the request could reach the server.
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (error as { code?: string })?.code;
}

/**
 * Maps a failure to a NetworkError that says whether the request may have reached the server. An
 * error raised once the request was being written (`writing`) may have followed it out, whatever
 * its code: a route lost mid-request shows up as EHOSTUNREACH, say.
 */
export function classifyNetworkError(
  error: unknown,
  url: URL,
  signal?: AbortSignal,
  writing = false,
  requestId?: string,
): Error {
  if (signal?.aborted)
    return new InterruptedError(
      'Interrupted while waiting for the API. If the request had reached the server, the envelope may exist.',
    );
  const code = errorCode(error) ?? 'unknown';
  const detail = (error as Error)?.message ?? String(error);
  const host = url.host;
  if (!writing && (NOT_SENT.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL'))) {
    const why =
      code === 'ECONNREFUSED'
        ? `the connection to ${host} was refused`
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL'
          ? `the host ${url.hostname} could not be found`
          : code === 'UND_ERR_CONNECT_TIMEOUT'
            ? `connecting to ${host} timed out`
            : code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')
              ? `the TLS connection to ${host} failed (${code})`
              : `${host} could not be reached (${code})`;
    return new NetworkError(`Network error: ${why}. Nothing was sent.`, false, {
      hint:
        code === 'ECONNREFUSED'
          ? 'Is the base URL right, and is the server (or `esign sandbox`) running?'
          : 'Check the base URL, your connection and any proxy settings (HTTPS_PROXY, NO_PROXY).',
      cause: error,
      details: [detail],
    });
  }
  const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
  const id = requestId ? `request id ${requestId}` : '';
  return new NetworkError(
    timedOut
      ? `Network error: ${host} did not answer in time after the request was sent${id ? ` (${id})` : ''}.`
      : `Network error: the connection to ${host} broke after the request was sent (${code}${id ? `, ${id}` : ''}).`,
    true,
    {
      requestId,
      hint: 'The outcome is unknown: the envelope may have been created. Check before you try again, or you may send the signatory two envelopes.',
      cause: error,
      details: [detail],
    },
  );
}
