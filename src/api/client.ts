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
import { escapeControl } from '../io/terminal-text.js';
import { HttpClient, type HttpResponse } from '../transport/http-client.js';
import { parseRateLimit, type RateLimitInfo, waitFromRateLimit } from './rate-limit-headers.js';
import { retryDelay, sleep } from './retry.js';
import {
  ApiErrorBody,
  type CreateEnvelopeRequest,
  CreateEnvelopeResponse,
  describeIssues,
  type Envelope,
  hotParser,
} from './schemas.js';

export const CREATE_ENVELOPE_PATH = '/native/envelopes/create';

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

  /** Creates an envelope; 429 and 503 with Retry-After are retried, nothing else is. */
  async createEnvelope(body: CreateEnvelopeRequest, options: CreateOptions = {}): Promise<Envelope> {
    const maxRetries = options.maxRetries ?? 3;
    const maxWaitMs = options.maxWaitMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      const response = await this.sendCreate(body, options.signal);
      const outcome = this.interpret(response);
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

  /** interpretCreateResponse with this client's base URL and token source (for the hints). */
  interpret(response: HttpResponse, now: Date = this.#now()): CreateOutcome {
    return interpretCreateResponse(response, now, this.#context);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

export type CreateOutcome =
  | { ok: true; envelope: Envelope }
  | { ok: false; error: CliError; retryable: boolean; retryAfterMs: number | undefined };

/** What the messages say beyond the answer itself: which base URL was used, where the token came from. */
export interface ResponseContext {
  baseUrl?: string;
  /** A SettingSource: 'env ESIGN_TOKEN', 'profile <name>', … */
  tokenSource?: string;
}

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
    messages.map((m) => `${escapeControl(field)}: ${escapeControl(m)}`),
  );
}

function looksLikeHtml(response: HttpResponse): boolean {
  const type = String(response.headers['content-type'] ?? '');
  return type.includes('html') || /^\s*</.test(response.text);
}

/** The longest API message shown; past it the text is cut with an ellipsis. */
const MAX_API_MESSAGE = 500;

/**
 * `<what> (<status>, request id <id>).` then, when the API gave a message, ` The API said: "<message>"`
 * (escaped, never re-punctuated).
 */
export function apiErrorMessage(
  what: string,
  status: number,
  requestId: string | undefined,
  apiMessage?: string,
): string {
  const id = requestId ? `, request id ${escapeControl(requestId)}` : '';
  const head = `${what} (${status}${id}).`;
  const said = apiMessage?.trim();
  if (!said) return head;
  const cut = said.length > MAX_API_MESSAGE ? `${said.slice(0, MAX_API_MESSAGE)}…` : said;
  return `${head} The API said: "${escapeControl(cut)}"`;
}

/** A base URL the API's own 404 message names (the sandbox says which prefix it expects). */
function namedBaseUrl(message: string | undefined): string | undefined {
  const match = message?.match(/https?:\/\/[^\s"'<>]+?\/api\/v\d+/);
  return match ? escapeControl(match[0]) : undefined;
}

function notFoundHint(apiMessage: string | undefined, context: ResponseContext): string {
  if (apiMessage && /template/i.test(apiMessage)) {
    return 'Check --template: no template with that id is visible to your token.';
  }
  const base = context.baseUrl ? `The base URL is ${context.baseUrl}; ` : 'Check the base URL: ';
  const named = namedBaseUrl(apiMessage);
  return `${base}it must include the API prefix /api/v1${named ? ` (the API names ${named})` : ''}. Fix it with --base-url, ESIGN_BASE_URL or \`esign config set base_url <url>\`.`;
}

function unauthenticatedHint(context: ResponseContext): string {
  if (context.tokenSource === 'env ESIGN_TOKEN') {
    return 'The token comes from ESIGN_TOKEN, so `esign login` would change nothing: set ESIGN_TOKEN to a valid token (in CI, update the secret), or unset it to use the stored one.';
  }
  return 'The token is invalid or was revoked. Create a new one in the dashboard (Settings → API Tokens → Create New Token), then run `esign login`.';
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.ceil(ms / 1000))} s`;
}

/** What a 429's headers say about when to try again, for the hint. */
function rateLimitHint(info: RateLimitInfo, now: Date): string {
  const parts: string[] = [];
  if (info.retryAfterMs !== undefined) parts.push(`Try again in ${seconds(info.retryAfterMs)}.`);
  else if (info.resetAt !== undefined) {
    const wait = info.resetAt - now.getTime();
    parts.push(wait > 0 ? `The quota resets in ${seconds(wait)}.` : 'The quota has reset; try again.');
  }
  if (info.limit !== undefined) {
    const per = info.windowMs === undefined ? '' : ` per ${seconds(info.windowMs)}`;
    parts.push(`The limit is ${info.limit} requests${per}.`);
  }
  return ['Slow down, or retry later.', ...parts].join(' ');
}

const parseCreateResponse = hotParser(CreateEnvelopeResponse);

/** Maps one answer to the create endpoint to an envelope or the contract's error. */
export function interpretCreateResponse(
  response: HttpResponse,
  now: Date,
  context: ResponseContext = {},
): CreateOutcome {
  const { status, requestId } = response;
  if (status >= 200 && status < 300) {
    let data: unknown;
    try {
      data = JSON.parse(response.text);
    } catch {
      return fail(
        new BadResponseError(
          apiErrorMessage(
            `The API answered with ${looksLikeHtml(response) ? 'an HTML page' : 'a body that is not JSON'}, not an envelope`,
            status,
            requestId,
          ),
          { status, requestId, hint: 'Is the base URL right? It must include /api/v1.' },
        ),
      );
    }
    const parsed = parseCreateResponse(data);
    if (!parsed.success) {
      return fail(
        new BadResponseError(
          apiErrorMessage('The API answered, but the body does not match the API spec', status, requestId),
          {
            status,
            requestId,
            details: describeIssues(parsed.error.issues).map(escapeControl),
            hint: 'The envelope may have been created. Check the base URL, and report this if it persists.',
          },
        ),
      );
    }
    return { ok: true, envelope: parsed.data.data };
  }

  const body = parseErrorBody(response.text);
  const apiMessage = body?.message;
  const message = (what: string) => apiErrorMessage(what, status, requestId, apiMessage);
  if (status === 401) {
    return fail(
      new NotAuthenticatedError(message('The API refused the token'), {
        status,
        requestId,
        hint: unauthenticatedHint(context),
      }),
    );
  }
  if (status === 403) {
    return fail(
      new ForbiddenError(message('Forbidden'), {
        status,
        requestId,
        hint: "The template belongs to another organisation than your token's. Check --template, or log in with that organisation's token.",
      }),
    );
  }
  if (status === 429) {
    const info = parseRateLimit(response.headers, now);
    return {
      ok: false,
      retryable: true,
      retryAfterMs: waitFromRateLimit(info, now),
      error: new RateLimitedError(message('Rate limited by the API'), {
        status,
        requestId,
        hint: rateLimitHint(info, now),
      }),
    };
  }
  if (status >= 400 && status < 500) {
    const what =
      status === 404
        ? 'Not found'
        : status === 413
          ? 'The API refused the request as too large'
          : status === 422
            ? 'The API rejected the request'
            : 'Request rejected';
    return fail(
      new ApiRejectedError(message(what), {
        status,
        requestId,
        details: fieldErrors(body),
        hint:
          status === 404
            ? notFoundHint(apiMessage, context)
            : status === 413
              ? 'Nothing was created. Send less merge data.'
              : undefined,
      }),
    );
  }
  const error = new ServerError(
    status >= 500
      ? message('The API failed')
      : apiErrorMessage(
          `The API answered with an unexpected status${looksLikeHtml(response) ? ' and an HTML page' : ''}`,
          status,
          requestId,
        ),
    {
      status,
      requestId,
      hint:
        status === 503
          ? 'The service is unavailable; try again shortly.'
          : status >= 500
            ? 'The envelope may have been created before the failure: check before you try again, or the signatory may get two.'
            : 'Try again later.',
    },
  );
  return {
    ok: false,
    error,
    retryable: status === 503,
    retryAfterMs: status === 503 ? parseRateLimit(response.headers, now).retryAfterMs : undefined,
  };
}

function fail(error: CliError): CreateOutcome {
  return { ok: false, error, retryable: false, retryAfterMs: undefined };
}
