// zod issues as text: one wording for every file, flag, record and body (src/text/issues.ts).
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { buildBatchRequest } from '../../src/batch/build-request.js';
import { parseResult } from '../../src/batch/formats.js';
import { schemaFor } from '../../src/options.js';
import { type Problem, problemText } from '../../src/problems.js';
import { checkCreateBody } from '../../src/sandbox/routes/create-request.js';
import type { SandboxError } from '../../src/sandbox/sandbox-error.js';
import { checkSeed } from '../../src/sandbox/state/seed.js';
import { describeFirstIssues } from '../../src/sandbox/state/state-format.js';
import { describeIssue, describeIssues } from '../../src/text/issues.js';

const lines = (schema: z.ZodMiniType, value: unknown, withRoot = true) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return describeIssues(parsed.error.issues, withRoot ? value : undefined);
};

describe('describeIssues', () => {
  const schema = z.strictObject({
    name: z.string().check(z.minLength(1, 'must not be empty')),
    body: z.object({ a: z.optional(z.string()) }),
    map: z.optional(z.record(z.string(), z.string())),
    list: z.optional(z.array(z.string())),
    flag: z.optional(z.boolean()),
    count: z.optional(z.int().check(z.gte(1), z.lte(9))),
    kind: z.optional(z.literal(['a', 'b'])),
    ok: z.optional(
      z.discriminatedUnion('ok', [z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false) })]),
    ),
  });

  it('keeps a schema message as it is', () => {
    expect(lines(schema, { name: '', body: {} })).toEqual(['name: must not be empty']);
  });

  it('puts zod/mini\'s bare "Invalid input" in words', () => {
    expect(
      lines(schema, {
        name: 'x',
        body: 'text',
        map: [],
        list: {},
        flag: 'yes',
        count: 0,
        kind: 'c',
        ok: { ok: 'maybe' },
      }),
    ).toEqual([
      'body: must be a JSON object',
      'map: must be a JSON object',
      'list: must be a JSON array',
      'flag: must be true or false',
      'count: must be at least 1',
      'kind: must be "a" or "b"',
      'ok.ok: must be true or false',
    ]);
    expect(lines(schema, { name: 'x', body: {}, count: 10 })).toEqual(['count: must be at most 9']);
  });

  it('says "is required" for a missing field when it can see the input, and names unknown fields', () => {
    expect(lines(schema, { body: {}, extra: 1, more: 2 })).toEqual([
      'name: is required',
      "unknown fields 'extra', 'more'",
    ]);
    expect(lines(schema, { body: {}, extra: 1 }, false)).toEqual([
      'name: must be a string',
      "unknown field 'extra'",
    ]);
    const reported = schema.safeParse({ body: {} }, { reportInput: true });
    expect(describeIssue(reported.error?.issues[0] as z.core.$ZodIssue)).toBe('is required');
  });

  it('is what a batch record and a results line say', () => {
    const problems: Problem[] = [];
    buildBatchRequest(
      { signatory: 'Ada', template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E' },
      { merge_data: {} },
      { format: 'jsonl', problems },
    );
    // Before, zod's bare text reached the user: "signatory: Invalid input".
    expect(problems.map(problemText)).toEqual(['signatory: must be a JSON object']);
    expect(
      parseResult('{"line":2,"ok":false,"error":{"code":"x","message":"m","status":"500"}}'),
    ).toMatchObject({
      ok: false,
      problem: '"error.status" must be a number',
    });
  });

  it("is what a flag, the sandbox's seed, state and admin bodies, and its create checks say", () => {
    // A schema with no message of its own: before, "Invalid input".
    const loud = z.object({ style: z.enum(['plain', 'fancy']) }).safeParse({ style: 'loud' });
    expect(loud.success ? [] : loud.error.issues.map((issue) => describeIssue(issue))).toEqual([
      'must be "plain" or "fancy"',
    ]);
    // A flag's choices, as the schema made from a declaration words them.
    const demo = {
      name: 'demo',
      summary: 'Demo',
      examples: [],
      flags: [{ flag: '--style', kind: 'choice', choices: ['plain', 'fancy'], help: 'Style' }],
    } as const;
    const style = schemaFor(demo, []).safeParse({ style: 'loud' });
    expect(style.success ? [] : style.error.issues.map((issue) => describeIssue(issue))).toEqual([
      'must be plain or fancy',
    ]);
    // The sandbox worded its own: "Invalid input" where a seed or an organisation is not an object.
    const seedDetails = (value: unknown) => {
      try {
        checkSeed(value, 'seed.json');
      } catch (error) {
        return (error as SandboxError).details;
      }
      throw new Error('expected a bad seed');
    };
    expect(seedDetails('x')).toEqual(['must be a JSON object']);
    expect(seedDetails({ organisations: ['x'] })).toEqual(['organisations.0: must be a JSON object']);
    expect(seedDetails({})).toEqual(['organisations: is required']);
    expect(
      describeFirstIssues({ a: 1 }, [
        { code: 'unrecognized_keys', keys: ['a'], path: [], message: 'x' },
      ] as never),
    ).toBe("unknown field 'a'");
    // The sandbox's create checks: the same words, keyed by field as the API's 422 is.
    const checked = checkCreateBody({ template_id: 1, merge_data: [], signatory: { name: 'Ada' } });
    expect(checked).toEqual({
      ok: false,
      errors: {
        template_id: [expect.stringMatching(/^must be/)],
        merge_data: ['must be a JSON object'],
        'signatory.email': ['is required'],
      },
    });
  });
});
