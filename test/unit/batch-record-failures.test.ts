// What the engine decided about a record, worded by the command (issue 38): the engine returns a
// kind with its figures; src/commands/envelope/batch-text.ts words it and names the flags, in the
// same words the engine used to print itself (these strings are the ones it built before).
import { describe, expect, it } from 'vitest';
import { recordFailureError } from '../../src/commands/envelope/batch-text.js';
import { ExitCode, OUTCOME_UNKNOWN, RateLimitedError, ServerError } from '../../src/errors.js';

describe('recordFailureError', () => {
  it('an answer after which the envelope may exist: unknown, with where to check and the flags that send it again', () => {
    const answer = new ServerError('Server error (500, request id r-1). The API said: "boom".', {
      status: 500,
      details: ['merge_data: odd'],
      requestId: 'r-1',
    });
    const error = recordFailureError({ kind: 'unknown_outcome', error: answer }, 'the dashboard');
    expect(error.code).toBe(OUTCOME_UNKNOWN);
    expect(error.exitCode).toBe(ExitCode.server);
    expect(error.message).toBe(
      'Server error (500, request id r-1). The API said: "boom"; the envelope may have been created, so the record is not sent again by itself.',
    );
    expect(error.hint).toBe(
      'Check in the dashboard whether it exists, then run with --resume --retry-unknown if it does not.',
    );
    expect(error).toMatchObject({ status: 500, details: ['merge_data: odd'], requestId: 'r-1' });
  });

  it('a record whose turn would come past its budget: rate_limited, naming --max-rate-wait and --resume', () => {
    const last = new RateLimitedError('Too Many Requests (429).', { status: 429 });
    const error = recordFailureError({ kind: 'turn_expired', waitedMs: 90_000, budgetMs: 60_000, last }, 'x');
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe(
      'Rate limited by the API for too long: this record waited 90.0 s for its turn and would wait past --max-rate-wait 60 s. Too Many Requests (429).',
    );
    expect(error.status).toBe(429);
    expect(error.hint).toBe(
      'Nothing was created for it. Raise --max-rate-wait, or run again later with --resume.',
    );
    const alone = recordFailureError(
      { kind: 'turn_expired', waitedMs: 1_500, budgetMs: 30_000, last: undefined },
      'x',
    );
    expect(alone.message).toBe(
      'Rate limited by the API for too long: this record waited 1.5 s for its turn and would wait past --max-rate-wait 30 s.',
    );
    expect(alone.status).toBeNull();
  });

  it('a record the API asks to wait past its budget: rate_limited, with the wait asked for', () => {
    const asked = new RateLimitedError('Too Many Requests (429).', { status: 429 });
    const error = recordFailureError(
      { kind: 'rate_wait_exceeded', waitedMs: 1_500, leftMs: 120_000, budgetMs: 60_000, error: asked },
      'x',
    );
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe(
      'Rate limited by the API for too long: this record waited 1.5 s and the API asks for 120 s more, past --max-rate-wait 60 s. Too Many Requests (429).',
    );
    expect(error.status).toBe(429);
    expect(error.hint).toBe(
      'Nothing was created for it. Raise --max-rate-wait, or run again later with --resume.',
    );
  });
});
