// The envelope API client: builds the request, sends it, and classifies the answer with its own
// context (base URL, where the token came from) through src/api/outcome.ts.
import type { Env } from '../context.js';
import { escapeControl } from '../text/terminal-text.js';
import { HttpClient, type HttpResponse } from '../transport/http-client.js';
import { type CreateOutcome, classifyAnswer, type ResponseContext } from './outcome.js';
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
  now?: () => Date;
  /** Receives `--verbose` trace lines (never the token). */
  trace?: (line: string) => void;
}

export class ApiClient {
  readonly http: HttpClient;
  readonly createUrl: URL;
  readonly #headers: Record<string, string>;
  readonly #trace: ((line: string) => void) | undefined;
  readonly #now: () => Date;
  readonly #context: ResponseContext;

  constructor(readonly options: ApiClientOptions) {
    this.createUrl = new URL(options.baseUrl + CREATE_ENVELOPE_PATH);
    this.http = new HttpClient({ ...options, origin: this.createUrl });
    this.#headers = { authorization: `Bearer ${options.token}` };
    this.#trace = options.trace;
    this.#now = options.now ?? (() => new Date());
    this.#context = { baseUrl: options.baseUrl, tokenSource: options.tokenSource };
  }

  /** One POST, no retries; `body` may come serialized already. Throws NetworkError when no answer came back. */
  async sendCreate(body: CreateEnvelopeRequest | string, signal?: AbortSignal): Promise<HttpResponse> {
    const json = typeof body === 'string' ? body : JSON.stringify(body);
    this.#trace?.(
      `> POST ${this.createUrl.href} (${Buffer.byteLength(json)} bytes, Authorization: Bearer [redacted])`,
    );
    const response = await this.http.postJson(this.createUrl, json, this.#headers, signal);
    this.#trace?.(
      `< ${response.status} in ${response.ms.toFixed(0)} ms (${response.text.length} bytes, request id ${escapeControl(response.requestId)})`,
    );
    return response;
  }

  /**
   * What an answer means (created, rejected, unknown, retry), with this client's base URL and token
   * source in the hints. `now`: milliseconds since the epoch, for Retry-After dates and resets.
   */
  classify(response: HttpResponse, now: number = this.#now().getTime()): CreateOutcome {
    return classifyAnswer(response, now, this.#context);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
