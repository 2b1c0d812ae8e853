// The envelope API client: builds the request, sends it, and classifies the answer with its own
// context (base URL, where the token came from) through src/api/outcome.ts.
import type { Env } from '../context.js';
import { escapeControl } from '../text/terminal-text.js';
import { HttpClient, type HttpResponse } from '../transport/http-client.js';
import { type CreateOutcome, classifyAnswer, classifyFailure, type ResponseContext } from './outcome.js';
import type { CreateEnvelopeRequest } from './schemas.js';

const CREATE_ENVELOPE_PATH = '/native/envelopes/create';

export interface ApiClientOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
  env: Env;
  userAgent: string;
  connections?: number;
  /** Where the token came from (a SettingSource such as 'env ESIGN_TOKEN'), for the 401 hint. */
  tokenSource?: string;
  /** Where the template id came from, for the 403 and 404 hints (src/api/outcome.ts). */
  templateFrom?: string;
  now?: () => Date;
  /** Receives `--verbose` trace lines (never the token). */
  trace?: (line: string) => void;
  /**
   * A token from a token command: after a 401, asked once for the token again (the command run
   * once more). A new token is sent once more; the same one, or none, leaves the 401 as it is.
   */
  refreshToken?: () => Promise<string | undefined>;
}

export class ApiClient {
  readonly http: HttpClient;
  readonly createUrl: URL;
  /** Every token this client has sent (the first, and one a token command gave after a 401): what results are redacted of. */
  readonly tokens = new Set<string>();
  #refreshed: Promise<string | undefined> | undefined;
  readonly #trace: ((line: string) => void) | undefined;
  readonly #now: () => Date;
  readonly #context: ResponseContext;
  /** The token sent, and its Authorization header: one object for every request alike (the transport builds its header list once per object). */
  #auth: { token: string; headers: Record<string, string> };

  constructor(readonly options: ApiClientOptions) {
    this.createUrl = new URL(options.baseUrl + CREATE_ENVELOPE_PATH);
    this.http = new HttpClient({ ...options, origin: this.createUrl });
    this.#auth = this.#use(options.token);
    this.#trace = options.trace;
    this.#now = options.now ?? (() => new Date());
    this.#context = {
      baseUrl: options.baseUrl,
      tokenSource: options.tokenSource,
      ...(options.templateFrom === undefined ? {} : { templateFrom: options.templateFrom }),
    };
  }

  /**
   * One POST, no retries; `body` may come serialized already. Throws NetworkError when no answer
   * came back. A 401 to a token from a token command runs the command once more (once for the
   * client, whatever the requests in flight): a new token is sent once more, as a 401 created nothing.
   */
  async sendCreate(body: CreateEnvelopeRequest | string, signal?: AbortSignal): Promise<HttpResponse> {
    const json = typeof body === 'string' ? body : JSON.stringify(body);
    const sentWith = this.#auth;
    const response = await this.#post(json, sentWith.headers, signal);
    const { refreshToken } = this.options;
    if (response.status !== 401 || !refreshToken) return response;
    this.#refreshed ??= refreshToken();
    const fresh = await this.#refreshed;
    if (fresh === undefined || fresh === sentWith.token) return response;
    this.#auth = this.#use(fresh);
    this.#trace?.('  401: the token command gave another token; sending once more with it');
    return this.#post(json, this.#auth.headers, signal);
  }

  async #post(
    json: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<HttpResponse> {
    this.#trace?.(
      `> POST ${this.createUrl.href} (${Buffer.byteLength(json)} bytes, Authorization: Bearer [redacted])`,
    );
    const response = await this.http.postJson(this.createUrl, json, headers, signal);
    this.#trace?.(
      `< ${response.status} in ${response.ms.toFixed(0)} ms (${response.text.length} bytes, request id ${escapeControl(response.requestId)})`,
    );
    return response;
  }

  /** The token to send from now on, noted among those results are redacted of. */
  #use(token: string): { token: string; headers: Record<string, string> } {
    this.tokens.add(token);
    return { token, headers: { authorization: `Bearer ${token}` } };
  }

  /**
   * What an answer means (created, rejected, unknown, retry), with this client's base URL and token
   * source in the hints. `now`: milliseconds since the epoch, for Retry-After dates and resets.
   */
  classify(response: HttpResponse, now: number = this.#now().getTime()): CreateOutcome {
    return classifyAnswer(response, now, this.#context);
  }

  /** Classifies a request that got no answer (outcome.ts), its hints with the client's context. */
  classifyFailure(error: unknown): CreateOutcome {
    return classifyFailure(error, this.#context);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
