// What an API says about its rate limit, read from whichever headers it uses:
// - Retry-After: delta-seconds or an HTTP date (RFC 9110);
// - X-RateLimit-Limit / -Remaining / -Reset (the de-facto headers; Reset is Unix seconds on some
//   APIs and seconds from now on others);
// - RateLimit-Limit / -Remaining / -Reset (the IETF draft's early versions; Reset in seconds from now);
// - RateLimit and RateLimit-Policy as structured fields (draft-ietf-httpapi-ratelimit-headers):
//   `RateLimit: "default";r=50;t=30` and `RateLimit-Policy: "default";q=100;w=60`, and the
//   intermediate dictionary form `RateLimit: limit=100, remaining=50, reset=30`.
// Pure: no clock of its own, nothing thrown; a value it cannot read is left out. The structured
// fields are parsed by an RFC 9651 parser (`structured-headers`); what they mean is decided here.
import {
  type BareItem,
  type Item,
  type Parameters,
  parseDictionary,
  parseList,
  Token,
} from 'structured-headers';

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
/**
 * The most seconds any time here is read as (about 31,700 years): an absurd Retry-After or reset
 * still comes out as a number, which the pacer clamps to a timer Node can set, never Infinity.
 */
const MAX_SECONDS = 1e12;

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

/** Seconds as milliseconds, at most MAX_SECONDS' worth. */
function secondsToMs(value: number): number {
  return Math.round(Math.min(value, MAX_SECONDS) * 1000);
}

// Structured fields (RFC 9651), read by `structured-headers`: a field that is not valid as a whole
// is ignored as a whole, as the RFC says; within a valid one, a member of the wrong type is left
// out. What the members mean is esign's dialect of the draft's versions, below.

