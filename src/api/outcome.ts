// What one answer to a create request (or a request that got none) means, decided once for
// `envelope create` and the batch alike, always with the client's context (which base URL was used,
// where the token came from) so that every hint points at the real cause:
//
//   created   the envelope exists: here it is
//   rejected  nothing was created, and sending the same request again will not change that
//   unknown   the envelope may exist (a 5xx other than 503, a 2xx whose body is not an envelope,
//             a connection that broke after the request left): never sent again by itself
//   retry     nothing was created, and it may work later: why (rate_limited, unavailable,
//             not_sent) and after how long, when the server said
//
// What happens next to the request (wait, count it, give up) is not decided here: see
// src/batch/policy.ts.
import {
  ApiRejectedError,
  type CliError,
  ForbiddenError,
  NetworkError,
  NotAuthenticatedError,
  OUTCOME_UNKNOWN,
  RateLimitedError,
  ServerError,
} from '../errors.js';
import { escapeControl } from '../text/terminal-text.js';
import { sizeText, waitText } from '../text/units.js';
import type { HttpResponse } from '../transport/http-client.js';
import { unknownOutcomeHint } from './check-envelope.js';
import { parseRateLimit, type RateLimitInfo, waitFromRateLimit } from './rate-limit-headers.js';
import { ApiErrorBody, CreateEnvelopeResponse, describeIssues, type Envelope, hotParser } from './schemas.js';

/** Why a request that created nothing may be sent again. */
export type RetryReason = 'rate_limited' | 'unavailable' | 'not_sent';

export type CreateOutcome =
  | { kind: 'created'; envelope: Envelope; requestId: string }
  | { kind: 'rejected'; error: CliError }
  | { kind: 'unknown'; error: CliError }
  | {
      kind: 'retry';
      why: RetryReason;
      /** How long the server asked to wait (Retry-After, or a quota's reset), when it said. */
      afterMs: number | undefined;
      /** What to report if it is not sent again. */
      error: CliError;
    };

/** What the messages say beyond the answer itself: which base URL was used, where the token came from. */
export interface ResponseContext {
  baseUrl?: string;
  /** A SettingSource: 'env ESIGN_TOKEN', 'profile <name>', … */
  tokenSource?: string;
  /**
   * Where the template id came from, as the hints name it: `--template` (the default), or a batch's
   * "the records' template_id" when the records give it.
   */
  templateFrom?: string;
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
function apiErrorMessage(
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
    return `Check ${context.templateFrom ?? '--template'}: no template with that id is visible to your token.`;
  }
  const base = context.baseUrl ? `The base URL is ${context.baseUrl}; ` : 'Check the base URL: ';
  const named = namedBaseUrl(apiMessage);
  return `${base}it must include the API prefix /api/v1${named ? ` (the API names ${named})` : ''}. Fix it with --base-url, ESIGN_BASE_URL or \`esign config set base_url <url>\`.`;
}

function unauthenticatedHint(context: ResponseContext): string {
  if (context.tokenSource?.startsWith('command ')) {
    return 'The token comes from a token command, which was run once more after the 401: the API refused what it printed. Run the command yourself to check what it prints (`esign status` names it), or store another one with `esign login --token-command`.';
  }
  if (context.tokenSource === 'env ESIGN_TOKEN') {
    return 'The token comes from ESIGN_TOKEN, so `esign login` would change nothing: set ESIGN_TOKEN to a valid token (in CI, update the secret), or unset it to use the stored one.';
  }
  return 'The token is invalid or was revoked. Create a new one in the dashboard (Settings → API Tokens → Create New Token), then run `esign login`.';
}

/** What a 429's headers say about when to try again, for the hint. */
function rateLimitHint(info: RateLimitInfo, now: number): string {
  const parts: string[] = [];
  if (info.retryAfterMs !== undefined) parts.push(`Try again in ${waitText(info.retryAfterMs)}.`);
  else if (info.resetAt !== undefined) {
    const wait = info.resetAt - now;
    parts.push(wait > 0 ? `The quota resets in ${waitText(wait)}.` : 'The quota has reset; try again.');
  }
  if (info.limit !== undefined) {
    const per = info.windowMs === undefined ? '' : ` per ${waitText(info.windowMs)}`;
    parts.push(`The limit is ${info.limit} requests${per}.`);
  }
  return ['Slow down, or retry later.', ...parts].join(' ');
}

const parseCreateResponse = hotParser(CreateEnvelopeResponse);

/**
 * Classifies one answer to the create endpoint. `now` (milliseconds since the epoch) reads
 * Retry-After dates and resets; `context` makes the hints name the base URL and the token's source.
 */
export function classifyAnswer(response: HttpResponse, now: number, context: ResponseContext): CreateOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return classifySuccess(response, context);
  if (status === 429) return classifyRateLimited(response, now);
  if (status >= 400 && status < 500) return { kind: 'rejected', error: clientError(response, context) };
  return classifyServerError(response, now, context);
}

/**
 * Classifies a request that got no answer; anything but a NetworkError (an interrupt, a bug) is
 * thrown back. One that may have reached the server is an unknown outcome, with its hint
 * (check-envelope.ts): where to check, as every unknown outcome says it.
 */
