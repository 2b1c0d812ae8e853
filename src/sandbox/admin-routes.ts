// /_sandbox/*: the sandbox's own controls, for rehearsing token rotation and reading its numbers.
// They need the admin secret printed at start (never an organisation token) and are not part of
// the API: no --latency or failures here.
//
//   GET  /_sandbox/tokens          every organisation's tokens: names and revocation times, no values
//   POST /_sandbox/tokens          {"organisation": "...", "name": "..."} -> 201 with the new token, shown once
//   POST /_sandbox/tokens/revoke   {"token": "<value>"} or {"organisation": "...", "name": "..."}
//   GET  /_sandbox/stats           envelope count, memory (RSS) and uptime
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { sendUnauthenticated } from './create-route.js';
import { readJsonBody, sendJson, sendMethodNotAllowed } from './http-io.js';
import { describeIssuesIn } from './issues.js';
import type { SandboxRuntime } from './runtime.js';
import type { ApiToken } from './store.js';
import { bearerToken, hashToken, newToken, sameDigest } from './tokens.js';

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
  const lines = describeIssuesIn(body, issues);
  sendJson(res, 422, { message: `${lines[0] ?? 'invalid body'}. ${hint}`, errors: { body: lines } });
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
  const route = path.slice(ADMIN_PREFIX.length);
  const { store } = sandbox;
  const allow = (method: string): boolean => {
    if (req.method === method) return true;
    sendMethodNotAllowed(res, req.method ?? '', path, method);
    return false;
  };

  if (route === 'stats') {
    if (!allow('GET')) return;
    const memory = process.memoryUsage();
    sendJson(res, 200, {
      envelopes: store.envelopes.size,
      memory: { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed },
      uptime_seconds: Math.round((sandbox.now() - sandbox.startedAt) / 1000),
      faults: sandbox.faults.options,
      state_file: sandbox.stateFile?.path ?? null,
    });
    return;
  }

  if (route === 'tokens' && req.method === 'GET') {
    sendJson(res, 200, {
      organisations: store.organisations.map((org) => ({
        name: org.name,
        tokens: org.tokens.map(tokenView),
      })),
    });
    return;
  }

  if (route === 'tokens') {
    if (!allow('POST')) return;
    const body = await readJsonBody(req, res);
    if (!body.ok) return;
    const parsed = CreateTokenBody.safeParse(body.value);
    if (!parsed.success) {
      sendInvalid(
        res,
        body.value,
        parsed.error.issues,
        'Send {"organisation": "<name>", "name": "<token name>"}.',
      );
      return;
    }
    const org = store.findOrganisation(parsed.data.organisation);
    if (!org) {
      sendJson(res, 404, { message: `No organisation is named '${parsed.data.organisation}'.` });
      return;
    }
    if (org.tokens.some((t) => t.name === parsed.data.name)) {
      sendJson(res, 409, {
        message: `${org.name} already has a token named '${parsed.data.name}'; pick another name.`,
      });
      return;
    }
    const value = newToken(org.name);
    const { token, durable } = store.addToken(org, parsed.data.name, hashToken(value), sandbox.now());
    if (!(await saved(res, durable))) return;
    // Like the dashboard: the value is shown this once and cannot be retrieved later.
    sendJson(res, 201, { ...tokenView(token), token: value });
    return;
  }

  if (route === 'tokens/revoke') {
    if (!allow('POST')) return;
    const body = await readJsonBody(req, res);
    if (!body.ok) return;
    const parsed = RevokeTokenBody.safeParse(body.value);
    if (!parsed.success) {
      sendInvalid(
        res,
        body.value,
        parsed.error.issues,
        'Send {"token": "<value>"} or {"organisation": "<name>", "name": "<token name>"}.',
      );
      return;
    }
    const request = parsed.data;
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
    return;
  }

  sendJson(res, 404, {
    message: `Not found: ${req.method} ${path}. Admin routes: GET /_sandbox/tokens, POST /_sandbox/tokens, POST /_sandbox/tokens/revoke, GET /_sandbox/stats.`,
  });
}