/** A whole number of requests: an Integer of the field, not negative. */
function count(value: BareItem | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A number of seconds: an Integer or Decimal of the field, not negative. */
function secondsItem(value: BareItem | undefined): number | undefined {
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

/** A policy's name: a String or a Token ('' for a bare number, as `100;w=60`). */
function nameOf(value: BareItem | Item[]): string {
  if (typeof value === 'string') return value;
  return value instanceof Token ? value.toString() : '';
}

interface StructuredItem {
  name: string;
  value: BareItem | undefined;
  params: Parameters;
}

/**
 * The fields read lately, by their text: a policy or a limit is the same text on every answer of a
 * batch, and parsing it again would cost more than everything else an answer costs the batch.
 */
const parsedLists = new Map<string, StructuredItem[] | undefined>();
const PARSED_LISTS_KEPT = 256;

/** A structured List, its inner lists left out; undefined when the field is not a valid List. */
function structuredList(value: string | undefined): StructuredItem[] | undefined {
  if (value === undefined) return undefined;
  if (parsedLists.has(value)) return parsedLists.get(value);
  let items: StructuredItem[] | undefined;
  try {
    items = parseList(value).flatMap(([item, params]) =>
      Array.isArray(item) ? [] : [{ name: nameOf(item), value: item, params }],
    );
  } catch {
    items = undefined;
  }
  if (parsedLists.size >= PARSED_LISTS_KEPT) parsedLists.clear();
  parsedLists.set(value, items);
  return items;
}

/** A Dictionary's first key starts with a lower-case letter or `*` (a List of Strings cannot). */
const DICTIONARY_START = /^\s*[a-z*]/;

/** The draft's dictionary form (`limit=100, remaining=50, reset=30`), when the field is one. */
function rateLimitDictionary(value: string | undefined): Map<string, BareItem> | undefined {
  if (value === undefined || !DICTIONARY_START.test(value)) return undefined;
  let dictionary: ReturnType<typeof parseDictionary>;
  try {
    dictionary = parseDictionary(value);
  } catch {
    return undefined;
  }
  const fields = new Map<string, BareItem>();
  for (const [key, [item]] of dictionary) if (!Array.isArray(item)) fields.set(key, item);
  return ['limit', 'remaining', 'reset'].some((key) => fields.has(key)) ? fields : undefined;
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date. */
export function parseRetryAfterHeader(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.split(',')[0]?.trim() ?? '';
  if (/^\d+$/.test(text)) return secondsToMs(Number(text));
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(value.trim());
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), secondsToMs(MAX_SECONDS));
}

/** X-RateLimit-Reset: Unix seconds, Unix milliseconds or seconds from now, told apart by size. */
export function parseResetValue(value: string | undefined, now: number): number | undefined {
  const reset = seconds(value);
  if (reset === undefined) return undefined;
  if (reset >= EPOCH_MILLISECONDS_FLOOR) return Math.round(reset);
  if (reset >= EPOCH_SECONDS_FLOOR) return Math.round(reset * 1000);
  return now + secondsToMs(reset);
}

/** What has been read so far: each field keeps the first value found (the newest form first). */
class Reading {
  readonly info: RateLimitInfo = {};
  constructor(readonly now: number) {}
  set<K extends keyof RateLimitInfo>(key: K, value: RateLimitInfo[K] | undefined): void {
    if (value !== undefined && this.info[key] === undefined) this.info[key] = value;
  }
  /** A reset given in seconds from now. */
  resetIn(value: number | undefined): void {
    if (value !== undefined) this.set('resetAt', this.now + secondsToMs(value));
  }
  window(value: number | undefined): void {
    if (value !== undefined) this.set('windowMs', secondsToMs(value));
  }
}

/** Reads every rate-limit header in `headers` (lower-case names). `now`: milliseconds since the epoch, or a Date. */
export function parseRateLimit(headers: RateLimitHeaders, now: number | Date): RateLimitInfo {
  const reading = new Reading(typeof now === 'number' ? now : now.getTime());
  reading.set('retryAfterMs', parseRetryAfterHeader(headers['retry-after'], reading.now));
  // The newest form first: a server that sends several describes the same limit in each.
  const dictionary = rateLimitDictionary(headers.ratelimit);
  if (dictionary) readDictionaryForm(reading, dictionary, headers['ratelimit-policy']);
  else readListForm(reading, headers.ratelimit, headers['ratelimit-policy']);
  readIetfFields(reading, headers);
  // The de-facto headers.
  reading.set('limit', integer(headers['x-ratelimit-limit']?.split(',')[0]));
  reading.set('remaining', integer(headers['x-ratelimit-remaining']?.split(',')[0]));
  reading.set('resetAt', parseResetValue(headers['x-ratelimit-reset']?.split(',')[0], reading.now));
  return reading.info;
}

/** `RateLimit: limit=100, remaining=50, reset=30` with `RateLimit-Policy: 100;w=60`. */
function readDictionaryForm(reading: Reading, fields: Map<string, BareItem>, policies: string | undefined) {
  reading.set('limit', count(fields.get('limit')));
  reading.set('remaining', count(fields.get('remaining')));
  reading.resetIn(secondsItem(fields.get('reset')));
  const [policy] = structuredList(policies) ?? [];
  if (policy) {
    reading.set('limit', count(policy.value));
    reading.window(secondsItem(policy.params.get('w')));
  }
}

interface BindingLimit {
  item: StructuredItem;
  remaining: number | undefined;
  reset: number | undefined;
}

/** Of several limits, the one with the fewest requests left (the longest wait on a tie). */
function bindingLimit(items: StructuredItem[]): BindingLimit | undefined {
  let binding: BindingLimit | undefined;
  for (const item of items) {
    const remaining = count(item.params.get('r'));
    const reset = secondsItem(item.params.get('t'));
    if (remaining === undefined && reset === undefined) continue;
    const better =
      binding === undefined ||
      (remaining ?? Number.POSITIVE_INFINITY) < (binding.remaining ?? Number.POSITIVE_INFINITY) ||
      (remaining === binding.remaining && (reset ?? 0) > (binding.reset ?? 0));
    if (better) binding = { item, remaining, reset };
  }
  return binding;
}

/**
 * `RateLimit: "default";r=50;t=30` with `RateLimit-Policy: "default";q=100;w=60`. Of several
 * limits, the binding one counts; its policy is the one of the same name (or the only one).
 */
function readListForm(reading: Reading, limits: string | undefined, policies: string | undefined) {
  const binding = bindingLimit(structuredList(limits) ?? []);
  if (binding) {
    reading.set('remaining', binding.remaining);
    reading.resetIn(binding.reset);
    if (binding.item.name) reading.set('policy', binding.item.name);
  }
  const policyItems = structuredList(policies) ?? [];
  const policy =
    policyItems.find((item) => binding !== undefined && item.name === binding.item.name) ??
    (binding === undefined || policyItems.length === 1 ? policyItems[0] : undefined);
  if (policy && (policy.params.has('q') || policy.params.has('w'))) {
    reading.set('limit', count(policy.params.get('q')));
    reading.window(secondsItem(policy.params.get('w')));
    if (policy.name) reading.set('policy', policy.name);
  }
}

/**
 * The IETF draft's separate fields. RateLimit-Limit is a List that may carry policies
 * (`10, 10;w=1, 50;w=60`): the window is that of the first member, or of the next one whose
 * quota is the same.
 */
function readIetfFields(reading: Reading, headers: RateLimitHeaders): void {
  const [first, ...policies] = structuredList(headers['ratelimit-limit']) ?? [];
  if (first) {
    const limit = count(first.value);
    reading.set('limit', limit);
    const window =
      first.params.get('w') ??
      policies.find((policy) => policy.value === limit && policy.params.has('w'))?.params.get('w');
    reading.window(secondsItem(window));
  }
  reading.set('remaining', integer(headers['ratelimit-remaining']?.split(',')[0]));
  reading.resetIn(seconds(headers['ratelimit-reset']?.split(',')[0]));
}

/** How long until the API accepts requests again, as far as the headers say (0 when now). */
export function waitFromRateLimit(info: RateLimitInfo, now: number | Date): number | undefined {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  if (info.retryAfterMs !== undefined) return info.retryAfterMs;
  if (info.remaining === 0 && info.resetAt !== undefined) return Math.max(0, info.resetAt - nowMs);
  return undefined;
}
