// ULIDs (https://github.com/ulid/spec): a 48-bit millisecond timestamp and 80 random bits, written as
// 26 characters of Crockford base-32. Ids made within one millisecond count up from the first one,
// so they sort in creation order.
import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
const CROCKFORD_CODES = Uint8Array.from(CROCKFORD, (c) => c.charCodeAt(0));

export type UlidFactory = (timeMs?: number) => string;

/** Returns a ULID maker that is monotonic: never the same id twice, never going back in time. */
export function createUlidFactory(): UlidFactory {
  // Random bytes come from a pool: one randomFillSync per 256 new milliseconds, not one per id.
  const pool = Buffer.alloc(RANDOM_CHARS * 256);
  let poolOffset = pool.length;
  const randomDigits = new Uint8Array(RANDOM_CHARS);
  const chars = Buffer.alloc(TIME_CHARS + RANDOM_CHARS);
  let lastTime = -1;

  const freshRandom = () => {
    if (poolOffset === pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    // The low five bits of a uniform byte are uniform: 16 of them make the 80 random bits.
    for (let i = 0; i < RANDOM_CHARS; i++) randomDigits[i] = (pool[poolOffset + i] as number) & 31;
    poolOffset += RANDOM_CHARS;
  };

  /** Adds one to the random part; false when it was all ones (2^80 ids in one millisecond). */
  const increment = (): boolean => {
    for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
      if ((randomDigits[i] as number) < 31) {
        randomDigits[i] = (randomDigits[i] as number) + 1;
        return true;
      }
      randomDigits[i] = 0;
    }
    return false;
  };

  return (timeMs = Date.now()) => {
    if (timeMs > lastTime) {
      lastTime = timeMs;
      freshRandom();
    } else if (!increment()) {
      lastTime++;
      freshRandom();
    }
    // Characters go into a byte array and become one flat string: concatenating 26 one-character
    // strings would leave a tree of 26 string nodes per id in memory.
    let time = lastTime;
    for (let i = TIME_CHARS - 1; i >= 0; i--) {
      chars[i] = CROCKFORD_CODES[time % 32] as number;
      time = Math.floor(time / 32);
    }
    for (let i = 0; i < RANDOM_CHARS; i++)
      chars[TIME_CHARS + i] = CROCKFORD_CODES[randomDigits[i] as number] as number;
    return chars.toString('latin1');
  };
}

/** The millisecond timestamp a ULID carries. */
export function ulidTime(id: string): number {
  let time = 0;
  for (let i = 0; i < TIME_CHARS; i++) time = time * 32 + CROCKFORD.indexOf(id.charAt(i).toUpperCase());
  return time;
}
