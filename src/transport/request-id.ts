// The id esign gives each request (`x-request-id`), so that a failure esign reports and the
// server's logs can be matched when the server names no id of its own.
//
// It is a correlation id: not a secret, not an idempotency key, never relied on to be unguessable.
// So it comes from Math.random (seeded by V8 from the system's random source at each start), laid
// out as a version 4 UUID, rather than from node:crypto, which a create would load for this alone
// (~4 ms of its start: every crypto module, x509 and WebCrypto included).

const HEX = '0123456789abcdef';

/** A fresh request id: 32 hex digits as 8-4-4-4-12, version 4, variant 10xx. */
export function newRequestId(): string {
  let id = '';
  for (let i = 0; i < 32; i++) {
    if (i === 8 || i === 12 || i === 16 || i === 20) id += '-';
    const digit =
      i === 12 ? 4 : i === 16 ? 8 + Math.floor(Math.random() * 4) : Math.floor(Math.random() * 16);
    id += HEX[digit];
  }
  return id;
}
