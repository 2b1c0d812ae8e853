// What counts as loopback, decided once: `localhost`, all of 127.0.0.0/8, ::1 (and IPv4-mapped
// 127.x as ::ffff:7f…). The same answer lets a base URL use plain http:// and keeps a request off
// any proxy: a loopback origin is never sent through HTTP(S)_PROXY.
import { isIPv4, isIPv6 } from 'node:net';

/** True for a loopback host name or address, bracketed or not (`[::1]`, `::1`, `127.0.0.2`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
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
