// The batch's own files: the spool of checked requests, the durable results file and the intent
// journal that tells a resumed run which requests may have left.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DurableAppender } from '../../src/batch/durable-file.js';
import {
  currentBoot,
  IntentJournal,
  type JournalContents,
  readJournal,
  unansweredIntents,
} from '../../src/batch/journal.js';
import type { PreviousResults } from '../../src/batch/previous-results.js';
import { createSpool, type SpooledRecord, type SpoolReader } from '../../src/batch/spool.js';

const folder = () => mkdtempSync(join(tmpdir(), 'esign-files-'));

async function readAll(reader: SpoolReader): Promise<SpooledRecord[]> {
  const all: SpooledRecord[] = [];
  for (let chunk = await reader.next(); chunk.length > 0; chunk = await reader.next()) all.push(...chunk);
  return all;
}

describe('spool', () => {
  it('gives back every record exactly, in order, whatever the bodies hold', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: fc.string({ unit: 'binary' }), tag: fc.string() }), { maxLength: 40 }),
        async (values) => {
          const spool = createSpool(folder());
          const records = values.map((value, i) => ({
            line: i * 3 + 1,
            fingerprint: `fp${i}`,
            email: `person${i}@example.com`,
            body: JSON.stringify(value),
          }));
          for (const r of records) spool.writer.add(r);
          spool.writer.finish();
          expect(await readAll(spool.reader)).toEqual(records);
          spool.dispose();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads records across chunk boundaries, one larger than a chunk included', async () => {
    const spool = createSpool(folder());
    const records: SpooledRecord[] = [];
    for (let i = 0; i < 3000; i++) {
      const size = i === 1500 ? 700_000 : 100 + (i % 97);
      records.push({
        line: i + 2,
        fingerprint: `f${i}`,
        email: `p${i}@example.com`,
        body: JSON.stringify({ v: 'é'.repeat(size) }),
      });
    }
    for (const r of records) spool.writer.add(r);
    spool.writer.finish();
    spool.writer.close();
    const back = await readAll(spool.reader);
    spool.dispose();
    expect(back.length).toBe(records.length);
    expect(back).toEqual(records);
  });

  it('leaves nothing of the records on disk, even before it is disposed of', () => {
    const where = folder();
    const spool = createSpool(where);
    spool.writer.add({
      line: 1,
      fingerprint: 'f1',
      email: 'ada@example.com',
      body: '{"signatory":{"email":"ada@example.com"}}',
    });
    spool.writer.finish();
    expect(readdirSync(where)).toEqual([]); // removed while open: a kill -9 leaves no copy behind
    spool.dispose();
  });
});

