// hotParser (src/api/schemas.ts): a schema a batch runs thousands of values through is switched to
// zod's compiled form. That form must accept, reject and output exactly what the schema's runtime
// parser does, for anything a file or a server can hand us; and it must really be compiled (zod
// falls back to the runtime parser without a word when it cannot compile a schema).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  COMPILE_AFTER,
  CreateEnvelopeRequest,
  CreateEnvelopeResponse,
  ENVELOPE_STATUSES,
  hotParser,
} from '../../src/api/schemas.js';
import {
  JournalHeader,
  JournalLegacyIntent,
  JournalReservation,
  JournalSentNote,
  ResultLine,
} from '../../src/batch/formats.js';

const ULID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const anything = fc.jsonValue({ maxDepth: 2 });
/** Mostly `usual`, sometimes `unusual`, now and then any JSON at all. */
const mostly = <T>(usual: fc.Arbitrary<T>, unusual?: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: usual, weight: 12 }, ...(unusual ? [{ arbitrary: unusual, weight: 2 }] : []), {
    arbitrary: anything,
    weight: 1,
  });
const ulidLike = mostly(fc.constantFrom(ULID, ULID.toLowerCase()), fc.stringMatching(/^[0-9A-Z]{25,27}$/));
const timestamp = mostly(
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc.constantFrom('2026-11-23T15:00:00+02:00', '2026-11-23T15:00:00', '2026-11-23', 'yesterday'),
);
/** Objects with a few keys beyond the schema's, `__proto__` among them (as JSON.parse makes it). */
const withExtras = <T extends object>(value: fc.Arbitrary<T>) =>
  fc
    .tuple(
      value,
      fc.dictionary(fc.constantFrom('extra', '__proto__', 'constructor', 'x'), anything, { maxKeys: 2 }),
    )
    .map(([base, extras]) => JSON.parse(JSON.stringify({ ...extras, ...base })) as unknown);

const request = withExtras(
  fc.record(
    {
      template_id: ulidLike,
      merge_data: mostly(
        fc.dictionary(
          fc.oneof({ arbitrary: fc.string({ minLength: 1 }), weight: 8 }, fc.constantFrom('__proto__', '')),
          mostly(fc.string()),
          {
            maxKeys: 4,
          },
        ),
      ),
      signatory: mostly(
        withExtras(
          fc.record(
            {
              name: mostly(
                fc.string({ minLength: 1, maxLength: 20 }),
                fc.constantFrom('   ', 'x'.repeat(201)),
              ),
              email: mostly(
                fc.stringMatching(/^[a-z0-9._+-]{1,12}@[a-z0-9-]{1,12}\.[a-z]{2,6}$/),
                fc.emailAddress(),
              ),
              phone: mostly(
                fc.stringMatching(/^\+?[0-9]{3,15}$/),
                fc.stringMatching(/^\+?[0-9 ().a-]{0,34}$/),
              ),
            },
            { requiredKeys: ['name', 'email'] },
          ),
        ),
      ),
      expires_in_days: mostly(
        fc.integer({ min: 1, max: 365 }),
        fc.oneof(fc.integer({ min: -2, max: 400 }), fc.double()),
      ),
    },
    { requiredKeys: ['template_id', 'merge_data', 'signatory'] },
  ),
);

const response = withExtras(
  fc.record(
    {
      success: mostly(fc.constant(true), fc.constant(false)),
      data: mostly(
        withExtras(
          fc.record(
            {
              envelope_id: ulidLike,
              signing_url: mostly(
                fc.webUrl(),
                fc.oneof(fc.string(), fc.constantFrom('ftp://a/b', 'http://a/\u001b[2J', 'http://a/\u0085')),
              ),
              status: mostly(fc.constantFrom(...ENVELOPE_STATUSES), fc.string()),
              created_at: timestamp,
              expires_at: timestamp,
            },
            { requiredKeys: ['envelope_id', 'signing_url', 'status', 'created_at', 'expires_at'] },
          ),
        ),
      ),
    },
    { requiredKeys: ['success', 'data'] },
  ),
);

