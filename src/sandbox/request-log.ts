// The request log behind GET /_sandbox/requests: the last requests received, capped in count
// (--keep-requests) and in bytes, so that no stream of requests can grow it until the sandbox dies.
// Anyone who can reach the port can send a 1 MiB body without a token: of such a body only a short
// prefix is kept (marked truncated, with its full length), enough to see what was sent.
import { StringDecoder } from 'node:string_decoder';
import { RingLog } from './ring-log.js';
import type { ReceivedRequest } from './runtime.js';

/**
 * The most bytes the log keeps, about. 10,000 requests of an esign batch (the default count, each
 * about 1 KiB with its headers) fit in 10 MiB; 16 MiB leaves room for larger merge data, and holds
 * 16 bodies of the API's largest (1 MiB). A Node process has far more than that to spare, and a
 * test that lists the log gets it in one answer of that size at most.
 */
export const DEFAULT_KEEP_REQUEST_BYTES = 16 * 1024 * 1024;

/** Of a body sent without a usable token, this many bytes are kept. */
const UNAUTHENTICATED_BODY_BYTES = 1024;

/** What an entry costs besides its texts: the object, its fields, the header object's slots. */
const ENTRY_OVERHEAD_BYTES = 256;

/** About how many bytes `entry` holds: its texts (path, headers, body) and a fixed overhead. */
function requestSize(entry: ReceivedRequest): number {
  let size = ENTRY_OVERHEAD_BYTES + entry.method.length + entry.path.length + entry.body.length;
  for (const name in entry.headers) {
    const value = entry.headers[name];
    size += name.length + (Array.isArray(value) ? value.join('').length : (value?.length ?? 0));
  }
  return size;
}

export function createRequestLog(capacity: number, maxBytes: number): RingLog<ReceivedRequest> {
  return new RingLog(capacity, { maxBytes, sizeOf: requestSize });
}

/**
 * Keeps the body of a listed request: whole when the request carried a usable token, else its
 * first UNAUTHENTICATED_BODY_BYTES (whole characters only), marked truncated with its full length.
 */
export function keepBody(
  log: RingLog<ReceivedRequest>,
  entry: ReceivedRequest,
  text: string,
  authenticated: boolean,
): void {
  const bytes = Buffer.byteLength(text);
  entry.bodyBytes = bytes;
  if (authenticated || bytes <= UNAUTHENTICATED_BODY_BYTES) {
    entry.body = text;
    entry.bodyTruncated = false;
  } else {
    // The decoder holds back a character cut in two: the prefix ends on a whole one.
    entry.body = new StringDecoder('utf8').write(Buffer.from(text).subarray(0, UNAUTHENTICATED_BODY_BYTES));
    entry.bodyTruncated = true;
  }
  log.resized(entry);
}
