// The id esign gives each request (`x-request-id`), so that a failure esign reports and the
// server's logs can be matched when the server names no id of its own.
//
// It is a correlation id: not a secret, not an idempotency key, never relied on to be unguessable.
// So it comes from Math.random (seeded by V8 from the system's random source at each start), laid
// out as a version 4 UUID, rather than from node:crypto, which a create would load for this alone
// (~4 ms of its start: every crypto module, x509 and WebCrypto included).

/** The hex digits, as character codes. */
const HEX = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

/** Where an id's characters are made: 8-4-4-4-12, its dashes and its version digit (4) in place. */
const ID = Buffer.from('00000000-0000-4000-8000-000000000000', 'latin1');
/** The places of its random digits (all but the dashes and the version). */
const RANDOM_AT = Array.from(ID.keys()).filter((at) => ![8, 13, 14, 18, 23].includes(at));

/**
 * A fresh request id: 32 hex digits as 8-4-4-4-12, version 4, variant 10xx. Eight digits come from
 * each draw of 32 bits, and go into bytes that become the id's one string: a batch makes an id a
 * request, and a draw and a new string for each digit left some 1.5 KB of garbage each time, more
 * than any other step of a request.
 */
export function newRequestId(): string {
  let bits = 0;
  let left = 0;
  for (const at of RANDOM_AT) {
    if (left === 0) {
      bits = (Math.random() * 0x100000000) >>> 0;
      left = 8;
    }
    // The variant's digit takes two bits only: 8, 9, a or b.
    const digit = at === 19 ? 8 | (bits & 3) : bits & 15;
    ID[at] = HEX[digit] as number;
    bits >>>= 4;
    left--;
  }
  return ID.toString('latin1');
}
