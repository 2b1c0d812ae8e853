// /_sandbox/*: the sandbox's own controls, for rehearsing token rotation and reading its numbers.
// They need the admin secret printed at start (never an organisation token) and are not part of
// the API: no --latency or failures here.
//
//   GET  /_sandbox/tokens          every organisation's tokens: names and revocation times, no values
//   POST /_sandbox/tokens          {"organisation": "...", "name": "..."} -> 201 with the new token, shown once
//   POST /_sandbox/tokens/revoke   {"token": "<value>"} or {"organisation": "...", "name": "..."}
//   GET  /_sandbox/stats           envelope count, memory (RSS) and uptime
//   GET  /_sandbox/faults          the bad-day settings and the queue of one-shot faults
//   POST /_sandbox/faults          changes them while running: {"latency_ms": 100, "rate_limit": "50/5s", "next": ["503", "drop"], …}
//   GET  /_sandbox/requests        the last requests received (Authorization redacted); DELETE empties the list
//   GET  /_sandbox/envelopes       the last envelopes this run created; DELETE empties the list (not the envelopes)
//   (GET /_sandbox/templates takes an organisation token instead: routes/org-templates.ts)
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { describeIssues } from '../../text/issues.js';
import {
  type FaultOptions,
  formatOneShotFault,
  MAX_QUEUED_FAULTS,
  ONE_SHOT_FORMAT,
  type OneShotFault,
  parseOneShotFault,
} from '../faults/faults.js';
import {
  formatRateLimit,
  RATE_LIMIT_FORMAT,
  RATE_LIMIT_HEADER_STYLES,
  rateLimitPolicySchema,
} from '../faults/rate-limit.js';
import type { ReceivedRequest, SandboxRuntime } from '../runtime.js';
import { type ApiToken, type EnvelopeRecord, envelopeDetails } from '../state/store.js';
import { bearerToken, hashToken, newToken, sameDigest } from '../state/tokens.js';
import { sendUnauthenticated } from './create.js';
import { readJsonBody, redactedHeaders, sendJson, sendMethodNotAllowed } from './http-io.js';

export const ADMIN_PREFIX = '/_sandbox/';

const text = (what: string) =>
  z.string({ error: `must be ${what}` }).check(
    z.refine((s) => s.trim().length > 0, `must be ${what}`),
    z.maxLength(200, 'must be at most 200 characters'),
  );

const CreateTokenBody = z.strictObject({
  organisation: text('an organisation name'),
  name: text('a token name'),
});
const RevokeTokenBody = z.union([
  z.strictObject({ token: text('a token value') }),
  z.strictObject({ organisation: text('an organisation name'), name: text('a token name') }),
]);

const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: `must be a whole number from ${min} to ${max}` })
    .check(
      z.refine(
        (n) => Number.isInteger(n) && n >= min && n <= max,
        `must be a whole number from ${min} to ${max}`,
      ),
    );
const share = () =>
  z
    .number({ error: 'must be a number from 0 to 1, like 0.1' })
    .check(z.refine((n) => n >= 0 && n <= 1, 'must be a number from 0 to 1, like 0.1'));

/** `"50/5s"`, `50` (per second) or null (no limit). */
const RateLimitValue = z.nullable(
  rateLimitPolicySchema(`must be ${RATE_LIMIT_FORMAT}, or null for no limit`),
);

const OneShotValue = z.pipe(
  z.string({ error: `must be ${ONE_SHOT_FORMAT}` }),
  z.transform((raw, ctx): OneShotFault => {
    const fault = parseOneShotFault(raw);
    if (!fault) {
      ctx.issues.push({ code: 'custom', message: `must be ${ONE_SHOT_FORMAT}`, input: raw });
      return z.NEVER;
    }
    return fault;
  }),
);

const FaultsBody = z.strictObject({
  latency_ms: z.optional(wholeNumber(0, 60_000)),
  fail_rate: z.optional(share()),
  drop_rate: z.optional(share()),
  rate_limit: z.optional(RateLimitValue),
  rate_limit_headers: z.optional(
    z.enum(RATE_LIMIT_HEADER_STYLES, { error: `must be one of ${RATE_LIMIT_HEADER_STYLES.join(', ')}` }),
  ),
  seed_random: z.optional(wholeNumber(0, 2 ** 32 - 1)),
  next: z.optional(
    z
      .array(OneShotValue, { error: 'must be a list of one-shot faults, like ["503", "drop"]' })
      .check(z.maxLength(MAX_QUEUED_FAULTS, `must hold at most ${MAX_QUEUED_FAULTS} faults`)),
  ),
});

const FAULTS_HINT =
  'Send any of {"latency_ms": 0, "fail_rate": 0, "drop_rate": 0, "rate_limit": "50/5s" or null, "rate_limit_headers": "x-ratelimit", "seed_random": 42, "next": ["503", "429", "500", "drop", "latency=2000"]}.';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function tokenView(token: ApiToken) {
  return {
    organisation: token.organisation.name,
    name: token.name,
    created_at: iso(token.createdAt),
    revoked_at: iso(token.revokedAt),
  };
}

