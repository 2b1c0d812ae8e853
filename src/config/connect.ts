// What most commands start with: the settings (flag > env > profile > default) and an API client.
import type { ApiClient } from '../api/client.js';
import type { Context } from '../context.js';
import {
  describeSource,
  type GlobalFlags,
  requireBaseUrl,
  requireToken,
  resolveSettings,
  type Settings,
} from './settings.js';
import { readConfigFile, warnIfReadableByOthers } from './store.js';

export interface CommonOptions {
  profile?: string;
  baseUrl?: string;
  timeout?: string;
  verbose?: boolean;
}

export function globalFlags(options: CommonOptions): GlobalFlags {
  return { profile: options.profile, baseUrl: options.baseUrl, timeout: options.timeout };
}

export function loadSettings(options: CommonOptions, ctx: Context): Settings {
  const settings = resolveSettings(globalFlags(options), ctx, readConfigFile);
  if (settings.token.value) ctx.addSecret(settings.token.value);
  warnIfReadableByOthers(settings.configDir, ctx);
  return settings;
}

export function verboseTrace(options: CommonOptions, ctx: Context): ((line: string) => void) | undefined {
  return options.verbose ? (line) => ctx.stderr.write(`${line}\n`) : undefined;
}

/** Resolves what a request needs (base URL, then token) and builds the client. */
export async function connect(
  settings: Settings,
  options: CommonOptions,
  ctx: Context,
  extra: { connections?: number } = {},
): Promise<ApiClient> {
  const baseUrl = requireBaseUrl(settings);
  const token = requireToken(settings);
  if (settings.tokenOverridesProfile) {
    ctx.stderr.write(
      `note: using the token from ESIGN_TOKEN; it overrides the token stored in profile '${settings.profile.value}'.\n`,
    );
  }
  const trace = verboseTrace(options, ctx);
  if (trace) {
    trace(`profile: ${settings.profile.value} (${describeSource(settings.profile.source)})`);
    trace(`base URL: ${baseUrl} (${describeSource(settings.baseUrl.source)})`);
    trace(`token: from ${describeSource(settings.token.source)}`);
    trace(`timeout: ${settings.timeoutMs.value / 1000} s (${describeSource(settings.timeoutMs.source)})`);
    trace(`config file: ${settings.configPath}`);
  }
  const { ApiClient } = await import('../api/client.js');
  return new ApiClient({
    baseUrl,
    token,
    tokenSource: settings.token.source,
    timeoutMs: settings.timeoutMs.value,
    env: ctx.env,
    userAgent: `esign/${ctx.version}`,
    now: () => ctx.now(),
    trace,
    ...extra,
  });
}
