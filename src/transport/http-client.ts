// The HTTP layer: one keep-alive undici agent per command, proxies from the environment (never for
// loopback), one overall deadline per request, and network failures classified by whether the
// request may have reached the server.
import type { Env } from '../context.js';
import { readAnswerAfterWriteError } from './early-answer.js';
import { isLoopbackUrl, lookupHost } from './loopback.js';
import { classifyNetworkError, DEADLINE } from './network-error.js';
import { type ProxyChoice, type ProxySettings, proxyFor, proxySettings } from './proxy.js';
import { newRequestId } from './request-id.js';
import { headerObject, serverRequestId } from './response-headers.js';
import { Agent, buildConnector, type Dispatcher, loadProxyAgent } from './undici.js';

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
  /** Set when the body was longer than esign reads (the limit, in bytes): `text` is its start. */
  cutAt?: number;
}

/** The most of a response's body esign reads (an envelope is well under 1 KiB). */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The most a response's status line and headers may take: Node's own default, 16 KiB. */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Milliseconds on a monotonic clock, for an exchange's duration: process.hrtime, which needs nothing
 * loaded (performance.now() loads Node's perf_hooks on first use).
 */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Where a request goes: straight to its origin, or through a proxy. */
interface Route {
  /** The URL this route was decided for, and its origin and path, read from it once. */
  url: URL;
  origin: string;
  path: string;
  /** Undefined until the proxy's agent is loaded (on the first request through it). */
  dispatcher: Dispatcher | undefined;
  proxy: ProxyChoice | undefined;
}

/** What one request needs besides undici: where it goes and what it sends. */
interface Exchange {
  /** Where it goes: the URL, its origin and path, and the proxy, if any. */
  route: Route;
  body: string;
  headers: string[];
  requestId: string;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  started: number;
}

export class HttpClient {
  readonly #direct: Dispatcher;
  readonly #proxies: ProxySettings;
  readonly #proxyError: unknown;
  readonly #viaProxy = new Map<string, Dispatcher>();
  readonly #agentOptions: Record<string, unknown>;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  #lastRoute: Route | undefined;
  #lastHeaders: Record<string, string> | undefined;
  readonly #inFlight = new WeakMap<AbortSignal, InFlight>();
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
      maxHeaderSize: MAX_HEADER_BYTES,
    };
    this.#direct = new Agent({
      ...this.#agentOptions,
      connect: readAnswerAfterWriteError(buildConnector({ timeout: options.timeoutMs, lookup: lookupHost })),
    });
  }

  /** The route to a URL (direct, or through its proxy), decided once for the URL a batch sends every request to. */
  #route(url: URL): Route {
    if (this.#lastRoute?.url === url) return this.#lastRoute;
    if (this.#proxyError && !isLoopbackUrl(url)) throw this.#proxyError;
    const proxy = proxyFor(url, this.#proxies);
    const dispatcher = proxy ? this.#viaProxy.get(proxy.uri) : this.#direct;
    this.#lastRoute = { url, origin: url.origin, path: url.pathname + url.search, dispatcher, proxy };
    return this.#lastRoute;
  }

  /** The agent for a proxy, created on the first request through it (which loads undici's proxy code). */
  async #openProxy(route: Route & { proxy: ProxyChoice }): Promise<Dispatcher> {
    const ProxyAgent = await loadProxyAgent();
    let dispatcher = this.#viaProxy.get(route.proxy.uri);
    if (!dispatcher) {
      dispatcher = new ProxyAgent({ ...this.#agentOptions, uri: route.proxy.uri });
      this.#viaProxy.set(route.proxy.uri, dispatcher);
    }
    route.dispatcher = dispatcher;
    return dispatcher;
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
    const started = monotonicMs();
    const route = this.#route(url);
    const exchange: Exchange = {
      route,
      body,
      headers: this.#jsonHeaders(headers),
      requestId: newRequestId(),
      signal,
      timeoutMs: this.#timeoutMs,
      started,
    };
    if (route.dispatcher) return this.#send(route.dispatcher, exchange);
    const proxied = route as Route & { proxy: ProxyChoice };
    return this.#openProxy(proxied).then((dispatcher) => this.#send(dispatcher, exchange));
  }

  #send(dispatcher: Dispatcher, exchange: Exchange): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const handler = new ResponseCollector(exchange, resolve, reject);
      const { signal } = exchange;
      if (signal?.aborted) return handler.fail(signal.reason);
      if (signal) handler.watch(this.#inFlightUnder(signal));
      dispatcher.dispatch(
        {
          origin: exchange.route.origin,
          path: exchange.route.path,
          method: 'POST',
          headers: [...exchange.headers, 'x-request-id', exchange.requestId],
          body: exchange.body,
        },
        handler,
      );
    });
  }

  /**
   * The requests to abort when `signal` aborts: one listener per signal, not one per request (a
   * batch sends thousands under one signal, and an EventTarget listener costs more than the rest).
   * The list holds the requests themselves, not an abort closure per request: with a closure pair
   * per request (one to abort, one to forget it), each request's objects lived on into the old
   * generation, where only full garbage collections free them.
   */
  #inFlightUnder(signal: AbortSignal): InFlight {
    let inFlight = this.#inFlight.get(signal);
    if (!inFlight) {
      const requests = new InFlight();
      inFlight = requests;
      this.#inFlight.set(signal, requests);
      signal.addEventListener('abort', () => requests.abortAll(signal.reason), { once: true });
    }
    return inFlight;
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

/**
 * The requests in flight under one abort signal: a list in which each request knows its slot, and
 * a settled one's slot is taken by the last (no search, no hole). Not a Set: a Set's table that
 * fills with deleted entries is replaced by a new one, and the old table keeps a link to the new one
 * and to the requests that were in it. Once an old table had lived long enough to be promoted to
 * V8's old generation, each young generation collection kept the next table, its requests and all
 * they hold alive, and promoted them in turn: in a 100k-record batch that was about 250 MB promoted
 * (against 48 MB without it), and a young generation V8 grew to its largest.
 */
class InFlight {
  readonly #requests: ResponseCollector[] = [];

  add(request: ResponseCollector): void {
    request.slot = this.#requests.push(request) - 1;
  }

  delete(request: ResponseCollector): void {
    const last = this.#requests.pop() as ResponseCollector;
    if (last !== request) {
      this.#requests[request.slot] = last;
      last.slot = request.slot;
    }
    request.slot = -1;
  }

  abortAll(reason: unknown): void {
    for (const request of [...this.#requests]) request.abort(reason);
  }
}

/**
 * One request's answer, gathered through undici's handler interface (onRequestStart …
 * onResponseEnd / onResponseError), under one deadline for the whole exchange.
 */
class ResponseCollector implements Dispatcher.DispatchHandler {
  readonly #exchange: Exchange;
  readonly #resolve: (response: HttpResponse) => void;
  readonly #reject: (error: unknown) => void;
  readonly #deadline: NodeJS.Timeout;
  #controller: Dispatcher.DispatchController | undefined;
  /** Set once undici is about to write the request: from then on, it may have reached the server. */
  #writing = false;
  #finished = false;
  #status = 0;
  #headers: Record<string, string> = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;
  /** The requests under the same abort signal, this one among them until it is settled. */
  #inFlight: InFlight | undefined;
  /** This request's place in #inFlight's list. */
  slot = -1;

  constructor(
    exchange: Exchange,
    resolve: (response: HttpResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#exchange = exchange;
    this.#resolve = resolve;
    this.#reject = reject;
    // One deadline for the whole exchange: undici's own timers are idle timers, which a server
    // sending a byte a second, or an endless body, never trips.
    this.#deadline = setTimeout(() => {
      const error = Object.assign(new Error(`no complete answer within ${exchange.timeoutMs} ms`), {
        code: DEADLINE,
      });
      this.abort(error);
    }, exchange.timeoutMs);
  }

  /** Aborted with the others when their signal aborts, until settled. */
  watch(inFlight: InFlight): void {
    this.#inFlight = inFlight;
    inFlight.add(this);
  }

  /** Gives up on the request: aborted through undici once it holds it, else failed at once. */
  abort(reason: unknown): void {
    // Still connecting: nothing was written, and nothing will be.
    if (this.#controller) this.#controller.abort(reason as Error);
    else this.fail(reason);
  }

  fail(error: unknown): void {
    if (this.#settle()) return;
    const { route, signal, requestId } = this.#exchange;
    const { url, proxy } = route;
    this.#reject(classifyNetworkError(error, url, { signal, writing: this.#writing, requestId, proxy }));
  }

  /** Marks the request settled; true when it already was. */
  #settle(): boolean {
    if (this.#finished) return true;
    this.#finished = true;
    clearTimeout(this.#deadline);
    this.#inFlight?.delete(this);
    this.#inFlight = undefined;
    return false;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Given up on while connecting: abort before a byte is written.
    if (this.#finished) {
      controller.abort(new Error('given up before sending'));
      return;
    }
    // undici calls this just before it writes the request: from here on, it may have left.
    this.#writing = true;
    const { signal } = this.#exchange;
    if (signal?.aborted) controller.abort(signal.reason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number): void {
    if (statusCode < 200) return; // an informational answer; the real one follows
    this.#status = statusCode;
    // The raw name/value buffers, decoded here only for the wanted names and as UTF-8 (undici's
    // parsed object decodes every header, as Latin-1). The contract test checks undici gives them.
    const raw = controller.rawHeaders;
    this.#headers = Array.isArray(raw) ? headerObject(raw as Buffer[]) : {};
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size <= MAX_RESPONSE_BYTES) this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settle()) return;
    const chunks = this.#chunks;
    const response: HttpResponse = {
      status: this.#status,
      headers: this.#headers,
      text: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'),
      ms: monotonicMs() - this.#exchange.started,
      requestId: serverRequestId(this.#headers) ?? this.#exchange.requestId,
    };
    if (this.#size > MAX_RESPONSE_BYTES) response.cutAt = MAX_RESPONSE_BYTES;
    this.#resolve(response);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.fail(error);
  }
}
