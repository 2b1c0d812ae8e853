// What an API says about its rate limit, read from whichever headers it uses:
// - Retry-After: delta-seconds or an HTTP date (RFC 9110);
// - X-RateLimit-Limit / -Remaining / -Reset (the de-facto headers; Reset is Unix seconds on some
//   APIs and seconds from now on others);
// - RateLimit-Limit / -Remaining / -Reset (the IETF draft's early versions; Reset in seconds from now);
// - RateLimit and RateLimit-Policy as structured fields (draft-ietf-httpapi-ratelimit-headers):
//   `RateLimit: "default";r=50;t=30` and `RateLimit-Policy: "default";q=100;w=60`, and the
//   intermediate dictionary form `RateLimit: limit=100, remaining=50, reset=30`.
// Pure: no clock of its own, nothing thrown; a value it cannot read is left out.

export type RateLimitHeaders = Readonly<Record<string, string | undefined>>;

export interface RateLimitInfo {
  /** Requests allowed in the window (the quota). */
  limit?: number;
  /** Requests left in the current window. */
  remaining?: number;
  /** When the window resets, as milliseconds since the epoch. */
  resetAt?: number;
  /** How long the server asks to wait (Retry-After), in milliseconds from `now`. */
  retryAfterMs?: number;
  /** The window's length, when a policy names it. */
  windowMs?: number;
  /** The policy's name, when the structured fields give one. */
  policy?: string;
}

/** A reset above this is an absolute time (Unix seconds; 1e9 s is 2001), below it seconds from now. */
const EPOCH_SECONDS_FLOOR = 1e9;
/** Above this an absolute reset is in milliseconds rather than seconds (1e12 ms is 2001). */
const EPOCH_MILLISECONDS_FLOOR = 1e12;

const INTEGER = /^\d{1,15}$/;
const NUMBER = /^\d{1,15}(\.\d{1,6})?$/;

function integer(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return INTEGER.test(trimmed) ? Number(trimmed) : undefined;
}

function seconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return NUMBER.test(trimmed) ? Number(trimmed) : undefined;
}

/** The first member of a list header (`100, 100;w=60` → `100`), and its parameters. */
function firstListMember(value: string): { value: string; params: Map<string, string> } {
  const [first = ''] = splitOutsideQuotes(value, ',');
  const [head = '', ...params] = splitOutsideQuotes(first, ';');
  return { value: head.trim(), params: parameters(params) };
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\' && quoted) i++;
    else if (char === '"') quoted = !quoted;
    else if (char === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parameters(parts: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of parts) {
    const at = part.indexOf('=');
    const key = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase();
    if (key && !map.has(key)) map.set(key, at === -1 ? '?1' : unquote(part.slice(at + 1).trim()));
  }
  return map;
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"')
    ? text.slice(1, -1).replace(/\\(.)/g, '$1')
    : text;
}

interface StructuredItem {
  name: string;
  params: Map<string, string>;
}

/** A structured-field list: `"a";r=1;t=2, "b";r=3`. Items without a name get ''. */
function structuredList(value: string): StructuredItem[] {
  return splitOutsideQuotes(value, ',')
    .map((member) => {
      const [head = '', ...params] = splitOutsideQuotes(member, ';');
      return { name: unquote(head.trim()), params: parameters(params) };
    })
    .filter((item) => item.name !== '' || item.params.size > 0);
}

/** The dictionary form: `limit=100, remaining=50, reset=30`. */
function dictionary(value: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const member of splitOutsideQuotes(value, ',')) {
    const [head = ''] = splitOutsideQuotes(member, ';');
    const at = head.indexOf('=');
    if (at === -1) continue;
    const key = head.slice(0, at).trim().toLowerCase();
    if (key && !map.has(key)) map.set(key, unquote(head.slice(at + 1).trim()));
  }
  return map;
}

