// The wire format of the envelope service (shared/api-spec.md), defined once. The client, the
// sandbox and the tests all use these schemas; TypeScript types are inferred from them.
//
// zod/mini is zod's tree-shakable build: the same validation with a functional API, at a fraction
// of the start-up cost of the classic build.
import * as z from 'zod/mini';
import { hasControl } from '../text/terminal-text.js';

/** A ULID: 26 Crockford base-32 characters, the first at most 7 (48-bit time). Any case. */
export const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;
const CROCKFORD_26 = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

export const ulid = () =>
  z.string({ error: 'must be a string' }).check(
    z.regex(CROCKFORD_26, {
      error: 'must be a ULID: 26 characters of Crockford base-32, like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      abort: true,
    }),
    // 26 base-32 characters hold 130 bits; a ULID has 128, so the first character is at most 7.
    z.regex(ULID_PATTERN, 'is out of range: the largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ'),
  );

export const ENVELOPE_STATUSES = [
  'draft',
  'ready',
  'sent',
  'in_progress',
  'completed',
  'voided',
  'expired',
] as const;
export const EnvelopeStatus = z.enum(ENVELOPE_STATUSES, {
  error: `must be one of ${ENVELOPE_STATUSES.join(', ')}`,
});

const EMAIL_PATTERN = z.regexes.email;

const SignatoryName = z.string({ error: 'must be a string' }).check(
  z.refine((s) => s.trim().length > 0, 'must not be empty'),
  z.maxLength(200, 'must be at most 200 characters'),
);
const SignatoryEmail = z
  .string({ error: 'must be a string' })
  .check(z.regex(EMAIL_PATTERN, 'must be an email address, like ada@example.com'));
/** The spec types phone as a string; we accept what a phone number is written with. */
const SignatoryPhone = z.string({ error: 'must be a string' }).check(
  z.regex(/^\+?[0-9 ().-]{3,32}$/, 'must be a phone number: digits, spaces and + ( ) - . only'),
  z.refine((s) => (s.match(/[0-9]/g)?.length ?? 0) >= 3, 'must have at least 3 digits'),
);

export const Signatory = z.object({
  name: SignatoryName,
  email: SignatoryEmail,
  phone: z.optional(SignatoryPhone),
});

export const MAX_EXPIRES_IN_DAYS = 365;
const ExpiresInDays = z
  .number({ error: 'must be a number' })
  .check(z.refine(Number.isInteger, 'must be a whole number of days'), z.gte(1, 'must be at least 1'));

const MergeKey = z.string().check(z.minLength(1, 'merge field names must not be empty'));
export const MergeData = z.record(MergeKey, z.string({ error: 'must be a string' }));

/** Body of POST {base_url}/native/envelopes/create. */
export const CreateEnvelopeRequest = z.object({
  template_id: ulid(),
  merge_data: MergeData,
  signatory: Signatory,
  expires_in_days: z.optional(ExpiresInDays),
});
export type CreateEnvelopeRequest = z.infer<typeof CreateEnvelopeRequest>;

const HTTP_URL = 'must be an http(s) URL';

const timestamp = () => z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' });

/** An envelope as returned on creation (spec 2.1). Unknown extra fields are dropped. */
export const Envelope = z.object({
  envelope_id: ulid(),
  // An http(s) URL: one URL.canParse, then its scheme read off the text (zod's `protocol` option
  // would build a URL object for each answer, 2 µs of a batch's record).
  signing_url: z.url({ error: HTTP_URL, abort: true }).check(
    z.regex(/^https?:\/\//i, HTTP_URL),
    z.refine((url) => !hasControl(url), 'must not contain control characters'),
  ),
  status: EnvelopeStatus,
  created_at: timestamp(),
  expires_at: timestamp(),
});
export type Envelope = z.infer<typeof Envelope>;

export const CreateEnvelopeResponse = z.object({
  success: z.literal(true, { error: 'must be true' }),
  data: Envelope,
});
export type CreateEnvelopeResponse = z.infer<typeof CreateEnvelopeResponse>;

/** Error bodies: the spec guarantees `message`; a careful API adds per-field `errors`. Parsed permissively. */
export const ApiErrorBody = z.looseObject({
  message: z.optional(z.string()),
  errors: z.optional(z.record(z.string(), z.array(z.string()))),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** Parses after which `hotParser` switches to the compiled schema. */
export const COMPILE_AFTER = 32;

/**
 * `schema.safeParse` for a schema that a batch runs thousands of values through (its records, the
 * answers, a resumed run's results). After COMPILE_AFTER parses it uses zod's compiled form of the
 * schema (`z.compile`: generated code for what it accepts; whatever that code rejects is parsed
 * again by the runtime parser, so the issues are the same), which a batch's thousands of values
 * repay many times over. A command that parses a few values never pays the compile. `params` reach the runtime parser (`reportInput`, say), which is all that reads them.
 * test/unit/hot-parser.test.ts checks that both forms agree.
 */
export function hotParser<T>(
  schema: z.ZodMiniType<T>,
  compileAfter = COMPILE_AFTER,
): (value: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>) => z.core.util.SafeParseResult<T> {
  let parses = 0;
  let compiled: z.ZodMiniType<T> | undefined;
  return (value, params) => {
    if (compiled === undefined && ++parses > compileAfter) compiled = z.compile(schema);
    return (compiled ?? schema).safeParse(value, params);
  };
}

/** zod issues as `path: message` lines: the one wording, in src/text/issues.ts. */
export { describeIssues } from '../text/issues.js';
