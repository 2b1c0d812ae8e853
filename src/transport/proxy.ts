// The proxy a request goes through, decided once from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either
// case). A loopback origin never goes through a proxy. NO_PROXY is read as undici and curl read it:
// `*` turns proxies off, an entry matches its host and the host's subdomains (a leading `.` or
// `*.` is ignored), an entry with `:port` matches that port only. A malformed proxy variable is a
// usage error naming it, found before any request.
import type { Env } from '../context.js';
import { UsageError } from '../errors.js';
import { isLoopbackUrl } from './loopback.js';

export interface ProxyChoice {
  /** The proxy's URL, credentials included (only for undici; never print it). */
  uri: string;
  /** `host:port`, safe to show. */
  display: string;
  /** The variable it came from (HTTPS_PROXY, http_proxy, …). */
  variable: string;
}

export interface ProxySettings {
  http: ProxyChoice | undefined;
  https: ProxyChoice | undefined;
  noProxy: string;
}

const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks5:', 'socks:']);
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'socks5:': 1080, 'socks:': 1080 };

function pick(env: Env, upper: string): [string, string] | undefined {
  const lower = upper.toLowerCase();
  if (env[upper]) return [upper, env[upper] as string];
  if (env[lower]) return [lower, env[lower] as string];
  return undefined;
}

/** The value with any user:password@ part masked, for messages. */
function withoutCredentials(value: string): string {
  return value.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)?[^/@]*@/i,
    (_, scheme: string | undefined) => `${scheme ?? ''}***@`,
  );
}

function parseProxy(variable: string, value: string): ProxyChoice {
  const problem = (why: string) =>
    new UsageError(`${variable}: '${withoutCredentials(value)}' is not a proxy URL (${why}).`, {
      hint: `Give a full URL such as http://proxy.example.com:3128 (with user:password@ before the host if the proxy needs it), or unset ${variable}.`,
    });
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw problem('it cannot be read as a URL');
  }
  if (!PROXY_PROTOCOLS.has(url.protocol) || !url.hostname) {
    throw problem('it must start with http://, https:// or socks5:// and name a host');
  }
  const port = url.port || String(DEFAULT_PORTS[url.protocol]);
  return { uri: url.href, display: `${url.hostname}:${port}`, variable };
}

/** Reads and checks the proxy variables. Throws UsageError naming a malformed one. */
export function proxySettings(env: Env): ProxySettings {
  const https = pick(env, 'HTTPS_PROXY');
  const http = pick(env, 'HTTP_PROXY');
  return {
    http: http ? parseProxy(...http) : undefined,
    https: https ? parseProxy(...https) : http ? parseProxy(...http) : undefined,
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
  };
}

/** True when NO_PROXY says this host and port are reached directly. */
export function excludedByNoProxy(noProxy: string, hostname: string, port: number): boolean {
  const entries = noProxy.split(/[,\s]/).filter(Boolean);
  const host = hostname.toLowerCase();
  for (const entry of entries) {
    if (entry === '*') return true;
    const parsed = entry.match(/^(.+):(\d+)$/);
    const name = (parsed ? (parsed[1] as string) : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number(parsed[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy a request to `url` goes through, or undefined when it goes direct. */
export function proxyFor(url: URL, settings: ProxySettings): ProxyChoice | undefined {
  if (isLoopbackUrl(url)) return undefined;
  const choice = url.protocol === 'https:' ? settings.https : settings.http;
  if (!choice) return undefined;
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0;
  return excludedByNoProxy(settings.noProxy, url.hostname, port) ? undefined : choice;
}
