// The HTTP layer: one keep-alive undici agent per command, proxies from the environment (never for
// loopback), one overall deadline per request, and network failures classified by whether the
// request may have reached the server.
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher as DispatcherType } from 'undici';
import connect from 'undici/lib/api/api-connect.js';
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import type { Env } from '../context.js';
import { InterruptedError, NetworkError } from '../errors.js';
import { readAnswerAfterWriteError } from '../net/early-answer.js';
import { isLoopbackUrl } from '../net/loopback.js';
import { type ProxyChoice, type ProxySettings, proxyFor, proxySettings } from '../net/proxy.js';

// undici parses HTTP with a WebAssembly build of llhttp. After a response, V8 keeps optimising that
// module in the background for 140-210 ms and the process cannot exit until it is done. A CLI makes
// a few requests and leaves, so the baseline compiler is all it needs.
setFlagsFromString('--liftoff-only');
// A proxy tunnel (HTTPS_PROXY) is opened with CONNECT through Dispatcher.prototype.connect, which
// undici's index attaches along with request(), stream() and the rest; esign needs only this one.
Object.assign(Dispatcher.prototype, { connect });

export interface HttpOptions {
  /** The overall deadline of one request: connecting, sending, and the whole answer. */
  timeoutMs: number;
  env: Env;
  /**
   * The origin the client will talk to, when known: the proxy variables are then checked only
   * when a request to it would use them (a loopback origin never does).
   */
  origin?: URL;
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

/** The error the deadline aborts a request with. */
const DEADLINE = 'ESIGN_DEADLINE';

export class HttpClient {
  readonly #direct: DispatcherType;
  readonly #proxies: ProxySettings;
  readonly #proxyError: unknown;
  readonly #viaProxy = new Map<string, DispatcherType>();
  readonly #agentOptions: Record<string, unknown>;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  #lastOrigin: string | undefined;
  #lastRoute: { dispatcher: DispatcherType; proxy: ProxyChoice | undefined } | undefined;
  #lastHeaders: Record<string, string> | undefined;
  readonly #aborters = new WeakMap<AbortSignal, Set<() => void>>();
  #lastJsonHeaders: string[] = [];