const resultLine = withExtras(
  fc.record(
    {
      line: mostly(fc.integer({ min: -1, max: 2 ** 40 })),
      ok: mostly(fc.boolean()),
      envelope_id: mostly(fc.string()),
      signing_url: mostly(fc.string()),
      request_id: mostly(fc.string()),
      fingerprint: mostly(fc.string()),
      error: mostly(
        fc.record(
          {
            code: mostly(fc.string()),
            message: mostly(fc.string()),
            status: mostly(fc.option(fc.integer({ min: 100, max: 599 }), { nil: null })),
            details: mostly(fc.array(mostly(fc.string()), { maxLength: 2 })),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
);

const journalLine = withExtras(
  fc.record(
    {
      boot: mostly(fc.string()),
      sent: mostly(fc.integer({ min: -1, max: 2 ** 40 })),
      line: mostly(fc.integer({ min: -1, max: 2 ** 40 })),
      fingerprint: mostly(fc.string()),
      offset: mostly(fc.oneof(fc.integer({ min: -1, max: 2 ** 40 }), fc.double())),
      reserved: mostly(fc.constant(true)),
    },
    { requiredKeys: [] },
  ),
);

/** What a parse tells its caller: the output, or each issue's code, path and message. */
function outcome(result: z.core.util.SafeParseResult<unknown>) {
  return result.success
    ? { ok: true, data: result.data }
    : { ok: false, issues: result.error.issues.map(({ code, path, message }) => ({ code, path, message })) };
}

const cases: [string, z.ZodMiniType, fc.Arbitrary<unknown>][] = [
  ['CreateEnvelopeRequest', CreateEnvelopeRequest, request],
  ['CreateEnvelopeResponse', CreateEnvelopeResponse, response],
  ['ResultLine', ResultLine, resultLine],
  ['JournalHeader', JournalHeader, journalLine],
  ['JournalSentNote', JournalSentNote, journalLine],
  ['JournalReservation', JournalReservation, journalLine],
  ['JournalLegacyIntent', JournalLegacyIntent, journalLine],
];

describe('hotParser', () => {
  for (const [name, schema, values] of cases) {
    it(`${name}: the compiled form gives what the runtime parser gives, for any value`, () => {
      const hot = hotParser(schema, 0); // compiled from the first parse
      let accepted = 0;
      fc.assert(
        fc.property(values, (value) => {
          const runtime = outcome(schema.safeParse(value));
          if (runtime.ok) accepted++;
          expect(outcome(hot(value))).toStrictEqual(runtime);
        }),
        { numRuns: 400 },
      );
      // The values reach both sides of the schema (at least 5% accepted), not only its rejections.
      expect(accepted).toBeGreaterThan(20);
    });

    it(`${name}: zod compiles it (it would fall back to the runtime parser without a word)`, () => {
      expect(() => z.compile(schema, { strict: true })).not.toThrow();
    });
  }

  it('parses with the runtime parser until it has been used COMPILE_AFTER times, the same either way', () => {
    const hot = hotParser(CreateEnvelopeResponse);
    const good = {
      success: true,
      data: {
        envelope_id: ULID,
        signing_url: 'https://sign.example.com/s/1',
        status: 'sent',
        created_at: '2026-11-23T10:00:00Z',
        expires_at: '2026-12-23T10:00:00Z',
        extra: 'dropped',
      },
    };
    const bad = { success: true, data: { ...good.data, signing_url: 'http://a/\u001b[2J' } };
    const expected = [
      outcome(CreateEnvelopeResponse.safeParse(good)),
      outcome(CreateEnvelopeResponse.safeParse(bad)),
    ];
    for (let i = 0; i < COMPILE_AFTER + 8; i++) {
      expect([outcome(hot(good)), outcome(hot(bad))]).toStrictEqual(expected);
    }
    expect(expected[0]).toMatchObject({ ok: true, data: { data: { signing_url: good.data.signing_url } } });
    expect(expected[0]?.data).not.toHaveProperty('data.extra');
    expect(expected[1]).toMatchObject({
      ok: false,
      issues: [{ path: ['data', 'signing_url'], message: 'must not contain control characters' }],
    });
  });
  it('passes its params to the runtime parser, compiled or not: reportInput puts the input in the issues', () => {
    const hot = hotParser(CreateEnvelopeRequest);
    const missing = { template_id: ULID, merge_data: {}, signatory: { name: 'Ada' } };
    for (let i = 0; i < COMPILE_AFTER + 8; i++) {
      const parsed = hot(missing, { reportInput: true });
      expect(parsed.success).toBe(false);
      const issue = parsed.error?.issues[0];
      expect(issue).toMatchObject({ code: 'invalid_type', path: ['signatory', 'email'] });
      expect(issue).toHaveProperty('input', undefined);
      expect(hot(missing).error?.issues[0]).not.toHaveProperty('input');
    }
  });
});
