// Which records failed "the same way" (one key for the stderr listing, the annotations, the job
// summary and the stop rule), how each is rendered, and the live progress line at a terminal's width.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FailureGroups,
  MAX_ERROR_GROUPS,
  MAX_LINES_PER_GROUP,
  messageWithoutRequestId,
  sameErrorKey,
} from '../../src/batch/failure-groups.js';
import { afterAnswer, NEW_STREAK, SAME_FAILURE_STOP_AFTER } from '../../src/batch/policy.js';
import { buildReport } from '../../src/batch/report.js';
import { batchAnnotations, batchSummaryMarkdown, invalidInputMarkdown } from '../../src/ci/batch-summary.js';
import { failureListText, listFailuresCommand } from '../../src/commands/envelope/batch-text.js';
import { ApiRejectedError, NetworkError, RateLimitedError, ServerError } from '../../src/errors.js';
import { progressText } from '../../src/io/progress.js';
import { usageProblem } from '../../src/problems.js';

const rejected = (message: string, requestId?: string, status = 422) =>
  new ApiRejectedError(
    `The API rejected the request (${status}${requestId ? `, request id ${requestId}` : ''}). The API said: "${message}"`,
    { status, requestId },
  );

describe('the same error', () => {
  it('is the same code, status and message whatever the request id', () => {
    expect(sameErrorKey(rejected('No role.', 'req-1'))).toBe(sameErrorKey(rejected('No role.', 'req-2')));
    expect(sameErrorKey(rejected('No role.', 'req-1'))).not.toBe(sameErrorKey(rejected('No name.', 'req-1')));
    expect(sameErrorKey(rejected('No role.', 'r', 422))).not.toBe(
      sameErrorKey(rejected('No role.', 'r', 413)),
    );
    expect(messageWithoutRequestId(rejected('No role.', 'req-1'))).toBe(
      'The API rejected the request (422). The API said: "No role."',
    );
    const lost = new NetworkError(
      'Network error: the connection to h broke after the request was sent (ECONNRESET, request id abc).',
      true,
      { requestId: 'abc' },
    );
    expect(messageWithoutRequestId(lost)).toBe(
      'Network error: the connection to h broke after the request was sent (ECONNRESET).',
    );
  });

  it('records that waited past --max-rate-wait, each worded with its own wait, are one error', () => {
    const waited = (s: number) =>
      new RateLimitedError(`Rate limited by the API for too long: this record waited ${s} s …`, {
        status: 429,
        hint: 'Nothing was created for it. Raise --max-rate-wait, or run again later with --resume.',
      });
    expect(sameErrorKey(waited(1.2))).toBe(sameErrorKey(waited(3.4)));
  });

  it('groups keep the first lines and count the rest; errors past the cap are counted apart', () => {
    const groups = new FailureGroups();
    for (let line = 1; line <= 30; line++) groups.add('failed', line, rejected('Same.', `r${line}`));
    groups.add('unknown', 31, new ServerError('The API failed (500).', { status: 500 }));
    for (let n = 0; n < MAX_ERROR_GROUPS + 3; n++) groups.add('failed', 100 + n, rejected(`Other ${n}.`));
    const [first] = groups.groups();
    expect(first).toMatchObject({ count: 30, state: 'failed', status: 422 });
    expect(first?.lines).toHaveLength(MAX_LINES_PER_GROUP);
    expect(groups.groups()).toHaveLength(MAX_ERROR_GROUPS);
    expect(groups.others()).toBe(5);
  });
});

describe('the stop for the same failure (policy)', () => {
  const outcome = (error: ApiRejectedError) => ({ kind: 'rejected' as const, error });

  it(`stops at the ${SAME_FAILURE_STOP_AFTER}th answer refused the same way, never with --keep-going`, () => {
    let streak = NEW_STREAK;
    const stops: boolean[] = [];
    for (let i = 0; i < SAME_FAILURE_STOP_AFTER + 2; i++) {
      const next = afterAnswer(
        streak,
        outcome(rejected('No role.', `r${i}`)),
        sameErrorKey,
        SAME_FAILURE_STOP_AFTER,
      );
      streak = next.streak;
      stops.push(next.stop);
    }
    expect(stops.indexOf(true)).toBe(SAME_FAILURE_STOP_AFTER - 1);
    expect(stops.filter(Boolean)).toHaveLength(1);
    expect(afterAnswer(NEW_STREAK, outcome(rejected('x')), sameErrorKey, undefined).stop).toBe(false);
  });

  it('any other answer among the first ends the watch for the run (property)', () => {
    const other = fc.constantFrom(
      { kind: 'rejected' as const, error: rejected('Another.') },
      { kind: 'unknown' as const, error: new ServerError('The API failed (500).', { status: 500 }) },
      {
        kind: 'created' as const,
        requestId: 'r',
        envelope: {} as never,
      },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: SAME_FAILURE_STOP_AFTER - 1 }), other, (at, odd) => {
        let streak = NEW_STREAK;
        let stopped = false;
        for (let i = 0; i < 3 * SAME_FAILURE_STOP_AFTER; i++) {
          const next = afterAnswer(
            streak,
            i === at ? odd : outcome(rejected('No role.')),
            sameErrorKey,
            SAME_FAILURE_STOP_AFTER,
          );
          streak = next.streak;
          stopped ||= next.stop;
        }
        expect(stopped).toBe(false);
      }),
    );
  });
});