  constructor(options: HttpOptions) {
    this.#userAgent = options.userAgent;
    this.#timeoutMs = options.timeoutMs;
    // Malformed proxy variables are a usage error now, before any request, unless the client
    // talks to a loopback origin, which never uses them.
    try {
      this.#proxies = proxySettings(options.env);
    } catch (error) {
      if (!options.origin || !isLoopbackUrl(options.origin)) throw error;
      this.#proxyError = error;
      this.#proxies = { http: undefined, https: undefined, noProxy: '' };
    }
    this.#agentOptions = {
      connections: options.connections ?? 1,
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 10_000,
    };
    this.#direct = new Agent({
      ...this.#agentOptions,
      connect: readAnswerAfterWriteError(buildConnector({ timeout: options.timeoutMs })),
    });
  }

  /** The dispatcher for an origin (direct, or through its proxy), decided once per origin. */
  #route(url: URL): { dispatcher: DispatcherType; proxy: ProxyChoice | undefined } {
    if (url.origin === this.#lastOrigin && this.#lastRoute) return this.#lastRoute;
    if (this.#proxyError && !isLoopbackUrl(url)) throw this.#proxyError;
    const proxy = proxyFor(url, this.#proxies);
    let dispatcher = this.#direct;
    if (proxy) {
      dispatcher = this.#viaProxy.get(proxy.uri) ?? new ProxyAgent({ ...this.#agentOptions, uri: proxy.uri });
      this.#viaProxy.set(proxy.uri, dispatcher);
    }
    this.#lastOrigin = url.origin;
    this.#lastRoute = { dispatcher, proxy };
    return this.#lastRoute;
  }

  /**
   * POSTs JSON. Throws NetworkError (with `sent`) when no HTTP answer came back in time.
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
    const { dispatcher, proxy } = this.#route(url);
    return new Promise((resolve, reject) => {
      let status = 0;
      let writing = false;
      let finished = false;
      let rawHeaders: Buffer[] = [];
      const chunks: Buffer[] = [];
      let size = 0;
      let abortRequest: ((reason?: unknown) => void) | undefined;
      const onAbort = () => {
        if (abortRequest) abortRequest(signal?.reason);
        else fail(signal?.reason);
      };
      // One deadline for the whole exchange: undici's own timers are idle timers, which a server
      // sending a byte a second, or an endless body, never trips.
      const deadline = setTimeout(() => {
        const error = Object.assign(new Error(`no complete answer within ${this.#timeoutMs} ms`), {
          code: DEADLINE,
        });
        if (abortRequest) abortRequest(error);
        else fail(error); // still connecting: nothing was written, and nothing will be
      }, this.#timeoutMs);
      const aborters = signal ? this.#abortersOf(signal) : undefined;
      aborters?.add(onAbort);
      const settle = () => {
        finished = true;
        clearTimeout(deadline);
        aborters?.delete(onAbort);
      };
      const fail = (error: unknown) => {
        if (finished) return;
        settle();
        reject(classifyNetworkError(error, url, signal, writing, requestId, proxy));
      };
      const handler: DispatchHandler = {
        onConnect: (abort) => {
          abortRequest = abort;
          // Given up on while connecting: abort before a byte is written.
          if (finished) return abort(new Error('given up before sending'));
          // undici calls this just before it writes the request: from here on, it may have left.
          writing = true;
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
          if (finished) return;
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
        onError: fail,
      };
      if (signal?.aborted) return fail(signal.reason);
      dispatcher.dispatch(
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

  /**
   * The requests to abort when `signal` aborts: one listener per signal, not one per request (a
   * batch sends thousands under one signal, and an EventTarget listener costs more than the rest).
   */
  #abortersOf(signal: AbortSignal): Set<() => void> {
    let aborters = this.#aborters.get(signal);
    if (!aborters) {
      const set = new Set<() => void>();
      aborters = set;
      this.#aborters.set(signal, set);
      signal.addEventListener(
        'abort',
        () => {
          for (const abort of [...set]) abort();
        },
        { once: true },
      );
    }
    return aborters;
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

  async close(): Promise<void> {
    await Promise.all([this.#direct.close(), ...[...this.#viaProxy.values()].map((agent) => agent.close())]);
  }
}

/** The Node.js versions that read NODE_USE_SYSTEM_CA=1 (22.19+, 24.6+, 25+). */
export function nodeReadsSystemCaVariable(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 25 || (major === 24 && minor >= 6) || (major === 22 && minor >= 19);
}

function tlsHint(): string {
  const system = nodeReadsSystemCaVariable()
    ? ', or set NODE_USE_SYSTEM_CA=1 to trust the certificates your system trusts'
    : '';
  return `If your network inspects TLS (a corporate proxy or security software), give Node.js its root certificate: NODE_EXTRA_CA_CERTS=/path/to/corporate-ca.pem${system}. Otherwise, check the base URL.`;
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

/** Certificate verification failures: the ones a TLS-inspecting network causes. */
const UNVERIFIED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
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
 * Maps a failure to a NetworkError that says whether the request may have reached the server.
 * undici announces a request (onConnect) just before it writes it: any failure before that (a
 * refused connection, a proxy refusing the tunnel, a header undici will not send) sent nothing;
 * any failure after it may have followed the request out, whatever its code (a route lost
 * mid-request shows up as EHOSTUNREACH, say).
 */
export function classifyNetworkError(
  error: unknown,
  url: URL,
  signal?: AbortSignal,
  writing = false,
  requestId?: string,
  proxy?: ProxyChoice,
): Error {
  if (signal?.aborted)
    return new InterruptedError(
      writing
        ? 'Interrupted while waiting for the API. If the request had reached the server, the envelope may exist.'
        : 'Interrupted before the request was sent; nothing was sent.',
    );
  const code = errorCode(error) ?? 'unknown';
  const detail = (error as Error)?.message ?? String(error);
  const host = url.host;
  if (!writing) return notSent(error, code, detail, url, proxy);
  const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === DEADLINE;
  const id = requestId ? `request id ${requestId}` : '';
  const via = proxy ? ` through the proxy ${proxy.display}` : '';
  return new NetworkError(
    timedOut
      ? `Network error: ${host} did not answer in time after the request was sent${via}${id ? ` (${id})` : ''}.`
      : `Network error: the connection to ${host} broke after the request was sent${via} (${code}${id ? `, ${id}` : ''}).`,
    true,
    {
      requestId,
      hint: 'The outcome is unknown: the envelope may have been created. Check before you try again, or you may send the signatory two envelopes.',
      cause: error,
      details: [detail],
    },
  );
}

function notSent(
  error: unknown,
  code: string,
  detail: string,
  url: URL,
  proxy: ProxyChoice | undefined,
): NetworkError {
  const host = url.host;
  const tls = code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL');
  const tunnel = /Proxy response \((\d{3})\)/.exec(detail)?.[1];
  let why: string;
  let hint: string;
  if (code === DEADLINE) {
    why = proxy
      ? `connecting to ${host} through the proxy ${proxy.display} timed out`
      : `connecting to ${host} timed out`;
    hint =
      'Check the base URL, your connection and any proxy settings (HTTPS_PROXY, NO_PROXY), or raise --timeout.';
  } else if (proxy && tunnel) {
    why =
      tunnel === '407'
        ? `the proxy ${proxy.display} (from ${proxy.variable}) wants credentials (407 Proxy Authentication Required)`
        : `the proxy ${proxy.display} (from ${proxy.variable}) refused the tunnel to ${host} (${tunnel})`;
    hint =
      tunnel === '407'
        ? `Put the proxy's user name and password in ${proxy.variable} (http://user:password@host:port), or ask your network team.`
        : `Check ${proxy.variable}, or list ${url.hostname} in NO_PROXY if it must be reached directly.`;
  } else if (proxy && !tls && (NOT_SENT.has(code) || code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')) {
    why =
      code === 'ECONNREFUSED'
        ? `the connection to the proxy ${proxy.display} (from ${proxy.variable}) was refused`
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL'
          ? `the proxy host ${proxy.display} (from ${proxy.variable}) could not be found`
          : `the proxy ${proxy.display} (from ${proxy.variable}) could not be reached (${code})`;
    hint = `Check ${proxy.variable}, or list ${url.hostname} in NO_PROXY if it must be reached directly.`;
  } else if (tls) {
    why = UNVERIFIED.has(code)
      ? `the certificate of ${host} could not be verified (${code})`
      : `the TLS connection to ${host} failed (${code})`;
    hint = UNVERIFIED.has(code)
      ? tlsHint()
      : 'Check the base URL (https:// for a TLS server), your connection and any proxy settings (HTTPS_PROXY, NO_PROXY).';
  } else if (NOT_SENT.has(code)) {
    why =
      code === 'ECONNREFUSED'
        ? `the connection to ${host} was refused`
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL'
          ? `the host ${url.hostname} could not be found`
          : code === 'UND_ERR_CONNECT_TIMEOUT'
            ? `connecting to ${host} timed out`
            : `${host} could not be reached (${code})`;
    hint =
      code === 'ECONNREFUSED'
        ? 'Is the base URL right, and is the server (or `esign sandbox`) running?'
        : 'Check the base URL, your connection and any proxy settings (HTTPS_PROXY, NO_PROXY).';
  } else {
    why = `the request to ${host} could not be sent (${code})`;
    hint = proxy
      ? `Check the proxy ${proxy.display} (from ${proxy.variable}) and the token (it must be printable ASCII).`
      : 'Check the token (it must be printable ASCII) and the base URL; run with --verbose for details.';
  }
  return new NetworkError(`Network error: ${why}. Nothing was sent.`, false, {
    hint,
    cause: error,
    details: [detail],
  });
}
