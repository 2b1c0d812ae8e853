// Moved to src/batch/pacing/ (one file per regime, the composition in rate-limiter.ts, the Pacer
// in pacer.ts). This re-export keeps the importers that are not moved yet compiling; import from
// ./pacing/ instead, and delete this file when none is left.

export { Pacer, type Turn } from './pacing/pacer.js';
export { type LimiterOptions, type LimiterState, RateLimiter } from './pacing/rate-limiter.js';
