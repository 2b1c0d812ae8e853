// Which response headers esign reads, and the server's request id among them. undici hands the
// headers over as raw name/value buffers: only the wanted ones are decoded, values as UTF-8.
/** Where services put their id for a request, in the order esign prefers them. */
const REQUEST_ID_HEADERS = [
  'x-request-id',
  'request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-correlation-id',
  'correlation-id',
  'x-ms-request-id',
  'x-github-request-id',
  'x-trace-id',
  'cf-ray',
] as const;

/** The rate-limit headers (see src/api/rate-limit-headers.ts). */
const RATE_LIMIT_HEADERS = [
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
] as const;

/** The response headers esign reads; decoding the rest would cost for nothing. */
const RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  ...RATE_LIMIT_HEADERS,
  ...REQUEST_ID_HEADERS,
]);
// A header whose name has none of these lengths is skipped without decoding its name.
const WANTED_LENGTHS = new Uint8Array(64);
for (const name of RESPONSE_HEADERS) WANTED_LENGTHS[name.length] = 1;

/** A server's request id longer than this is cut (it is shown in messages). */
const MAX_REQUEST_ID = 200;

/** The wanted headers of a raw name/value list, by lower-case name; repeats are joined with ", ". */
export function headerObject(raw: readonly Buffer[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const nameBuffer = raw[i] as Buffer;
    if (nameBuffer.length >= 64 || WANTED_LENGTHS[nameBuffer.length] === 0) continue;
    const name = nameBuffer.toString('latin1').toLowerCase();
    if (!RESPONSE_HEADERS.has(name)) continue;
    const value = (raw[i + 1] as Buffer).toString('utf8').trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** The server's request id among decoded headers, if it gave one. */
export function serverRequestId(headers: Record<string, string | undefined>): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    if (value) return value.length > MAX_REQUEST_ID ? value.slice(0, MAX_REQUEST_ID) : value;
  }
  return undefined;
}