function sendInvalid(
  res: ServerResponse,
  body: unknown,
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  hint: string,
): void {
  const lines = describeIssues(issues, body);
  sendJson(res, 422, { message: `${lines[0] ?? 'invalid body'}. ${hint}`, errors: { body: lines } });
}

/**
 * Reads a JSON body and checks it with `schema`. On a problem the answer is sent here (415, 413 or
 * 400 from readJsonBody; 422 naming the field, with `hint`) and the result is undefined.
 */
async function readValidBody<T>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: z.ZodMiniType<T>,
  hint: string,
): Promise<T | undefined> {
  const body = await readJsonBody(req, res);
  if (!body.ok) return undefined;
  const parsed = schema.safeParse(body.value);
  if (parsed.success) return parsed.data;
  sendInvalid(res, body.value, parsed.error.issues, hint);
  return undefined;
}

function faultsView(options: Readonly<FaultOptions>, queued: readonly OneShotFault[]) {
  return {
    latency_ms: options.latencyMs,
    fail_rate: options.failRate,
    drop_rate: options.dropRate,
    rate_limit: options.rateLimit && {
      limit: options.rateLimit.limit,
      window_seconds: options.rateLimit.windowSeconds,
      text: formatRateLimit(options.rateLimit),
    },
    rate_limit_headers: options.rateLimitHeaders,
    seed_random: options.randomSeed,
    next: queued.map(formatOneShotFault),
  };
}

function requestView(request: ReceivedRequest) {
  return {
    id: request.id,
    time: new Date(request.receivedAt).toISOString(),
    method: request.method,
    path: request.path,
    headers: redactedHeaders(request.headers),
    body: request.body,
    body_bytes: request.bodyBytes,
    body_truncated: request.bodyTruncated,
    status: request.status,
  };
}

function envelopeView(envelope: EnvelopeRecord, origin: string) {
  const details = envelopeDetails(envelope);
  return {
    envelope_id: envelope.id,
    organisation: envelope.template.organisation.name,
    template_id: envelope.template.id,
    status: envelope.status,
    created_at: new Date(envelope.createdAt).toISOString(),
    expires_at: new Date(envelope.expiresAt).toISOString(),
    signing_url: `${origin}/sign/${envelope.id}`,
    merge_data: details.merge_data,
    signatory: details.signatory,
  };
}

/** `?limit=<n>` of a listing: the newest n (default: all that are kept). */
function limitOf(req: IncomingMessage): number | undefined | 'bad' {
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  const text = query.get('limit');
  if (text === null) return undefined;
  return /^\d{1,7}$/.test(text) ? Number(text) : 'bad';
}

async function saved(res: ServerResponse, durable: Promise<void>): Promise<boolean> {
  try {
    await durable;
    return true;
  } catch (error) {
    sendJson(res, 500, {
      message: `The change was made but could not be saved: ${(error as Error).message}`,
    });
    return false;
  }
}

/** One admin request: what every admin route gets. */
interface AdminCall {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  sandbox: SandboxRuntime;
}

/** True when the request uses `method`; otherwise a 405 naming it is sent. */
function allowed({ req, res, path }: AdminCall, method: string): boolean {
  if (req.method === method) return true;
  sendMethodNotAllowed(res, req.method ?? '', path, method);
  return false;
}

/** GET /_sandbox/stats */
function showStats(call: AdminCall): void {
  if (!allowed(call, 'GET')) return;
  const { sandbox } = call;
  const memory = process.memoryUsage();
  sendJson(call.res, 200, {
    envelopes: sandbox.store.envelopes.size,
    envelope_bytes: sandbox.store.envelopeBytes,
    envelope_budget_bytes: sandbox.envelopeBudget.bytes,
    memory: {
      rss_bytes: memory.rss,
      heap_used_bytes: memory.heapUsed,
      heap_limit_bytes: sandbox.envelopeBudget.heapLimitBytes,
    },
    uptime_seconds: Math.round((sandbox.now() - sandbox.startedAt) / 1000),
    faults: faultsView(sandbox.faults.options, sandbox.faults.queued),
    state_file: sandbox.stateFile?.path ?? null,
  });
}

/** The bad-day options a POST /_sandbox/faults body changes (the fields it has). */
function faultChanges(body: z.infer<typeof FaultsBody>): Partial<FaultOptions> {
  const changes: Partial<FaultOptions> = {};
  if (body.latency_ms !== undefined) changes.latencyMs = body.latency_ms;
  if (body.fail_rate !== undefined) changes.failRate = body.fail_rate;
  if (body.drop_rate !== undefined) changes.dropRate = body.drop_rate;
  if (body.rate_limit !== undefined) changes.rateLimit = body.rate_limit;
  if (body.rate_limit_headers !== undefined) changes.rateLimitHeaders = body.rate_limit_headers;
  if (body.seed_random !== undefined) changes.randomSeed = body.seed_random;
  return changes;
}

