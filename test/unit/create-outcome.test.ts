// The classifier of a create answer (src/api/outcome.ts) as a table: status × headers × body →
// outcome kind, error class, message and hint, with the client's context (base URL, token source).
import { describe, expect, it } from 'vitest';
import { classifyAnswer, classifyFailure, type ResponseContext } from '../../src/api/outcome.js';
import {
  ApiRejectedError,
  ForbiddenError,
  InterruptedError,
  NetworkError,
  NotAuthenticatedError,
  RateLimitedError,
  ServerError,
} from '../../src/errors.js';
import type { HttpResponse } from '../../src/transport/http-client.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const ID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const ENVELOPE = {
  envelope_id: ID,
  signing_url: `https://sign.example.com/s/${ID}`,
  status: 'ready',
  created_at: '2026-11-22T10:00:00.000Z',
  expires_at: '2026-12-22T10:00:00.000Z',
};

function answer(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/html' : 'application/json';
  return { status, headers: { 'content-type': type, ...headers }, text, ms: 3, requestId: 'req-1' };
}

const fromEnv: ResponseContext = { baseUrl: 'http://127.0.0.1:9/api/v1', tokenSource: 'env ESIGN_TOKEN' };
const noPrefix: ResponseContext = { baseUrl: 'http://127.0.0.1:9', tokenSource: 'profile default' };
/** Every unknown outcome's hint, against these loopback base URLs (src/api/check-envelope.ts). */
const CHECK_IN_SANDBOX =
  "The outcome is unknown: the envelope may have been created. Check in the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' http://127.0.0.1:9/_sandbox/envelopes; `esign sandbox` printed the admin secret) whether it exists before you send it again, or the signatory may get two.";

type Row = [
  name: string,
  response: HttpResponse,
  context: ResponseContext,
  expected: {
    kind: string;
    why?: string;
    afterMs?: number | undefined;
    error?: new (...args: never[]) => Error;
    code?: string;
    message?: string;
    hint?: string | undefined;
    details?: string[];
  },
];

