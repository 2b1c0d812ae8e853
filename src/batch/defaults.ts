// The batch's defaults the command table shows, apart from the policy (policy.ts) so that the table
// loads nothing of the engine.

/** The default of --max-rate-wait: how long one record may wait for the API's rate limit. */
export const DEFAULT_MAX_RATE_WAIT_MS = 15 * 60_000;