function isDictionary(value: string): boolean {
  const [first = ''] = splitOutsideQuotes(value, ',');
  const [head = ''] = splitOutsideQuotes(first, ';');
  return /^\s*[a-z][a-z0-9_-]*\s*=/i.test(head);
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date. */
export function parseRetryAfterHeader(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.split(',')[0]?.trim() ?? '';
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(value.trim());
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** X-RateLimit-Reset: Unix seconds, Unix milliseconds or seconds from now, told apart by size. */
export function parseResetValue(value: string | undefined, now: number): number | undefined {
  const reset = seconds(value);
  if (reset === undefined) return undefined;
  if (reset >= EPOCH_MILLISECONDS_FLOOR) return Math.round(reset);
  if (reset >= EPOCH_SECONDS_FLOOR) return Math.round(reset * 1000);
  return now + Math.round(reset * 1000);
}

/** Reads every rate-limit header in `headers` (lower-case names). `now`: milliseconds since the epoch, or a Date. */
export function parseRateLimit(headers: RateLimitHeaders, now: number | Date): RateLimitInfo {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const info: RateLimitInfo = {};
  const set = <K extends keyof RateLimitInfo>(key: K, value: RateLimitInfo[K] | undefined) => {
    if (value !== undefined && info[key] === undefined) info[key] = value;
  };

  set('retryAfterMs', parseRetryAfterHeader(headers['retry-after'], nowMs));

  // The newest form first: a server that sends several describes the same limit in each.
  const structured = headers.ratelimit;
  const policies = headers['ratelimit-policy'];
  if (structured !== undefined && isDictionary(structured)) {
    const fields = dictionary(structured);
    set('limit', integer(fields.get('limit')));
    set('remaining', integer(fields.get('remaining')));
    const reset = seconds(fields.get('reset'));
    if (reset !== undefined) set('resetAt', nowMs + Math.round(reset * 1000));
    if (policies !== undefined) {
      const { value, params } = firstListMember(policies);
      set('limit', integer(value));
      const window = seconds(params.get('w'));
      if (window !== undefined) set('windowMs', Math.round(window * 1000));
    }
  } else {
    const items = structured === undefined ? [] : structuredList(structured);
    const policyItems = policies === undefined ? [] : structuredList(policies);
    // Of several limits, the one with the fewest requests left binds (the longest wait on a tie).
    let binding:
      | { item: StructuredItem; remaining: number | undefined; reset: number | undefined }
      | undefined;
    for (const item of items) {
      const remaining = integer(item.params.get('r'));
      const reset = seconds(item.params.get('t'));
      if (remaining === undefined && reset === undefined) continue;
      const better =
        binding === undefined ||
        (remaining ?? Number.POSITIVE_INFINITY) < (binding.remaining ?? Number.POSITIVE_INFINITY) ||
        (remaining === binding.remaining && (reset ?? 0) > (binding.reset ?? 0));
      if (better) binding = { item, remaining, reset };
    }
    if (binding) {
      set('remaining', binding.remaining);
      if (binding.reset !== undefined) set('resetAt', nowMs + Math.round(binding.reset * 1000));
      if (binding.item.name) set('policy', binding.item.name);
    }
    const policy =
      policyItems.find((item) => binding !== undefined && item.name === binding.item.name) ??
      (binding === undefined || policyItems.length === 1 ? policyItems[0] : undefined);
    if (policy && (policy.params.has('q') || policy.params.has('w'))) {
      set('limit', integer(policy.params.get('q')));
      const window = seconds(policy.params.get('w'));
      if (window !== undefined) set('windowMs', Math.round(window * 1000));
      if (policy.name) set('policy', policy.name);
    }
  }

  // The IETF draft's separate fields: RateLimit-Limit may carry a policy (`100, 100;w=60`).
  const ietfLimit = headers['ratelimit-limit'];
  if (ietfLimit !== undefined) {
    const { value, params } = firstListMember(ietfLimit);
    set('limit', integer(value));
    const window = seconds(params.get('w') ?? listWindow(ietfLimit, value));
    if (window !== undefined) set('windowMs', Math.round(window * 1000));
  }
  set('remaining', integer(headers['ratelimit-remaining']?.split(',')[0]));
  const ietfReset = seconds(headers['ratelimit-reset']?.split(',')[0]);
  if (ietfReset !== undefined) set('resetAt', nowMs + Math.round(ietfReset * 1000));

  // The de-facto headers.
  set('limit', integer(headers['x-ratelimit-limit']?.split(',')[0]));
  set('remaining', integer(headers['x-ratelimit-remaining']?.split(',')[0]));
  set('resetAt', parseResetValue(headers['x-ratelimit-reset']?.split(',')[0], nowMs));
  return info;
}

/** The window of the policy in a RateLimit-Limit list whose quota is the current limit (`10, 10;w=1, 50;w=60` → 1). */
function listWindow(value: string, limit: string): string | undefined {
  for (const member of splitOutsideQuotes(value, ',').slice(1)) {
    const [quota = '', ...params] = splitOutsideQuotes(member, ';');
    const window = parameters(params).get('w');
    if (window !== undefined && quota.trim() === limit) return window;
  }
  return undefined;
}

/** How long until the API accepts requests again, as far as the headers say (0 when now). */
export function waitFromRateLimit(info: RateLimitInfo, now: number | Date): number | undefined {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  if (info.retryAfterMs !== undefined) return info.retryAfterMs;
  if (info.remaining === 0 && info.resetAt !== undefined) return Math.max(0, info.resetAt - nowMs);
  return undefined;
}