const base = {
  total: 40,
  counts: { created: 0, failed: 40, unknown: 0, skipped: 0 },
  elapsedMs: 1000,
  limits: { rate: 0, rateLimited: 0, waitedMs: 0 },
  resultsFile: '/tmp/r.jsonl',
  interrupted: false,
  outputError: undefined,
  unwritten: 0,
  records: [],
  recordsSeen: 40,
};

describe('rendering the groups', () => {
  const groups = new FailureGroups();
  const long = `${'x'.repeat(400)} — its tags are company, role.`;
  for (let line = 40; line >= 1; line--) {
    const error = rejected(long, `req-${line}`);
    groups.add('failed', line, Object.assign(error, { hint: line > 0 ? 'Check the template.' : undefined }));
  }
  const report = buildReport({ ...base, groups: groups.groups(), otherFailures: 0 });

  it('on stderr: the first line, the lines listed sorted, the rest counted, the hint once, the command', () => {
    const text = failureListText(report, listFailuresCommand('my results.jsonl'));
    expect(text).toBe(
      [
        `error: line 40 (and 39 more records): The API rejected the request (422, request id req-40). The API said: "${long}"`,
        '  lines 31, 32, 33, 34, 35, 36, 37, 38, 39, 40 and 30 more',
        'hint: Check the template.',
        `Every failed and unknown record: grep '"ok":false' 'my results.jsonl'`,
        '',
      ].join('\n'),
    );
  });

  it('in the job summary: each error once, whole, without its request id; a heading that tells the truth', () => {
    const markdown = batchSummaryMarkdown(report);
    expect(markdown).toContain('### esign envelope batch: ❌ every record sent failed');
    expect(markdown).toContain('— its tags are company, role\\.');
    expect(markdown).toContain('- **40 failed** (lines 31, 32, 33, 34, 35, 36, 37, 38, 39, 40 and 30 more)');
    expect(markdown).toContain('  - hint: Check the template\\.');
    expect(markdown).not.toContain('req-');
    const unknown = buildReport({ ...base, counts: { created: 0, failed: 3, unknown: 2, skipped: 0 } });
    expect(batchSummaryMarkdown(unknown)).toContain('❌ no envelope created for sure (3 failed, 2 unknown)');
    const some = buildReport({ ...base, counts: { created: 1, failed: 3, unknown: 0, skipped: 0 } });
    expect(batchSummaryMarkdown(some)).toContain('⚠️ some records did not end with an envelope');
  });

  it('as annotations: one per error, capped, the run’s own error left out', () => {
    const many = new FailureGroups();
    for (let n = 0; n < 15; n++) many.add('failed', n + 1, rejected(`Error ${n}.`));
    many.add('unknown', 99, new ServerError('The API failed (500).', { status: 500 }));
    const all = buildReport({ ...base, groups: many.groups(), otherFailures: many.others() });
    const lines = batchAnnotations(all).trimEnd().split('\n');
    expect(lines).toHaveLength(MAX_ERROR_GROUPS);
    expect(
      lines.every((line) => line.startsWith('::error title=esign%3A 1 record failed (rejected%2C 422)::')),
    ).toBe(true);
    expect(batchAnnotations(report, () => true)).toBe('');
  });

  it('an invalid input: the lines and what is wrong, escaped', () => {
    const markdown = invalidInputMarkdown({
      total: 10,
      invalid: 2,
      problems: [
        usageProblem('signatory.email', 'must be an email (got "<b>x</b>")', { line: 2 }),
        usageProblem('signatory', 'required', { line: 7 }),
      ],
      problemCount: 3,
      message: '2 of 10 records are invalid (3 problems); nothing was sent.',
      hint: 'Fix the records and run again.',
    });
    expect(markdown).toContain('### esign envelope batch: ❌ 2 of 10 records are invalid; nothing was sent');
    expect(markdown).toContain(
      '| 2 | signatory\\.email: must be an email \\(got "&lt;b&gt;x&lt;/b&gt;"\\) |',
    );
    expect(markdown).toContain('| 7 | signatory: required |');
    expect(markdown).toContain('… and 1 more problem.');
  });
});

describe('the live progress line at the terminal’s width', () => {
  const limits = {
    rate: 48.6,
    remaining: 12,
    limit: 50,
    resetAt: 10_400,
    pausedUntil: 12_000,
    rateLimited: 1,
    waitedMs: 0,
  };
  const counts = { created: 10, failed: 1, unknown: 0, skipped: 2 };

  it('fits 40 columns by leaving out what matters least; done and failures stay', () => {
    const text = progressText(counts, limits, 100, { now: 10_000, left: 30, width: 37 });
    expect(text.length).toBeLessThanOrEqual(37);
    expect(text).toBe('13/100 done · 1 failed or unknown');
    expect(progressText(counts, limits, 100, { now: 10_000, left: 30, width: 80 })).toBe(
      '13/100 done · 1 failed or unknown · paused: the API asked to wait 2 s',
    );
    expect(progressText(counts, limits, 100, { now: 10_000, left: 30, width: 90 })).toBe(
      '13/100 done · 1 failed or unknown · 49/s · paused: the API asked to wait 2 s · 30 s left',
    );
  });

  it('never goes past the width (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 200 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (width, done) => {
          const text = progressText({ ...counts, created: done }, limits, 10_000_000, {
            now: 10_000,
            left: 12345,
            width,
          });
          expect(text.length).toBeLessThanOrEqual(width);
        },
      ),
    );
  });
});