describe('DurableAppender', () => {
  it('writes each line at once and resolves once it is synced; close syncs the rest', async () => {
    const path = join(folder(), 'results.jsonl');
    const file = DurableAppender.open(path, { syncEveryMs: 20 });
    const first = file.append('one\n');
    // Written before any sync: a killed process would leave it in the file.
    expect(readFileSync(path, 'utf8')).toBe('one\n');
    file.write('two\n');
    expect(file.end).toBe(8);
    await first;
    const third = file.append('three\n');
    await file.close();
    await third;
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nthree\n');
    expect(() => file.write('four\n')).toThrow(/closed/);
  });

  it('groups syncs while lines come, and syncs at once once told the run is ending', async () => {
    const path = join(folder(), 'results.jsonl');
    const file = DurableAppender.open(path, { syncEveryMs: 60_000 });
    await file.append('one\n'); // the first sync goes at once
    let synced = false;
    const second = file.append('two\n').then(() => {
      synced = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(synced).toBe(false); // grouped: waiting for the next sync a minute on
    file.ending();
    await second;
    const third = file.append('three\n'); // after ending(), no waiting either
    await Promise.race([
      third,
      new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting')), 5_000)),
    ]);
    await file.close();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('with gather, the lines of one turn go out in one write; end counts them at once', async () => {
    const path = join(folder(), 'results.jsonl');
    const file = DurableAppender.open(path, { gather: true });
    file.write('one\n');
    file.write('twø\n');
    expect(file.end).toBe(9);
    expect(readFileSync(path, 'utf8')).toBe(''); // written at the end of the turn
    await file.written();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwø\n');
    file.write('three\n');
    await file.flushed(); // writes what is gathered, then syncs
    expect(readFileSync(path, 'utf8')).toBe('one\ntwø\nthree\n');
    await file.close();
  });

  it('with gather, a failed write is reported, with the lines it kept from the file', async () => {
    const file = DurableAppender.open('/dev/full', { gather: true });
    const failures: unknown[] = [];
    file.onFailure((error) => failures.push(error));
    file.write('{"line":1}\n');
    file.write('{"line":2}\n');
    const writing = file.written();
    await expect(file.flushed()).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(writing).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(failures).toMatchObject([{ code: 'ENOSPC' }]);
    expect(file.lost()).toEqual(['{"line":1}', '{"line":2}']);
    expect(file.failed).toBe(true);
    expect(() => file.write('{"line":3}\n')).toThrow(/ENOSPC|no space/i);
    await file.close();
  });

  it('with gather, lines still gathered when a sync fails are reported lost, and their waiters told', async () => {
    // A FIFO takes writes but cannot be synced (EINVAL): the sync fails while a line waits.
    const fifo = join(folder(), 'results.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const file = DurableAppender.open(fifo, { gather: true });
    const failures: unknown[] = [];
    file.onFailure((error) => failures.push(error));
    file.write('{"line":1}\n');
    const first = file.flushed(); // line 1 is written now; its sync goes to the thread pool
    const second = await new Promise<{ written: Promise<void> }>((resolve) =>
      setImmediate(() => {
        // By the end of this wait the sync has failed, and the loop reads that before the next
        // turn's gathered write: line 2 is gathered with the failure already on its way.
        const until = performance.now() + 100;
        while (performance.now() < until);
        file.write('{"line":2}\n');
        resolve({ written: file.written() });
      }),
    );
    await expect(first).rejects.toMatchObject({ code: 'EINVAL' });
    await expect(second.written).rejects.toMatchObject({ code: 'EINVAL' });
    expect(file.lost()).toEqual(['{"line":2}']);
    expect(failures).toMatchObject([{ code: 'EINVAL' }]);
    await file.close();
    closeSync(reader);
  });

  it('appends after what is there, and truncates when asked', async () => {
    const path = join(folder(), 'journal');
    writeFileSync(path, 'old\n');
    const kept = DurableAppender.open(path);
    expect(kept.end).toBe(4);
    await kept.append('new\n');
    await kept.close();
    expect(readFileSync(path, 'utf8')).toBe('old\nnew\n');
    const emptied = DurableAppender.open(path, { truncate: true, mode: 0o600 });
    expect(emptied.end).toBe(0);
    await emptied.append('fresh\n');
    await emptied.close();
    expect(readFileSync(path, 'utf8')).toBe('fresh\n');
  });
});

describe('intent journal', () => {
  const results = (entries: [number, 'created' | 'failed' | 'unknown', number][]): PreviousResults =>
    new Map(entries.map(([line, state, offset]) => [line, { state, fingerprint: `f${line}`, offset }]));

  it('round-trips: boot, reservations and sent notes, ignoring a torn last line', async () => {
    const path = join(folder(), 'out.jsonl.pending');
    writeFileSync(path, 'left over from an earlier run\n');
    const journal = await IntentJournal.create(path, { boot: 'linux:boot-a' });
    await journal.reserve(
      [
        { line: 2, fingerprint: 'f2' },
        { line: 3, fingerprint: 'f3' },
        { line: 5, fingerprint: 'f5' },
      ],
      0,
    );
    await Promise.all([journal.sent(2, 0), journal.sent(3, 40)]);
    await journal.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, '{"sent":5,"off', { flag: 'a' });
    const contents = await readJournal(path);
    expect(contents.boot).toBe('linux:boot-a');
    expect(contents.reserved.map((r) => r.line)).toEqual([2, 3, 5]);
    expect(contents.sent).toEqual([
      { line: 2, fingerprint: 'f2', offset: 0 },
      { line: 3, fingerprint: 'f3', offset: 40 },
    ]);
  });

  it('never gets ahead of the results: the results of a turn are in the file before its sent notes', async () => {
    const dir = folder();
    const output = DurableAppender.open(join(dir, 'out.jsonl'), { gather: true });
    const journal = await IntentJournal.create(join(dir, 'out.jsonl.pending'), {
      boot: 'linux:boot-a',
      results: output,
    });
    // The note is gathered first, as when a worker takes a record before another's answer comes in:
    // the journal's write is due first, and its waiter runs before the results' own write.
    const note = journal.sent(9, 0).then(() => readFileSync(join(dir, 'out.jsonl'), 'utf8'));
    output.write('{"line":1}\n');
    expect(await note).toBe('{"line":1}\n');
    await journal.close();
    await output.close();
  });

  it('once the results cannot be stored, no sent note is written and no request may leave', async () => {
    const path = join(folder(), 'out.jsonl.pending');
    const output = DurableAppender.open('/dev/full', { gather: true });
    const journal = await IntentJournal.create(path, { boot: 'linux:boot-a', results: output });
    const before = readFileSync(path, 'utf8');
    output.write('{"line":1}\n');
    await expect(journal.sent(2, 0)).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(journal.sent(3, 0)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(output.lost()).toEqual(['{"line":1}']);
    expect(readFileSync(path, 'utf8')).toBe(before);
    await journal.close();
    await output.close();
  });

  it('sent notes of one turn go out in one write, before any of them resolves; a failed write rejects them all', async () => {
    const path = join(folder(), 'out.jsonl.pending');
    const journal = await IntentJournal.create(path, { boot: 'linux:boot-a' });
    const before = readFileSync(path, 'utf8');
    const notes = [journal.sent(1, 0), journal.sent(2, 7)];
    expect(readFileSync(path, 'utf8')).toBe(before); // not yet written: neither request may leave
    await Promise.all(notes);
    expect(readFileSync(path, 'utf8')).toBe(`${before}{"sent":1,"offset":0}\n{"sent":2,"offset":7}\n`);
    await journal.close();
    const failed = await Promise.allSettled([journal.sent(3, 7), journal.sent(4, 7)]);
    expect(failed.map((note) => note.status)).toEqual(['rejected', 'rejected']);
    expect(readFileSync(path, 'utf8')).toBe(`${before}{"sent":1,"offset":0}\n{"sent":2,"offset":7}\n`);
  });

  const journal: JournalContents = {
    boot: 'linux:boot-a',
    reserved: [2, 3, 5, 7].map((line) => ({ line, fingerprint: `f${line}`, offset: 10 })),
    sent: [
      { line: 2, fingerprint: 'f2', offset: 10 },
      { line: 3, fingerprint: 'f3', offset: 50 },
      { line: 3, fingerprint: 'f3', offset: 80 }, // sent again after a 429
      { line: 5, fingerprint: 'f5', offset: 90 },
    ],
  };
  // Line 2 was answered after it was sent; line 3's failure is from an earlier run.
  const previous = results([
    [2, 'failed', 60],
    [3, 'failed', 5],
  ]);

  it('in the same boot, only requests noted as sent and not answered since are unknown', () => {
    const { intents, exact } = unansweredIntents(journal, previous, 'linux:boot-a');
    expect(exact).toBe(true);
    expect(intents.map((i) => i.line)).toEqual([3, 5]);
  });

  it('after a reboot, every reservation without a newer answer is unknown', () => {
    const { intents, exact } = unansweredIntents(journal, previous, 'linux:boot-b');
    expect(exact).toBe(false);
    expect(intents.map((i) => i.line)).toEqual([3, 5, 7]);
  });

  it('a created record is never unknown, and a journal without a boot is read carefully', () => {
    const created = results([[5, 'created', 0]]);
    expect(unansweredIntents(journal, created, 'linux:boot-a').intents.map((i) => i.line)).toEqual([2, 3]);
    const noBoot = { ...journal, boot: null };
    expect(unansweredIntents(noBoot, created, 'linux:boot-a').exact).toBe(false);
  });

  it('a boot told by the uptime matches within two seconds only', () => {
    const at = (seconds: number) => ({ ...journal, boot: `uptime:${seconds}` });
    expect(unansweredIntents(at(1000), previous, 'uptime:1002').exact).toBe(true);
    expect(unansweredIntents(at(1000), previous, 'uptime:1003').exact).toBe(false);
    expect(currentBoot()).toMatch(/^(linux|uptime):\S+$/);
  });
});
