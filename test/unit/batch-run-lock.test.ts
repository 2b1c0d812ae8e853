// The batch engine and its output's lock (src/batch/run.ts's `held` port): a request leaves only
// after the journal noted it and the lock was found held after that note. A run that knows it lost
// the lock notes nothing more and starts no new record; a run stopped between a look and the note
// (the lock taken over meanwhile, by a run that did not see the note) does not send that record.
// The e2e side (a real SIGSTOP of the built binary) is test/e2e/stopped-batch-lock.test.ts.
import { describe, expect, it } from 'vitest';
import type { CreateOutcome } from '../../src/api/outcome.js';
import type { ResultLine } from '../../src/batch/formats.js';
import { RateLimiter } from '../../src/batch/pacing/rate-limiter.js';
import { type BatchPorts, run } from '../../src/batch/run.js';
import type { SpooledRecord } from '../../src/batch/spool.js';
import { recordFailureError } from '../../src/commands/envelope/batch-text.js';

const RECORDS = 6;

/** A run over RECORDS records, one worker, with `held` as the lock's answers; what happened, in order. */
async function runWith(held: () => boolean | Promise<boolean>) {
  const events: string[] = [];
  const records: SpooledRecord[] = Array.from({ length: RECORDS }, (_, i) => ({
    line: i + 1,
    fingerprint: `f${i + 1}`,
    email: `p${i + 1}@example.com`,
    body: `{"n":${i + 1}}`,
  }));
  let given = false;
  const stop = new AbortController();
  const ports: BatchPorts = {
    client: {
      sendCreate: async (body: unknown) => {
        events.push(`send ${JSON.parse(String(body)).n}`);
        return { status: 200, headers: {}, text: '', ms: 1, requestId: 'req' };
      },
      classify: (): CreateOutcome => ({
        kind: 'created',
        envelope: {
          envelope_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
          signing_url: 'https://sign.example.com/s/x',
          status: 'ready',
          created_at: '2026-11-22T10:00:00.000Z',
          expires_at: '2026-12-22T10:00:00.000Z',
        },
        requestId: 'req',
      }),
    } as unknown as BatchPorts['client'],
    sink: {
      write: (result: ResultLine) => void events.push(`result ${result.line}`),
      flushed: async () => {},
    },
    journal: {
      reserve: async () => {},
      sent: async (record) => void events.push(`note ${record.line}`),
    },
    pacer: new RateLimiter(Date.now(), { concurrency: 1 }),
    clock: Date.now,
    signal: stop.signal,
    // Only the engine's own answer to a lost lock is under test: nothing aborts `signal` here.
    held,
    recordError: (failure) => recordFailureError(failure, 'the dashboard'),
  };
  const report = await run(
    {
      records: async () => {
        if (given) return [];
        given = true;
        return records;
      },
      concurrency: 1,
      maxRetries: 0,
    },
    ports,
  );
  return { events, report };
}

describe('the batch engine and its output lock', () => {
  it('every request leaves after its note, each after a look at the lock', async () => {
    let looks = 0;
    const { events, report } = await runWith(() => {
      looks++;
      return true;
    });
    expect(report.counts.created).toBe(RECORDS);
    expect(events.filter((e) => e.startsWith('send'))).toHaveLength(RECORDS);
    for (let n = 1; n <= RECORDS; n++)
      expect(events.indexOf(`note ${n}`)).toBeLessThan(events.indexOf(`send ${n}`));
    expect(looks).toBe(2 * RECORDS); // before the note, and after it
  });

  it('a run that finds its lock lost notes and sends nothing more', async () => {
    let looks = 0;
    // Held for the first two records (two looks each), lost at the third's first look.
    const { events } = await runWith(() => ++looks <= 4);
    expect(events.filter((e) => e.startsWith('send'))).toEqual(['send 1', 'send 2']);
    expect(events).not.toContain('note 3');
  });

  it('a lock taken over between the first look and the note: that record does not leave, nothing after it starts', async () => {
    let looks = 0;
    // The third record's first look finds it held; its look after the note finds it lost.
    const { events } = await runWith(() => ++looks <= 5);
    expect(events).toContain('note 3');
    expect(events.filter((e) => e.startsWith('send'))).toEqual(['send 1', 'send 2']);
    expect(events).not.toContain('note 4');
  });

  it('a look that must read the lock (a promise) is waited for before the note', async () => {
    let looks = 0;
    const { events } = await runWith(() => (++looks === 3 ? Promise.resolve(false) : true));
    expect(events.filter((e) => e.startsWith('send'))).toEqual(['send 1']);
    expect(events).not.toContain('note 2');
  });
});
