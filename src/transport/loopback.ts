// What counts as loopback, decided once: the name `localhost`, which esign resolves itself to
// 127.0.0.1 (RFC 6761: never asked of DNS), all of 127.0.0.0/8, ::1 (and IPv4-mapped 127.x as
// ::ffff:7f…). The same answer lets a base URL use plain http:// and keeps a request off any proxy:
// a loopback origin is never sent through HTTP(S)_PROXY. Any other name, `localhost.` included (an
// absolute name, which a resolver may well send to DNS), is not loopback: its address is whatever
// the resolver says, and a token over plain http would go there in clear text.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIPv4, isIPv6 } from 'node:net';

/** True for a loopback host name or address, bracketed or not (`[::1]`, `::1`, `127.0.0.2`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  let name = host.toLowerCase();
  if (name === 'localhost') return true;
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (isIPv4(name)) return name.startsWith('127.');
  if (!isIPv6(name)) return false;
  const normalized = new URL(`http://[${name}]`).hostname;
  return normalized === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(normalized);
}

/** True when a URL's host is loopback. */
export function isLoopbackUrl(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

/** The origin of a base URL (as the settings hold it) whose host is loopback; undefined for any other, none, or one that is not a URL. */
export function loopbackOrigin(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    return isLoopbackUrl(url) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family: number,
) => void;

/**
 * The connector's name lookup: `localhost` is 127.0.0.1, resolved here and never asked of the
 * system's resolver (whose hosts file or DNS could say otherwise); every other name as Node resolves
 * it.
 */
export function lookupHost(host: string, options: LookupOptions, callback: LookupCallback): void {
  if (host.toLowerCase() !== 'localhost') {
    process.getBuiltinModule('node:dns').lookup(host, options, callback);
    return;
  }
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }], 4);
  else callback(null, '127.0.0.1', 4);
}
