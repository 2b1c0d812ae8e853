// Reading requests and writing answers on node:http, the way every sandbox route does it: JSON
// answers with a `message`, bodies read with a size limit, JSON content types only.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { parseJsonText } from '../../text/json.js';

/** Request bodies over 1 MiB are refused with 413. */
const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    // The page needs nothing but its own inline style: no scripts, no frames, no outside requests.
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(html);
}

export function sendMethodNotAllowed(res: ServerResponse, method: string, path: string, allow: string): void {
  sendJson(
    res,
    405,
    { message: `Method ${method} is not allowed on ${path}; use ${allow.replace(', ', ' or ')}.` },
    { allow },
  );
}

/** application/json, or any application/<x>+json, with any parameters. */
function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const type = header.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The body, 'too_large' past `limit` bytes, or 'aborted' when the client went away. */
export function readBody(
  req: IncomingMessage,
  limit = MAX_BODY_BYTES,
): Promise<Buffer | 'too_large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | 'too_large' | 'aborted') => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish('too_large');
      else chunks.push(chunk);
    };
    const onEnd = () => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    const onAbort = () => finish('aborted');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onAbort);
  });
}

export type JsonBody = { ok: true; value: unknown } | { ok: false };

/**
 * Reads a JSON request body. On 415 (not JSON), 413 (too large) or 400 (not parseable) the answer
 * is sent here and `ok` is false; it is also false when the client went away. `onText` sees the
 * body's text (the sandbox's request recorder).
 */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  onText?: (text: string) => void,
): Promise<JsonBody> {
  const type = req.headers['content-type'];
  if (!isJsonContentType(type)) {
    sendJson(res, 415, {
      message:
        type === undefined
          ? 'The request has no Content-Type; send the body as JSON with Content-Type: application/json.'
          : `Unsupported Content-Type ${JSON.stringify(type)}; send the body as JSON with Content-Type: application/json.`,
    });
    return { ok: false };
  }
  const body = await readBody(req);
  if (body === 'aborted') return { ok: false };
  if (body === 'too_large') {
    // The rest of the body is not read: close the connection after this answer.
    sendJson(
      res,
      413,
      { message: `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).` },
      { connection: 'close' },
    );
    return { ok: false };
  }
  const text = body.toString('utf8');
  onText?.(text);
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    sendJson(res, 400, { message: `The request body is not valid JSON: ${parsed.problem}.` });
    return { ok: false };
  }
  return { ok: true, value: parsed.value };
}

/** The path of a request target, without the query string. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** `Bearer [redacted]`: the scheme stays (a test may check it), the credentials go. */
function redacted(value: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,30} /.exec(value)?.[0] ?? '';
  return `${scheme}[redacted]`;
}

/** The request's headers as GET /_sandbox/requests shows them: credentials redacted. */
export function redactedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const copy: Record<string, string | string[] | undefined> = { ...headers };
  if (typeof copy.authorization === 'string') copy.authorization = redacted(copy.authorization);
  if (typeof copy['proxy-authorization'] === 'string')
    copy['proxy-authorization'] = redacted(copy['proxy-authorization']);
  return copy;
}
