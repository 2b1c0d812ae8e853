// POST /api/v1/native/envelopes/create, exactly as the spec says where it speaks (bearer auth,
// 401/403 bodies, the 200 body) and as a careful API would where it is silent (docs/sandbox.md).
//
// Order of checks: a one-shot fault (X-Sandbox-Fault or the queue: 503, 429, 500), --fail-rate (503),
// token (401), --rate-limit (429, counted per token in fixed windows), content type (415), size
// (413), JSON (400), fields (422, with unknown merge keys when the template is the caller's own),
// template (404; 403 when another organisation owns it), merge keys (422). Then the envelope is
// made, saved, and answered (or its connection dropped: --drop-rate, or a one-shot `drop`). With a
// rate limit, every answer carries the token's rate-limit headers (rate-limit.ts).
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CreateEnvelopeResponse } from '../../api/schemas.js';
import type { Fate, OneShotFault } from '../faults/faults.js';
import {
  formatRateLimit,
  type RateLimiter,
  type RateLimitState,
  rateLimitHeaders,
} from '../faults/rate-limit.js';
import type { SandboxRuntime } from '../runtime.js';
import { type ApiToken, type EnvelopeRecord, envelopeBytes, type Template } from '../state/store.js';
import { bearerToken } from '../state/tokens.js';
import {
  type CheckedCreateRequest,
  checkCreateBody,
  checkMergeKeys,
  mergeFieldErrors,
  templateIdOf,
  validationErrorBody,
} from './create-request.js';
import { readBody, readJsonBody, sendJson } from './http-io.js';

export const API_PREFIX = '/api/v1';
export const CREATE_PATH = `${API_PREFIX}/native/envelopes/create`;
const DAY_MS = 24 * 60 * 60 * 1000;

const UNAUTHENTICATED = { message: 'Unauthenticated.' } as const;
const FORBIDDEN = { message: 'Forbidden.' } as const;

export function sendUnauthenticated(res: ServerResponse): void {
  sendJson(res, 401, UNAUTHENTICATED, { 'www-authenticate': 'Bearer' });
}

/** Receives a create request's body for the request log, and whether it came with a usable token. */
export type BodyRecorder = (text: string, authenticated: boolean) => void;

/** A one-shot fault for this request, and where it came from (named in the answer's message). */
export interface FaultShot {
  fault: OneShotFault;
  source: 'X-Sandbox-Fault' | 'queued with POST /_sandbox/faults';
}

function setHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  for (const name in headers) res.setHeader(name, headers[name] as string);
}

/** Sets the rate-limit headers of `state` on the answer to come. */
export function applyRateLimit(
  res: ServerResponse,
  limiter: RateLimiter,
  state: RateLimitState,
  now: number,
): void {
  setHeaders(res, rateLimitHeaders(limiter.style, state, now));
}

function sendForced(
  res: ServerResponse,
  { kind, source }: { kind: '503' | '429' | '500'; source: FaultShot['source'] },
  rate: { limiter: RateLimiter | null; token: ApiToken | undefined; now: number },
): void {
  const { limiter, token, now } = rate;
  const why = `the sandbox failed this request on purpose (${source})`;
  if (kind === '500') {
    sendJson(res, 500, { message: `Server Error: ${why}.` });
    return;
  }
  if (kind === '503') {
    sendJson(
      res,
      503,
      { message: `Service Unavailable: ${why}. Try again shortly.` },
      { 'retry-after': '1' },
    );
    return;
  }
  // 429: as if this token's quota were spent, so its headers say so; Retry-After is the window's end.
  const headers = limiter
    ? rateLimitHeaders(limiter.style, { ...limiter.peek(token, now), remaining: 0, limited: true }, now)
    : { 'retry-after': '1' };
  sendJson(
    res,
    429,
    { message: `Too Many Requests: ${why}. Retry after ${headers['retry-after']} s.` },
    headers,
  );
}

/**
 * The checks before the body is read: a one-shot fault, --fail-rate, the token, the rate limit. The
 * caller's token when the request may go on; undefined when it was answered here.
 */
async function admit(
  req: IncomingMessage,
  res: ServerResponse,
  sandbox: SandboxRuntime,
  { shot, fate, onBody }: { shot: FaultShot | undefined; fate: Fate; onBody: BodyRecorder | undefined },
): Promise<ApiToken | undefined> {
  const { store, faults } = sandbox;
  const presented = bearerToken(req.headers.authorization);
  const token = presented === undefined ? undefined : store.activeToken(presented);
  const limiter = faults.limiter;
  // Wall-clock time: the windows are aligned to the Unix epoch (not the possibly fixed clock of created_at).
  const now = limiter ? Date.now() : 0;
  const kind = shot?.fault.kind;
  // The request recorder keeps the body of requests answered before it is read, too.
  const recordBody = async () => {
    if (!onBody) return;
    const body = await readBody(req);
    // Whether the request carried a usable token: the log keeps only the start of a stranger's body.
    if (Buffer.isBuffer(body)) onBody(body.toString('utf8'), token !== undefined);
  };
  if (shot && (kind === '503' || kind === '429' || kind === '500')) {
    await recordBody();
    if (limiter && kind !== '429') applyRateLimit(res, limiter, limiter.peek(token, now), now);
    sendForced(res, { kind, source: shot.source }, { limiter, token, now });
    return undefined;
  }
  if (fate.fail) {
    await recordBody();
    if (limiter) applyRateLimit(res, limiter, limiter.peek(token, now), now);
    sendJson(
      res,
      503,
      {
        message:
          'Service Unavailable: the sandbox failed this request on purpose (--fail-rate). Try again shortly.',
      },
      { 'retry-after': '1' },
    );
    return undefined;
  }
  if (!token) {
    await recordBody();
    if (limiter) applyRateLimit(res, limiter, limiter.peek(undefined, now), now);
    sendUnauthenticated(res);
    return undefined;
  }
  if (limiter) {
    const state = limiter.take(token, now);
    applyRateLimit(res, limiter, state, now);
    if (state.limited) {
      await recordBody();
      sendJson(res, 429, {
        message: `Too Many Requests: at most ${formatRateLimit(limiter.policy)} per token (--rate-limit). Retry after ${res.getHeader('retry-after')} s.`,
      });
      return undefined;
    }
  }
  return token;
}

