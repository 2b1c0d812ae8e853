// GET /sign/<envelope_id>: the page behind a signing URL, so a person sees what would be signed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ULID_PATTERN } from '../../api/schemas.js';
import type { SandboxRuntime } from '../runtime.js';
import { envelopeDetails } from '../state/store.js';
import { sendHtml, sendMethodNotAllowed } from './http-io.js';
import { notFoundPage, signingPage } from './signing-page.js';

export const SIGN_PREFIX = '/sign/';

export function handleSignPage(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  sandbox: SandboxRuntime,
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendMethodNotAllowed(res, req.method ?? '', path, 'GET, HEAD');
    return;
  }
  const id = path.slice(SIGN_PREFIX.length);
  const envelope = ULID_PATTERN.test(id) ? sandbox.store.envelopes.get(id.toUpperCase()) : undefined;
  if (!envelope) {
    sendHtml(res, 404, notFoundPage());
    return;
  }
  const details = envelopeDetails(envelope);
  const { template } = envelope;
  sendHtml(
    res,
    200,
    signingPage({
      envelopeId: envelope.id,
      organisation: template.organisation.name,
      templateName: template.name,
      templateId: template.id,
      status: envelope.status,
      fields: template.mergeTags.map((tag) => ({
        tag,
        value: Object.hasOwn(details.merge_data, tag) ? details.merge_data[tag] : undefined,
      })),
      signatory: details.signatory,
      createdAt: new Date(envelope.createdAt),
      expiresAt: new Date(envelope.expiresAt),
      expired: sandbox.now() >= envelope.expiresAt,
    }),
  );
}
