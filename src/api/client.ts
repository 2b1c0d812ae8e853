// The envelope API client: builds the request, maps every answer to an envelope or a typed error.
import type { Env } from '../context.js';
import {
  ApiRejectedError,
  BadResponseError,
  type CliError,
  ForbiddenError,
  InterruptedError,
  NotAuthenticatedError,
  RateLimitedError,
  ServerError,
} from '../errors.js';
import { HttpClient, type HttpResponse } from './http.js';
import { parseRetryAfter, retryDelay, sleep } from './retry.js';
import {
  ApiErrorBody,
  type CreateEnvelopeRequest,
  CreateEnvelopeResponse,
  describeIssues,
  type Envelope,
} from './schemas.js';

export const CREATE_ENVELOPE_PATH = '/native/envelopes/create';

export interface ApiClientOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
  env: Env;
  userAgent: string;
  connections?: number;
  now?: () => Date;
  /** Receives `--verbose` trace lines (never the token). */
  trace?: (line: string) => void;
}

export interface CreateOptions {
  signal?: AbortSignal;
  /** How many times a 429 or 503 answer is retried. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for; the error says when to try again. */
  maxWaitMs?: number;
  onRetry?: (info: { attempt: number; status: number; waitMs: number }) => void;
}

export class ApiClient {
  readonly http: HttpClient;
  readonly createUrl: URL;
  readonly #headers: Record<string, string>;
  readonly #trace: ((line: string) => void) | undefined;
  readonly #now: () => Date;

  constructor(readonly options: ApiClientOptions) {
    this.http = new HttpClient(options);
    this.createUrl = new URL(options.baseUrl + CREATE_ENVELOPE_PATH);
    this.#headers = { authorization: `Bearer ${options.token}` };
    this.#trace = options.trace;
    this.#now = options.now ?? (() => new Date());
  }

  /** One POST, no retries; `body` may come serialized already. Throws NetworkError when no answer came back. */
  async sendCreate(body: CreateEnvelopeRequest | string, signal?: AbortSignal): Promise<HttpResponse> {
    const json = typeof body === 'string' ? body : JSON.stringify(body);
    this.#trace?.(
      `> POST ${this.createUrl.href} (${Buffer.byteLength(json)} bytes, Authorization: Bearer [redacted])`,
    );
    const response = await this.http.postJson(this.createUrl, json, this.#headers, signal);
    this.#trace?.(`< ${response.status} in ${response.ms.toFixed(0)} ms (${response.text.length} bytes)`);
    return response;
  }

  /** Creates an envelope; 429 and 503 with Retry-After are retried, nothing else is. */
  async createEnvelope(body: CreateEnvelopeRequest, options: CreateOptions = {}): Promise<Envelope> {
    const maxRetries = options.maxRetries ?? 3;
    const maxWaitMs = options.maxWaitMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      const response = await this.sendCreate(body, options.signal);
      const outcome = interpretCreateResponse(response, this.#now());
      if (outcome.ok) return outcome.envelope;
      const { error, retryable, retryAfterMs } = outcome;
      // Only when the server says when: a create is not idempotent, and a 503 without Retry-After
      // may come from something in front of a server that did act. (A batch retries these with
      // backoff too; it can tell unknown outcomes apart and report them.)
      if (!retryable || retryAfterMs === undefined || attempt >= maxRetries) throw error;
      const waitMs = retryDelay(attempt, retryAfterMs);
      if (waitMs > maxWaitMs) throw error;
      options.onRetry?.({ attempt: attempt + 1, status: response.status, waitMs });
      this.#trace?.(
        `  retrying in ${(waitMs / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${maxRetries + 1})`,
      );
      try {
        await sleep(waitMs, options.signal);
      } catch {
        throw new InterruptedError('Interrupted while waiting to retry; no envelope was created.');
      }
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

export type CreateOutcome =
  | { ok: true; envelope: Envelope }
  | { ok: false; error: CliError; retryable: boolean; retryAfterMs: number | undefined };

function parseErrorBody(text: string): ApiErrorBody | undefined {
  try {
    const parsed = ApiErrorBody.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function fieldErrors(body: ApiErrorBody | undefined): string[] {
  return Object.entries(body?.errors ?? {}).flatMap(([field, messages]) =>
    messages.map((m) => `${field}: ${m}`),
  );
}

function looksLikeHtml(response: HttpResponse): boolean {
  const type = String(response.headers['content-type'] ?? '');
  return type.includes('html') || /^\s*</.test(response.text);
}

/** Maps one answer to the create endpoint to an envelope or the contract's error. */
export function interpretCreateResponse(response: HttpResponse, now: Date): CreateOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) {
    let data: unknown;
    try {
      data = JSON.parse(response.text);
    } catch {
      return fail(
        new BadResponseError(
          `The API answered ${status} with ${looksLikeHtml(response) ? 'an HTML page' : 'a body that is not JSON'}, not an envelope.`,
          { status, hint: 'Is the base URL right? It must include /api/v1.' },
        ),
      );
    }
    const parsed = CreateEnvelopeResponse.safeParse(data);
    if (!parsed.success) {
      return fail(
        new BadResponseError(`The API answered ${status}, but the body does not match the API spec.`, {
          status,
          details: describeIssues(parsed.error.issues),
          hint: 'The envelope may have been created. Check the base URL, and report this if it persists.',
        }),
      );
    }
    return { ok: true, envelope: parsed.data.data };
  }

  const body = parseErrorBody(response.text);
  const apiMessage = body?.message;
  const said = apiMessage ? `: ${apiMessage}` : '';
  const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now);
  if (status === 401) {
    return fail(
      new NotAuthenticatedError(`The API refused the token (401${said}).`, {
        status,
        hint: 'The token is invalid or was revoked. Create a new one in the dashboard (Settings → API Tokens → Create New Token), then run `esign login`.',
      }),
    );
  }
  if (status === 403) {
    return fail(
      new ForbiddenError(`Forbidden (403${said}).`, {
        status,
        hint: "The template belongs to another organisation than your token's. Check --template, or log in with that organisation's token.",
      }),
    );
  }
  if (status === 429) {
    const when = retryAfterMs === undefined ? '' : ` Try again in ${Math.ceil(retryAfterMs / 1000)} s.`;
    return {
      ok: false,
      retryable: true,
      retryAfterMs,
      error: new RateLimitedError(`Rate limited by the API (429${said}).`, {
        status,
        hint: `Slow down, or retry later.${when}`,
      }),
    };
  }
  if (status >= 400 && status < 500) {
    const what =
      status === 404 ? 'Not found' : status === 422 ? 'The API rejected the request' : 'Request rejected';
    return fail(
      new ApiRejectedError(`${what} (${status}${said}).`, {
        status,
        details: fieldErrors(body),
        hint:
          status === 404 ? 'Check --template: no template with that id is visible to your token.' : undefined,
      }),
    );
  }
  const error = new ServerError(
    status >= 500
      ? `The API failed (${status}${said}).`
      : `The API answered with an unexpected status ${status}${looksLikeHtml(response) ? ' and an HTML page' : ''}.`,
    {
      status,
      hint:
        status === 503
          ? 'The service is unavailable; try again shortly.'
          : status >= 500
            ? 'The envelope may have been created before the failure: check before you try again, or the signatory may get two.'
            : 'Try again later.',
    },
  );
  return { ok: false, error, retryable: status === 503, retryAfterMs };
}

function fail(error: CliError): CreateOutcome {
  return { ok: false, error, retryable: false, retryAfterMs: undefined };
}