/** GET or POST /_sandbox/faults */
async function handleFaults(call: AdminCall): Promise<void> {
  const { req, res, path, sandbox } = call;
  if (req.method !== 'GET' && req.method !== 'POST') {
    sendMethodNotAllowed(res, req.method ?? '', path, 'GET, POST');
    return;
  }
  if (req.method === 'POST') {
    const body = await readValidBody(req, res, FaultsBody, FAULTS_HINT);
    if (!body) return;
    sandbox.faults.configure(faultChanges(body));
    if (body.next !== undefined) sandbox.faults.queueNext(body.next);
  }
  sendJson(res, 200, faultsView(sandbox.faults.options, sandbox.faults.queued));
}

/** GET or DELETE /_sandbox/requests and /_sandbox/envelopes */
function handleLog(call: AdminCall, name: 'requests' | 'envelopes'): void {
  const { req, res, path, sandbox } = call;
  const log = name === 'requests' ? sandbox.requests : sandbox.created;
  if (req.method === 'DELETE') {
    const cleared = log.total;
    log.clear();
    sendJson(res, 200, { cleared });
    return;
  }
  if (req.method !== 'GET') {
    sendMethodNotAllowed(res, req.method ?? '', path, 'GET, DELETE');
    return;
  }
  const limit = limitOf(req);
  if (limit === 'bad') {
    sendJson(res, 400, { message: 'limit must be a whole number, like ?limit=100.' });
    return;
  }
  const shown = log.items(limit);
  sendJson(res, 200, {
    total: log.total,
    kept: log.size,
    capacity: log.capacity,
    ...(name === 'requests' ? { kept_bytes: log.bytes, capacity_bytes: log.maxBytes } : {}),
    [name]:
      name === 'requests'
        ? (shown as ReceivedRequest[]).map(requestView)
        : (shown as EnvelopeRecord[]).map((e) => envelopeView(e, sandbox.origin)),
  });
}

/** GET /_sandbox/tokens lists them; POST creates one. */
async function handleTokens(call: AdminCall): Promise<void> {
  const { req, res, sandbox } = call;
  const { store } = sandbox;
  if (req.method === 'GET') {
    sendJson(res, 200, {
      organisations: store.organisations.map((org) => ({
        name: org.name,
        tokens: org.tokens.map(tokenView),
      })),
    });
    return;
  }
  if (!allowed(call, 'POST')) return;
  const request = await readValidBody(
    req,
    res,
    CreateTokenBody,
    'Send {"organisation": "<name>", "name": "<token name>"}.',
  );
  if (!request) return;
  const org = store.findOrganisation(request.organisation);
  if (!org) {
    sendJson(res, 404, { message: `No organisation is named '${request.organisation}'.` });
    return;
  }
  if (org.tokens.some((t) => t.name === request.name)) {
    sendJson(res, 409, {
      message: `${org.name} already has a token named '${request.name}'; pick another name.`,
    });
    return;
  }
  const value = newToken(org.name);
  const { token, durable } = store.addToken(org, request.name, hashToken(value), sandbox.now());
  if (!(await saved(res, durable))) return;
  // Like the dashboard: the value is shown this once and cannot be retrieved later.
  sendJson(res, 201, { ...tokenView(token), token: value });
}

/** POST /_sandbox/tokens/revoke */
async function revokeToken(call: AdminCall): Promise<void> {
  const { req, res, sandbox } = call;
  const { store } = sandbox;
  if (!allowed(call, 'POST')) return;
  const request = await readValidBody(
    req,
    res,
    RevokeTokenBody,
    'Send {"token": "<value>"} or {"organisation": "<name>", "name": "<token name>"}.',
  );
  if (!request) return;
  const token =
    'token' in request
      ? store.findToken(request.token)
      : store.findOrganisation(request.organisation)?.tokens.find((t) => t.name === request.name);
  if (!token) {
    sendJson(res, 404, { message: 'No such token in this sandbox.' });
    return;
  }
  // Revoking twice changes nothing: the first revocation time stays.
  if (token.revokedAt === null && !(await saved(res, store.revokeToken(token, sandbox.now())))) return;
  sendJson(res, 200, tokenView(token));
}

/** The admin routes by what follows /_sandbox/. */
const ADMIN_ROUTES = new Map<string, (call: AdminCall) => Promise<void> | void>([
  ['stats', showStats],
  ['faults', handleFaults],
  ['requests', (call) => handleLog(call, 'requests')],
  ['envelopes', (call) => handleLog(call, 'envelopes')],
  ['tokens', handleTokens],
  ['tokens/revoke', revokeToken],
]);

export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  sandbox: SandboxRuntime,
): Promise<void> {
  const presented = bearerToken(req.headers.authorization);
  if (presented === undefined || !sameDigest(hashToken(presented), sandbox.adminDigest)) {
    sendUnauthenticated(res);
    return;
  }
  const route = ADMIN_ROUTES.get(path.slice(ADMIN_PREFIX.length));
  if (route) return route({ req, res, path, sandbox });
  sendJson(res, 404, {
    message: `Not found: ${req.method} ${path}. Admin routes: GET /_sandbox/tokens, POST /_sandbox/tokens, POST /_sandbox/tokens/revoke, GET /_sandbox/stats, GET or POST /_sandbox/faults, GET or DELETE /_sandbox/requests, GET or DELETE /_sandbox/envelopes.`,
  });
}