const rows: Row[] = [
  ['200 envelope', answer(200, { success: true, data: ENVELOPE }), fromEnv, { kind: 'created' }],
  [
    '200 HTML page',
    answer(200, '<html>Login</html>'),
    noPrefix,
    {
      kind: 'unknown',
      error: ServerError,
      code: 'outcome_unknown',
      message:
        'The API answered that it succeeded, but not with the envelope: its answer was an HTML page (200, request id req-1). The envelope may have been created.',
      hint: CHECK_IN_SANDBOX,
    },
  ],
  [
    '200 off the spec',
    answer(200, { success: true, data: { ...ENVELOPE, envelope_id: 'nope' } }),
    fromEnv,
    {
      kind: 'unknown',
      error: ServerError,
      code: 'outcome_unknown',
      message:
        'The API answered that it succeeded, but not with the envelope: its answer does not match the API spec (200, request id req-1). The envelope may have been created.',
      hint: CHECK_IN_SANDBOX,
    },
  ],
  [
    '401, token from ESIGN_TOKEN',
    answer(401, { message: 'Unauthenticated.' }),
    fromEnv,
    {
      kind: 'rejected',
      error: NotAuthenticatedError,
      code: 'unauthenticated',
      message: 'The API refused the token (401, request id req-1). The API said: "Unauthenticated."',
      hint: 'The token comes from ESIGN_TOKEN, so `esign login` would change nothing: set ESIGN_TOKEN to a valid token (in CI, update the secret), or unset it to use the stored one.',
    },
  ],
  [
    '401, token from a profile',
    answer(401, { message: 'Unauthenticated.' }),
    noPrefix,
    {
      kind: 'rejected',
      error: NotAuthenticatedError,
      hint: 'The token is invalid or was revoked. Create a new one in the dashboard (Settings → API Tokens → Create New Token), then run `esign login`.',
    },
  ],
  [
    '403',
    answer(403, { message: 'Forbidden.' }),
    fromEnv,
    {
      kind: 'rejected',
      error: ForbiddenError,
      code: 'forbidden',
      message: 'Forbidden (403, request id req-1). The API said: "Forbidden."',
    },
  ],
  [
    '404, base URL without /api/v1',
    answer(404, { message: 'Not Found' }),
    noPrefix,
    {
      kind: 'rejected',
      error: ApiRejectedError,
      code: 'rejected',
      message: 'Not found (404, request id req-1). The API said: "Not Found"',
      hint: 'The base URL is http://127.0.0.1:9; it must include the API prefix /api/v1. Fix it with --base-url, ESIGN_BASE_URL or `esign config set base_url <url>`.',
    },
  ],
  [
    '404 of a template',
    answer(404, { message: 'Template not found.' }),
    fromEnv,
    {
      kind: 'rejected',
      error: ApiRejectedError,
      hint: 'Check --template: no template with that id is visible to your token.',
    },
  ],
  [
    '413',
    answer(413, { message: 'Too large' }),
    fromEnv,
    { kind: 'rejected', error: ApiRejectedError, hint: 'Nothing was created. Send less merge data.' },
  ],
  [
    '422 with field errors',
    answer(422, {
      message: 'The given data was invalid.',
      errors: { 'merge_data.x': ['unknown merge tag'] },
    }),
    fromEnv,
    {
      kind: 'rejected',
      error: ApiRejectedError,
      message:
        'The API rejected the request (422, request id req-1). The API said: "The given data was invalid."',
      details: ['merge_data.x: unknown merge tag'],
      hint: undefined,
    },
  ],
  [
    '409',
    answer(409, { message: 'Conflict' }),
    fromEnv,
    {
      kind: 'rejected',
      error: ApiRejectedError,
      message: 'Request rejected (409, request id req-1). The API said: "Conflict"',
    },
  ],
  [
    '429 with Retry-After',
    answer(429, { message: 'Too Many Requests' }, { 'retry-after': '5' }),
    fromEnv,
    {
      kind: 'retry',
      why: 'rate_limited',
      afterMs: 5000,
      error: RateLimitedError,
      code: 'rate_limited',
      message: 'Rate limited by the API (429, request id req-1). The API said: "Too Many Requests"',
      hint: 'Slow down, or retry later. Try again in 5 s.',
    },
  ],
  [
    '429 with a quota used up until a reset',
    answer(
      429,
      {},
      {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String((NOW + 120_000) / 1000),
      },
    ),
    fromEnv,
    {
      kind: 'retry',
      why: 'rate_limited',
      afterMs: 120_000,
      error: RateLimitedError,
      hint: 'Slow down, or retry later. The quota resets in 120 s. The limit is 100 requests.',
    },
  ],
  [
    '429 saying nothing of when',
    answer(429, { message: 'slow down' }),
    fromEnv,
    {
      kind: 'retry',
      why: 'rate_limited',
      afterMs: undefined,
      error: RateLimitedError,
      hint: 'Slow down, or retry later.',
    },
  ],
  [
    '503 with Retry-After',
    answer(503, { message: 'Down' }, { 'retry-after': '2' }),
    fromEnv,
    {
      kind: 'retry',
      why: 'unavailable',
      afterMs: 2000,
      error: ServerError,
      code: 'server_error',
      hint: 'The service is unavailable; try again shortly.',
    },
  ],
  [
    '503 without Retry-After',
    answer(503, { message: 'Down' }),
    fromEnv,
    { kind: 'retry', why: 'unavailable', afterMs: undefined, error: ServerError },
  ],
  [
    '500',
    answer(500, { message: 'Server Error' }),
    fromEnv,
    {
      kind: 'unknown',
      error: ServerError,
      message: 'The API failed (500, request id req-1). The API said: "Server Error"',
      hint: CHECK_IN_SANDBOX,
    },
  ],
  ['502', answer(502, 'Bad Gateway'), fromEnv, { kind: 'unknown', error: ServerError }],
  ['504', answer(504, { message: 'Gateway Timeout' }), fromEnv, { kind: 'unknown', error: ServerError }],
  [
    '302 (a status no API answers a create with)',
    answer(302, '<html>Moved</html>'),
    fromEnv,
    {
      kind: 'rejected',
      error: ServerError,
      message: 'The API answered with an unexpected status and an HTML page (302, request id req-1).',
      hint: 'Try again later.',
    },
  ],
];