export function classifyFailure(error: unknown, context: ResponseContext = {}): CreateOutcome {
  if (!(error instanceof NetworkError)) throw error;
  if (!error.sent) return { kind: 'retry', why: 'not_sent', afterMs: undefined, error };
  const { status, details, requestId } = error;
  const hint = unknownOutcomeHint(context.baseUrl);
  return {
    kind: 'unknown',
    error: new NetworkError(
      error.message,
      true,
      { status, details, requestId, hint, cause: error.cause },
      error.code,
    ),
  };
}

/**
 * A 2xx (the API says it succeeded) whose body is not the envelope: empty, not JSON, an HTML page,
 * cut at esign's limit, or off the spec. A gateway that drops the body after the server created the
 * envelope answers just so: the outcome is unknown, whatever the body.
 */
function classifySuccess(response: HttpResponse, context: ResponseContext): CreateOutcome {
  if (response.cutAt !== undefined) {
    return unknownAfterSuccess(
      `was larger than ${sizeText(response.cutAt)}, the most esign reads`,
      response,
      context,
    );
  }
  if (response.text.trim() === '') return unknownAfterSuccess('was empty', response, context);
  let data: unknown;
  try {
    data = JSON.parse(response.text);
  } catch {
    return unknownAfterSuccess(
      looksLikeHtml(response) ? 'was an HTML page' : 'was not JSON',
      response,
      context,
    );
  }
  const parsed = parseCreateResponse(data);
  if (parsed.success) return { kind: 'created', envelope: parsed.data.data, requestId: response.requestId };
  return unknownAfterSuccess(
    'does not match the API spec',
    response,
    context,
    describeIssues(parsed.error.issues),
  );
}

function unknownAfterSuccess(
  what: string,
  response: HttpResponse,
  context: ResponseContext,
  details: string[] = [],
): CreateOutcome {
  const { status, requestId } = response;
  const said = apiErrorMessage(
    `The API answered that it succeeded, but not with the envelope: its answer ${what}`,
    status,
    requestId,
  );
  return {
    kind: 'unknown',
    error: new ServerError(
      `${said} The envelope may have been created.`,
      { status, requestId, details: details.map(escapeControl), hint: unknownOutcomeHint(context.baseUrl) },
      OUTCOME_UNKNOWN,
    ),
  };
}

function classifyRateLimited(response: HttpResponse, now: number): CreateOutcome {
  const { status, requestId } = response;
  const info = parseRateLimit(response.headers, now);
  const error = new RateLimitedError(
    apiErrorMessage('Rate limited by the API', status, requestId, parseErrorBody(response.text)?.message),
    { status, requestId, hint: rateLimitHint(info, now) },
  );
  return { kind: 'retry', why: 'rate_limited', afterMs: waitFromRateLimit(info, now), error };
}

const REJECTED_WHAT: Record<number, string> = {
  404: 'Not found',
  413: 'The API refused the request as too large',
  422: 'The API rejected the request',
};

/** A 4xx other than 429: nothing was created. */
function clientError(response: HttpResponse, context: ResponseContext): CliError {
  const { status, requestId } = response;
  const body = parseErrorBody(response.text);
  const apiMessage = body?.message;
  const message = (what: string) => apiErrorMessage(what, status, requestId, apiMessage);
  if (status === 401) {
    return new NotAuthenticatedError(message('The API refused the token'), {
      status,
      requestId,
      hint: unauthenticatedHint(context),
    });
  }
  if (status === 403) {
    return new ForbiddenError(message('Forbidden'), {
      status,
      requestId,
      hint: `The template belongs to another organisation than your token's. Check ${context.templateFrom ?? '--template'}, or log in with that organisation's token.`,
    });
  }
  const hint =
    status === 404
      ? notFoundHint(apiMessage, context)
      : status === 413
        ? 'Nothing was created. Send less merge data.'
        : undefined;
  return new ApiRejectedError(message(REJECTED_WHAT[status] ?? 'Request rejected'), {
    status,
    requestId,
    details: fieldErrors(body),
    hint,
  });
}

/**
 * A 5xx, or a status no API should answer with (1xx, 3xx). A 503 means "not now": nothing was
 * created. Any other 5xx may come from a server that failed half-way, or from a gateway that gave up
 * waiting for one: the envelope may exist. Another status created nothing.
 */
function classifyServerError(response: HttpResponse, now: number, context: ResponseContext): CreateOutcome {
  const { status, requestId } = response;
  const server = status >= 500;
  const message = server
    ? apiErrorMessage('The API failed', status, requestId, parseErrorBody(response.text)?.message)
    : apiErrorMessage(
        `The API answered with an unexpected status${looksLikeHtml(response) ? ' and an HTML page' : ''}`,
        status,
        requestId,
      );
  const error = (hint: string) => new ServerError(message, { status, requestId, hint });
  // 507 Insufficient Storage: the server could not store what it would have created (RFC 4918).
  if (status === 507) {
    return { kind: 'rejected', error: error('Nothing was created: the API has no room to store it.') };
  }
  if (status === 503) {
    const afterMs = parseRateLimit(response.headers, now).retryAfterMs;
    return {
      kind: 'retry',
      why: 'unavailable',
      afterMs,
      error: error('The service is unavailable; try again shortly.'),
    };
  }
  if (!server) return { kind: 'rejected', error: error('Try again later.') };
  return { kind: 'unknown', error: error(unknownOutcomeHint(context.baseUrl)) };
}