/**
 * Checks a parsed body against the schema and the template (whose organisation must be the
 * caller's). The request and its template when all is well; undefined when a 422, 404 or 403 was sent.
 */
function acceptRequest(
  res: ServerResponse,
  sandbox: SandboxRuntime,
  token: ApiToken,
  value: unknown,
): { request: CheckedCreateRequest; template: Template } | undefined {
  const checked = checkCreateBody(value);
  const templateId = checked.ok ? checked.request.templateId : templateIdOf(value);
  const template = templateId === undefined ? undefined : sandbox.store.findTemplate(templateId);
  const ownTemplate = template?.organisation === token.organisation ? template : undefined;
  if (!checked.ok) {
    // Every problem at once; merge keys too when the template is the caller's own to know.
    const mergeErrors = ownTemplate
      ? checkMergeKeys((value as { merge_data?: unknown }).merge_data, ownTemplate)
      : {};
    sendJson(res, 422, validationErrorBody(mergeFieldErrors(checked.errors, mergeErrors)));
    return undefined;
  }
  if (!template) {
    sendJson(res, 404, { message: `Template ${checked.request.templateId} was not found.` });
    return undefined;
  }
  if (!ownTemplate) {
    sendJson(res, 403, FORBIDDEN);
    return undefined;
  }
  const mergeErrors = checkMergeKeys(checked.request.mergeData, ownTemplate);
  if (Object.keys(mergeErrors).length > 0) {
    sendJson(res, 422, validationErrorBody(mergeErrors));
    return undefined;
  }
  return { request: checked.request, template: ownTemplate };
}

const MIB = 1024 * 1024;

/**
 * Whether the envelope fits the sandbox's budget; otherwise it is answered 507 Insufficient Storage
 * (nothing was created: never a crash that loses every envelope answered before).
 */
function hasRoom(res: ServerResponse, sandbox: SandboxRuntime, details: string): boolean {
  const { store, envelopeBudget: budget } = sandbox;
  if (store.envelopeBytes + envelopeBytes(details) <= budget.bytes) return true;
  const held = (store.envelopeBytes / MIB).toFixed(1);
  const most = `${(budget.bytes / MIB).toFixed(0)} MiB`;
  const room = budget.byHeap
    ? `give Node a larger heap: ${most} is what its heap of ${(budget.heapLimitBytes / MIB).toFixed(0)} MiB holds (NODE_OPTIONS=--max-old-space-size=<MiB>)`
    : 'give it more room (esign sandbox --envelope-budget <MiB>)';
  sendJson(res, 507, {
    message: `Insufficient Storage: the sandbox keeps at most ${most} of envelopes and holds ${held} MiB (${store.envelopes.size} envelopes); this envelope was not created. Restart the sandbox (with a new --state file, or none) or ${room}.`,
  });
  return false;
}

export async function handleCreate(
  req: IncomingMessage,
  res: ServerResponse,
  sandbox: SandboxRuntime,
  { shot, onBody }: { shot?: FaultShot | undefined; onBody?: BodyRecorder | undefined } = {},
): Promise<void> {
  const fate = sandbox.faults.rollFate();
  const token = await admit(req, res, sandbox, { shot, fate, onBody });
  if (!token) return;
  const body = await readJsonBody(req, res, onBody && ((text) => onBody(text, true)));
  if (!body.ok) return;
  const accepted = acceptRequest(res, sandbox, token, body.value);
  if (!accepted) return;
  const { request, template } = accepted;

  const details = JSON.stringify({ merge_data: request.mergeData, signatory: request.signatory });
  if (!hasRoom(res, sandbox, details)) return;
  const createdAt = sandbox.now();
  const envelope: EnvelopeRecord = {
    id: sandbox.newId(createdAt),
    template,
    status: 'ready',
    createdAt,
    expiresAt: createdAt + request.expiresInDays * DAY_MS,
    details,
  };
  await sandbox.store.addEnvelope(envelope); // on disk (with --state) before anyone hears of it
  sandbox.created.add(envelope);
  if (fate.drop || shot?.fault.kind === 'drop') {
    // The envelope exists, but the client never learns it: the outcome is unknown to it.
    sandbox.dropped.add(res);
    req.socket.destroy();
    return;
  }
  const answer: CreateEnvelopeResponse = {
    success: true,
    data: {
      envelope_id: envelope.id,
      signing_url: `${sandbox.origin}/sign/${envelope.id}`,
      status: envelope.status,
      created_at: new Date(envelope.createdAt).toISOString(),
      expires_at: new Date(envelope.expiresAt).toISOString(),
    },
  };
  sendJson(res, 200, answer);
}
