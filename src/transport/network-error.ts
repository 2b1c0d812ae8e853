// What a failed request means to the user: whether it may have reached the server (undici announces
// a request just before it writes it), and what went wrong in plain words, with a hint.
import { InterruptedError, NetworkError } from '../errors.js';
import type { ProxyChoice } from './proxy.js';

/** The code of the error the request's overall deadline aborts it with. */
export const DEADLINE = 'ESIGN_DEADLINE';

/** The Node.js versions that read NODE_USE_SYSTEM_CA=1 (22.19+, 24.6+, 25+). */
export function nodeReadsSystemCaVariable(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 25 || (major === 24 && minor >= 6) || (major === 22 && minor >= 19);
}

function tlsHint(): string {
  const system = nodeReadsSystemCaVariable()
    ? ', or set NODE_USE_SYSTEM_CA=1 to trust the certificates your system trusts'
    : '';
  return `If your network inspects TLS (a corporate proxy or security software), give Node.js its root certificate: NODE_EXTRA_CA_CERTS=/path/to/corporate-ca.pem${system}. Otherwise, check the base URL.`;
}

// Errors raised before a byte of the request could reach the server.
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** Certificate verification failures: the ones a TLS-inspecting network causes. */
const UNVERIFIED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

const NOT_FOUND = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL']);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (error as { code?: string })?.code;
}

/**
 * Maps a failure to a NetworkError that says whether the request may have reached the server.
 * undici announces a request (onRequestStart) just before it writes it: any failure before that
 * (a refused connection, a proxy refusing the tunnel, a header undici will not send) sent nothing;
 * any failure after it may have followed the request out, whatever its code (a route lost
 * mid-request shows up as EHOSTUNREACH, say).
 */
export function classifyNetworkError(
  error: unknown,
  url: URL,
  exchange: {
    signal?: AbortSignal | undefined;
    /** The request was announced (it may have left). */
    writing?: boolean;
    requestId?: string | undefined;
    proxy?: ProxyChoice | undefined;
  } = {},
): Error {
  const { signal, writing = false, requestId, proxy } = exchange;
  if (signal?.aborted)
    return new InterruptedError(
      writing
        ? 'Interrupted while waiting for the API. If the request had reached the server, the envelope may exist.'
        : 'Interrupted before the request was sent; nothing was sent.',
      { mayHaveSent: writing },
    );
  const code = errorCode(error) ?? 'unknown';
  const detail = (error as Error)?.message ?? String(error);
  if (!writing) return notSent(error, { code, detail, url, proxy });
  const host = url.host;
  const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === DEADLINE;
  const id = requestId ? `request id ${requestId}` : '';
  const via = proxy ? ` through the proxy ${proxy.display}` : '';
  return new NetworkError(
    timedOut
      ? `Network error: ${host} did not answer in time after the request was sent${via}${id ? ` (${id})` : ''}.`
      : `Network error: the connection to ${host} broke after the request was sent${via} (${code}${id ? `, ${id}` : ''}).`,
    true,
    {
      requestId,
      hint: 'The outcome is unknown: the envelope may have been created. Check before you try again, or you may send the signatory two envelopes.',
      cause: error,
      details: [detail],
    },
  );
}

/** A failure before anything was written, as the reasoning that names it needs it. */
interface Failure {
  code: string;
  detail: string;
  url: URL;
  proxy: ProxyChoice | undefined;
}

/** What went wrong, and what to do about it. */
interface Reason {
  why: string;
  hint: string;
}

function isTlsCode(code: string): boolean {
  return code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL');
}

/** Each reading of a failure in turn, most specific first; the first that applies names it. */
const READINGS: ReadonlyArray<(failure: Failure) => Reason | undefined> = [
  deadlineReason,
  tunnelReason,
  proxyUnreachableReason,
  tlsReason,
  unreachableReason,
];

function notSent(error: unknown, failure: Failure): NetworkError {
  let reason: Reason | undefined;
  for (const reading of READINGS) {
    reason = reading(failure);
    if (reason) break;
  }
  const { why, hint } = reason ?? unsendableReason(failure);
  return new NetworkError(`Network error: ${why}. Nothing was sent.`, false, {
    hint,
    cause: error,
    details: [failure.detail],
  });
}

function deadlineReason({ code, url, proxy }: Failure): Reason | undefined {
  if (code !== DEADLINE) return undefined;
  return {
    why: proxy
      ? `connecting to ${url.host} through the proxy ${proxy.display} timed out`
      : `connecting to ${url.host} timed out`,
    hint: 'Check the base URL, your connection and any proxy settings (HTTPS_PROXY, NO_PROXY), or raise --timeout.',
  };
}

function tunnelReason({ detail, url, proxy }: Failure): Reason | undefined {
  const tunnel = /Proxy response \((\d{3})\)/.exec(detail)?.[1];
  if (!proxy || !tunnel) return undefined;
  if (tunnel === '407')
    return {
      why: `the proxy ${proxy.display} (from ${proxy.variable}) wants credentials (407 Proxy Authentication Required)`,
      hint: `Put the proxy's user name and password in ${proxy.variable} (http://user:password@host:port), or ask your network team.`,
    };
  return {
    why: `the proxy ${proxy.display} (from ${proxy.variable}) refused the tunnel to ${url.host} (${tunnel})`,
    hint: `Check ${proxy.variable}, or list ${url.hostname} in NO_PROXY if it must be reached directly.`,
  };
}

function proxyUnreachableReason({ code, url, proxy }: Failure): Reason | undefined {
  if (!proxy || isTlsCode(code)) return undefined;
  if (!NOT_SENT.has(code) && code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') return undefined;
  const source = `${proxy.display} (from ${proxy.variable})`;
  let why = `the proxy ${source} could not be reached (${code})`;
  if (code === 'ECONNREFUSED') why = `the connection to the proxy ${source} was refused`;
  else if (NOT_FOUND.has(code)) why = `the proxy host ${source} could not be found`;
  return {
    why,
    hint: `Check ${proxy.variable}, or list ${url.hostname} in NO_PROXY if it must be reached directly.`,
  };
}

function tlsReason({ code, url }: Failure): Reason | undefined {
  if (!isTlsCode(code)) return undefined;
  if (UNVERIFIED.has(code))
    return { why: `the certificate of ${url.host} could not be verified (${code})`, hint: tlsHint() };
  return {
    why: `the TLS connection to ${url.host} failed (${code})`,
    hint: 'Check the base URL (https:// for a TLS server), your connection and any proxy settings (HTTPS_PROXY, NO_PROXY).',
  };
}

function unreachableReason({ code, url }: Failure): Reason | undefined {
  if (!NOT_SENT.has(code)) return undefined;
  if (code === 'ECONNREFUSED')
    return {
      why: `the connection to ${url.host} was refused`,
      hint: 'Is the base URL right, and is the server (or `esign sandbox`) running?',
    };
  let why = `${url.host} could not be reached (${code})`;
  if (NOT_FOUND.has(code)) why = `the host ${url.hostname} could not be found`;
  else if (code === 'UND_ERR_CONNECT_TIMEOUT') why = `connecting to ${url.host} timed out`;
  return { why, hint: 'Check the base URL, your connection and any proxy settings (HTTPS_PROXY, NO_PROXY).' };
}

function unsendableReason({ code, url, proxy }: Failure): Reason {
  return {
    why: `the request to ${url.host} could not be sent (${code})`,
    hint: proxy
      ? `Check the proxy ${proxy.display} (from ${proxy.variable}) and the token (it must be printable ASCII).`
      : 'Check the token (it must be printable ASCII) and the base URL; run with --verbose for details.',
  };
}