describe('classifyAnswer: status × headers × body → outcome', () => {
  it.each(rows)('%s', (_name, response, context, expected) => {
    const outcome = classifyAnswer(response, NOW, context);
    expect(outcome.kind).toBe(expected.kind);
    if (outcome.kind === 'created') {
      expect(outcome.envelope).toEqual(ENVELOPE);
      expect(outcome.requestId).toBe('req-1');
      return;
    }
    if (outcome.kind === 'retry') {
      expect(outcome.why).toBe(expected.why);
      expect(outcome.afterMs).toBe(expected.afterMs);
    }
    const { error } = outcome;
    if (expected.error) expect(error).toBeInstanceOf(expected.error);
    if (expected.code) expect(error.code).toBe(expected.code);
    if (expected.message) expect(error.message).toBe(expected.message);
    if ('hint' in expected) expect(error.hint).toBe(expected.hint);
    if (expected.details) expect(error.details).toEqual(expected.details);
    expect(error.status).toBe(response.status);
    expect(error.requestId).toBe('req-1');
  });
});

describe('classifyFailure: a request that got no answer', () => {
  it('sent (it may have reached the server) → unknown, the same error with the hint every unknown outcome has', () => {
    const error = new NetworkError('Network error: the connection broke after the request was sent.', true, {
      requestId: 'req-1',
      details: ['other side closed'],
      hint: 'The outcome is unknown.',
    });
    const outcome = classifyFailure(error, fromEnv);
    if (outcome.kind !== 'unknown') throw new Error(`expected unknown, got ${outcome.kind}`);
    expect(outcome.error).toBeInstanceOf(NetworkError);
    expect(outcome.error).toMatchObject({
      message: error.message,
      code: 'outcome_unknown',
      exitCode: error.exitCode,
      requestId: 'req-1',
      details: ['other side closed'],
      hint: CHECK_IN_SANDBOX,
    });
    const elsewhere = classifyFailure(error, { baseUrl: 'https://api.example.com/api/v1' });
    expect(elsewhere.kind === 'unknown' && elsewhere.error.hint).toBe(
      'The outcome is unknown: the envelope may have been created. Check in the dashboard whether it exists before you send it again, or the signatory may get two.',
    );
  });

  it('never sent → retry, not_sent, no time said', () => {
    const error = new NetworkError('Network error: the connection was refused. Nothing was sent.', false);
    expect(classifyFailure(error)).toEqual({ kind: 'retry', why: 'not_sent', afterMs: undefined, error });
  });

  it('anything else (an interrupt, a bug) is thrown back', () => {
    const interrupted = new InterruptedError();
    expect(() => classifyFailure(interrupted)).toThrow(interrupted);
    const bug = new TypeError('x is undefined');
    expect(() => classifyFailure(bug)).toThrow(bug);
  });
});

describe('the signing URL of a created envelope: an http(s) URL, any case, as the spec says', () => {
  const withUrl = (signing_url: string) => answer(200, { success: true, data: { ...ENVELOPE, signing_url } });

  it.each([
    'https://sign.example.com/s/1',
    'http://127.0.0.1:8080/sign/x?y=1#z',
    'HTTPS://SIGN.EXAMPLE.COM/s/1',
    'Http://[::1]/s',
  ])('%s is an envelope', (url) => {
    const outcome = classifyAnswer(withUrl(url), NOW, fromEnv);
    expect(outcome.kind).toBe('created');
  });

  it.each([
    ['ftp://sign.example.com/s/1', ['data.signing_url: must be an http(s) URL']],
    ['javascript:alert(1)', ['data.signing_url: must be an http(s) URL']],
    ['https:sign.example.com/s/1', ['data.signing_url: must be an http(s) URL']],
    ['http:/sign.example.com', ['data.signing_url: must be an http(s) URL']],
    ['sign.example.com/s/1', ['data.signing_url: must be an http(s) URL']],
    ['https://', ['data.signing_url: must be an http(s) URL']],
    ['', ['data.signing_url: must be an http(s) URL']],
    ['https://a.example/\u001b[2J', ['data.signing_url: must not contain control characters']],
  ])('%j is off the spec: the outcome is unknown, with one detail', (url, details) => {
    const outcome = classifyAnswer(withUrl(url), NOW, fromEnv);
    expect(outcome.kind).toBe('unknown');
    if (outcome.kind !== 'unknown') return;
    expect(outcome.error.details).toEqual(details);
  });
});
