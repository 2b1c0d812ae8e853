// POST /api/v1/native/envelopes/create, exactly as the spec says where it speaks (bearer auth,
// 401/403 bodies, the 200 body) and as a careful API would where it is silent (docs/sandbox.md).
//
// Order of checks: --fail-rate (503), token (401), --rate-limit (429), content type (415), size
// (413), JSON (400), fields (422, with unknown merge keys when the template is the caller's own),
// template (404; 403 when another organisation owns it), merge keys (422). Then the envelope is
// made, saved, and answered (or its connection dropped: --drop-rate).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { CreateEnvelopeResponse } from '../api/schemas.js';
import {
  checkCreateBody,
  checkMergeKeys,
  mergeFieldErrors,
  templateIdOf,
  validationErrorBody,
} from './create-request.js';
import { readJsonBody, sendJson } from './http-io.js';
import type { SandboxRuntime } from './runtime.js';
import type { EnvelopeRecord } from './store.js';
import { bearerToken } from './tokens.js';

export const API_PREFIX = '/api/v1';
export const CREATE_PATH = `${API_PREFIX}/native/envelopes/create`;
const DAY_MS = 24 * 60 * 60 * 1000;

export const UNAUTHENTICATED = { message: 'Unauthenticated.' } as const;
export const FORBIDDEN = { message: 'Forbidden.' } as const;

export function sendUnauthenticated(res: ServerResponse): void {
  sendJson(res, 401, UNAUTHENTICATED, { 'www-authenticate': 'Bearer' });
}

export async function handleCreate(
  req: IncomingMessage,
  res: ServerResponse,
  sandbox: SandboxRuntime,
  onBody?: (text: string) => void,
): Promise<void> {
  const { store, faults } = sandbox;
  const fate = faults.rollFate();
  if (fate.fail) {
    sendJson(
      res,
      503,
      {
        message:
          'Service Unavailable: the sandbox failed this request on purpose (--fail-rate). Try again shortly.',
      },
      { 'retry-after': '1' },
    );
    return;
  }
  const token = bearerToken(req.headers.authorization);
  const organisation = token === undefined ? undefined : store.authenticate(token);
  if (!organisation) {
    sendUnauthenticated(res);
    return;
  }
  // Real elapsed time, not the (possibly fixed) clock of created_at.
  const waitSeconds = faults.takeRateLimit(organisation.name, performance.now());
  if (waitSeconds !== undefined) {
    sendJson(
      res,
      429,
      {
        message: `Too Many Requests: at most ${faults.options.rateLimit} per second (--rate-limit). Retry after ${waitSeconds} s.`,
      },
      { 'retry-after': String(waitSeconds) },
    );
    return;
  }

  const body = await readJsonBody(req, res, onBody);
  if (!body.ok) return;
  const checked = checkCreateBody(body.value);
  const templateId = checked.ok ? checked.request.templateId : templateIdOf(body.value);
  const template = templateId === undefined ? undefined : store.findTemplate(templateId);
  const ownTemplate = template?.organisation === organisation ? template : undefined;
  if (!checked.ok) {
    // Every problem at once; merge keys too when the template is the caller's own to know.
    const mergeErrors = ownTemplate
      ? checkMergeKeys((body.value as { merge_data?: unknown }).merge_data, ownTemplate)
      : {};
    sendJson(res, 422, validationErrorBody(mergeFieldErrors(checked.errors, mergeErrors)));
    return;
  }
  if (!template) {
    sendJson(res, 404, { message: `Template ${checked.request.templateId} was not found.` });
    return;
  }
  if (!ownTemplate) {
    sendJson(res, 403, FORBIDDEN);
    return;
  }
  const request = checked.request;
  const mergeErrors = checkMergeKeys(request.mergeData, ownTemplate);
  if (Object.keys(mergeErrors).length > 0) {
    sendJson(res, 422, validationErrorBody(mergeErrors));
    return;
  }

  const createdAt = sandbox.now();
  const envelope: EnvelopeRecord = {
    id: sandbox.newId(createdAt),
    template: ownTemplate,
    status: 'ready',
    createdAt,
    expiresAt: createdAt + request.expiresInDays * DAY_MS,
    details: JSON.stringify({ merge_data: request.mergeData, signatory: request.signatory }),
  };
  await store.addEnvelope(envelope); // on disk (with --state) before anyone hears of it
  if (fate.drop) {
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
