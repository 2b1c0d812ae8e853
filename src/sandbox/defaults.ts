// The sandbox's own defaults and choices, apart from its server so that the command table can show
// them without loading it.

/** Requests kept for GET /_sandbox/requests. */
export const DEFAULT_KEEP_REQUESTS = 10_000;
/** Memory the envelopes may take, in MiB. */
export const DEFAULT_ENVELOPE_BUDGET_MIB = 256;
export const RATE_LIMIT_HEADER_STYLES = ['x-ratelimit', 'ietf', 'structured', 'none'] as const;
