import { describe, expect, it } from 'vitest';
import { buildReport, MAX_REPORTED_RECORDS } from '../../src/batch/report.js';
import { summaryText } from '../../src/commands/envelope/batch-text.js';
import { progressText } from '../../src/io/progress.js';

const limits = { rate: 0, rateLimited: 0, waitedMs: 0 };
const counts = { created: 3, failed: 0, unknown: 0, skipped: 0 };
const base = {
  total: 3,
  counts,
  limits,
  resultsFile: undefined,
  interrupted: false,
  outputError: undefined,
  unwritten: 0,
  records: [],
  recordsSeen: 0,
};

describe('batch report and summary', () => {
  it('a run too short to tell shows no rate; a longer one does', () => {
    const quick = buildReport({ ...base, elapsedMs: 12 });
    expect(quick.rate).toBeUndefined();
    expect(summaryText(quick, 'on stdout')).toBe(
      'Batch: 3 created, 0 failed, 0 unknown, 0 skipped of 3 records in 0.0 s; results on stdout.\n',
    );
    const slow = buildReport({ ...base, elapsedMs: 1500 });
    expect(summaryText(slow, 'on stdout')).toContain('in 1.5 s (2/s); results on stdout.');
  });

  it('says when created envelopes may have no stored result (the counts are of stored results)', () => {
    const report = buildReport({ ...base, elapsedMs: 200, unwritten: 4 });
    expect(summaryText(report, 'on stdout')).toContain(
      '4 envelopes created (or maybe created) may have no stored result: listed below.',
    );
    expect(summaryText(buildReport({ ...base, elapsedMs: 200 }), 'on stdout')).not.toContain('stored result');
  });

  it('says how many 429s were met and how long the batch waited', () => {
    const report = buildReport({
      ...base,
      elapsedMs: 5000,
      limits: { rate: 1, rateLimited: 7, waitedMs: 3200 },
    });
    expect(report).toMatchObject({ rateLimited: 7, waitedMs: 3200 });
    expect(summaryText(report, 'in r.jsonl')).toContain(
      'The API rate-limited 7 requests (429); the batch waited 3.2 s for it in all.',
    );
  });

  it('lists failed and unknown records up to a cap, counting the rest', () => {
    const records = Array.from({ length: 60 }, (_, i) => ({
      line: i + 1,
      email: `p${i}@example.com`,
      state: 'failed' as const,
      message: 'Rejected',
    }));
    const report = buildReport({ ...base, elapsedMs: 10, records, recordsSeen: 75 });
    expect(report.records).toHaveLength(MAX_REPORTED_RECORDS);
    expect(report.recordsLeftOff).toBe(75 - MAX_REPORTED_RECORDS);
  });

  it('the progress line shows the quota and its reset, and a pause for the API', () => {
    const text = progressText(
      { created: 10, failed: 1, unknown: 0, skipped: 2 },
      {
        rate: 48.6,
        remaining: 12,
        limit: 50,
        resetAt: 10_400,
        pausedUntil: 12_000,
        rateLimited: 1,
        waitedMs: 0,
      },
      100,
      { now: 10_000, left: 30 },
    );
    expect(text).toBe(
      '13/100 done · 1 failed or unknown · 49/s · quota 12/50 left, resets in 1 s · paused: the API asked to wait 2 s · 30 s left',
    );
  });
});
