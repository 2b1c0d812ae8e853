// The settings' own defaults, apart from the resolver (settings.ts) so that the command table can
// show them without loading it.
export const DEFAULT_PROFILE = 'default';
export const DEFAULT_TIMEOUT_SECONDS = 30;
