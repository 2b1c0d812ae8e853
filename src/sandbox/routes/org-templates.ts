// GET or POST /_sandbox/templates with an organisation's token: that organisation's templates and
// their merge tags, which the API itself has no endpoint for. `esign init` reads it to write a
// project file with every template's fields. Sandbox only, beside the admin routes, but it takes an
// organisation token (never the admin secret) and shows only that organisation's templates.
// POST is answered too, with an empty JSON body: esign's transport sends JSON with POST.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxRuntime } from '../runtime.js';
import { bearerToken } from '../state/tokens.js';
import { sendUnauthenticated } from './create.js';
import { sendJson, sendMethodNotAllowed } from './http-io.js';

export const ORG_TEMPLATES_PATH = '/_sandbox/templates';

export function handleOrgTemplates(req: IncomingMessage, res: ServerResponse, sandbox: SandboxRuntime): void {
  if (req.method !== 'GET' && req.method !== 'POST') {
    sendMethodNotAllowed(res, req.method ?? '', ORG_TEMPLATES_PATH, 'GET, POST');
    return;
  }
  const presented = bearerToken(req.headers.authorization);
  const token = presented === undefined ? undefined : sandbox.store.activeToken(presented);
  if (!token) {
    sendUnauthenticated(res);
    return;
  }
  const { organisation } = token;
  sendJson(res, 200, {
    organisation: organisation.name,
    templates: organisation.templates.map((template) => ({
      id: template.id,
      name: template.name,
      merge_tags: [...template.mergeTags],
    })),
  });
  req.resume(); // a POST body is not read: drained so the connection stays usable
}
