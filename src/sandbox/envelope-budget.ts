// How much memory the sandbox's envelopes may take, decided once: what was asked (--envelope-budget,
// 256 MiB by default), but never more than this process's heap can hold with the rest of the
// sandbox. A Node started with a small heap (NODE_OPTIONS=--max-old-space-size=160) would otherwise
// be killed by V8 long before the budget answers 507, losing every envelope it held in memory.
import { getHeapStatistics } from 'node:v8';

const MIB = 1024 * 1024;

/**
 * Of V8's heap limit, what is not the envelopes': its young generation (48 MiB of the limit beside
 * --max-old-space-size) and the rest of the sandbox (the request log's 16 MiB, bodies in flight).
 */
const HEAP_RESERVE_BYTES = 64 * MIB;

/**
 * The envelopes may take a quarter of what remains: writing the --state snapshot copies every
 * envelope twice more while they are held (its lines joined, then written), and restoring one
 * holds the file's text, its parsed values and the envelopes at once; the last quarter is V8's
 * room to collect garbage in.
 */
const HEAP_SHARE = 4;

export interface EnvelopeBudget {
  /** The most bytes of envelopes kept (envelopeBytes): past it a create is answered 507. */
  readonly bytes: number;
  /** What was asked. */
  readonly askedBytes: number;
  /** V8's heap limit for this process (heap_size_limit). */
  readonly heapLimitBytes: number;
  /** True when the heap, not what was asked, set `bytes`. */
  readonly byHeap: boolean;
}

/** The most the envelopes may take in a heap of `heapLimitBytes`, in whole MiB (at least 1). */
export function heapEnvelopeBytes(heapLimitBytes: number): number {
  const share = Math.floor((heapLimitBytes - HEAP_RESERVE_BYTES) / HEAP_SHARE / MIB);
  return Math.max(1, share) * MIB;
}

/**
 * The young generation the reserve above counts (as Node 20 and 22 size it beside
 * --max-old-space-size). Node 24 sizes it up to 192 MiB and Node 26 up to 96 MiB, which V8 counts in
 * heap_size_limit although envelopes never live there: the old generation is what holds them.
 */
const YOUNG_GENERATION_BYTES = 48 * MIB;

/**
 * The old generation's limit the process was started with, when it was given: the last
 * --max-old-space-size on the command line or in NODE_OPTIONS (the command line wins).
 */
export function oldSpaceFlagBytes(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): number | undefined {
  let mib: number | undefined;
  for (const arg of [...nodeOptions.split(/\s+/), ...execArgv]) {
    const given = /^--max[-_]old[-_]space[-_]size=(\d+)$/.exec(arg);
    if (given) mib = Number(given[1]);
  }
  return mib === undefined ? undefined : mib * MIB;
}

/**
 * The heap this process may fill, as the reserve above counts it: V8's heap_size_limit, but no more
 * than the old generation's flag and a young generation of 48 MiB where the flag is given (the same
 * on every Node line: under --max-old-space-size=160, 208 MiB).
 */
export function heapLimit(
  limit: number = getHeapStatistics().heap_size_limit,
  oldSpace: number | undefined = oldSpaceFlagBytes(),
): number {
  return oldSpace === undefined ? limit : Math.min(limit, oldSpace + YOUNG_GENERATION_BYTES);
}

/** The budget for `askedBytes` in this process (or in a heap of `heapLimitBytes`). */
export function envelopeBudget(askedBytes: number, heapLimitBytes: number = heapLimit()): EnvelopeBudget {
  const heapBytes = heapEnvelopeBytes(heapLimitBytes);
  const byHeap = heapBytes < askedBytes;
  return { bytes: byHeap ? heapBytes : askedBytes, askedBytes, heapLimitBytes, byHeap };
}
