// What a record read back from the spool keeps alive: its own text, not the chunk it was read from.
// The reader made each 256 KB chunk into one string and sliced the records out of it, so any record
// still waiting to be sent held its whole chunk (a thousand records' text, a large object for V8):
// each chunk outlived young collections and was promoted, and on Node 24 the young generation grew
// to the largest V8 allows (some 70 MB more peak memory for a 100k-record batch).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createSpool, type SpooledRecord } from '../../src/batch/spool.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe('spool', () => {
  it('hands out records that do not keep the text of the records read with them', async () => {
    const spool = createSpool(mkdtempSync(join(tmpdir(), 'esign-spool-')));
    try {
      const filler = 'x'.repeat(1000);
      const count = 6000; // some 6 MB of records: two dozen chunks
      for (let i = 0; i < count; i++) {
        spool.writer.add({
          line: i + 1,
          fingerprint: `fp${i}`,
          email: `person${i}@example.com`,
          body: JSON.stringify({ signatory: { name: `Person ${i}` }, note: filler }),
        });
      }
      spool.writer.finish();
      const before = heapUsed();
      // One record in a hundred is kept, as a record still waiting for its turn would be.
      const kept: SpooledRecord[] = [];
      let read = 0;
      for (let records = await spool.reader.next(); records.length > 0; records = await spool.reader.next()) {
        for (const record of records) if (read++ % 100 === 0) kept.push(record);
      }
      expect(read).toBe(count);
      expect(kept.at(-1)?.body).toContain(filler);
      const held = heapUsed() - before;
      // 60 records of 1 KB; slices of whole chunks held all 6 MB.
      expect(held).toBeLessThan(1024 * 1024);
      expect(kept).toHaveLength(count / 100);
    } finally {
      spool.dispose();
    }
  });

  it('keeps the text of no record on the heap while it waits for the next write', () => {
    const spool = createSpool(mkdtempSync(join(tmpdir(), 'esign-spool-')));
    try {
      const filler = 'y'.repeat(150);
      const before = heapUsed();
      // Some 200 KB of records: less than the writer gathers for one write.
      for (let i = 0; i < 1000; i++) {
        spool.writer.add({
          line: i + 1,
          fingerprint: `fp${i}`,
          email: `person${i}@example.com`,
          body: JSON.stringify({ note: `${filler}${i}` }),
        });
      }
      // A list of the records' lines held them all (some 250 KB); the writer's buffer is off the heap.
      expect(heapUsed() - before).toBeLessThan(64 * 1024);
    } finally {
      spool.dispose();
    }
  });
});
