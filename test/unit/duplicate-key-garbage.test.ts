// What a record's duplicate key costs in garbage: the validation pass makes one a record. Merge data
// not in sorted order had its keys sorted by Array.prototype.sort, which left some 800 bytes of
// garbage a record (its work arrays), more than the rest of the key.
import { PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { duplicateKey } from '../../src/batch/prepare.js';

describe('duplicateKey', () => {
  it('sorts a record’s merge fields with little garbage', async () => {
    const records = Array.from({ length: 500 }, (_, i) => ({
      template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      signatory: { email: `person${i}@example.com` },
      // in the order a template lists them, not sorted
      merge_data: {
        first_name: `First ${i}`,
        company: `Company ${i}`,
        start_date: '2026-01-05',
        address: `${i} High Street`,
        role: 'Engineer',
        department: 'R&D',
      },
    }));
    let collections = 0;
    const observer = new PerformanceObserver((list) => {
      collections += list.getEntries().length;
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      for (let round = 0; round < 40; round++) for (const record of records) duplicateKey(record); // compiled
      // An attempt measures nothing if a collection ran in it, and too much if the optimised code
      // was still being compiled in the background (on a loaded machine, the unoptimised code runs
      // and allocates more, and installing the new code counts in heapUsed): the least of the
      // attempts without a collection is the cost of the key.
      let perRecord: number | undefined;
      const keys = new Array<number>(records.length);
      for (let attempt = 0; attempt < 20; attempt++) {
        await new Promise((resolve) => setImmediate(resolve));
        collections = 0;
        const before = process.memoryUsage().heapUsed;
        for (let i = 0; i < records.length; i++) keys[i] = duplicateKey(records[i] as (typeof records)[0]);
        const grown = process.memoryUsage().heapUsed - before;
        await new Promise((resolve) => setImmediate(resolve));
        if (collections === 0) perRecord = Math.min(perRecord ?? Infinity, grown / records.length);
      }
      expect(perRecord, 'an attempt without a collection').toBeDefined();
      // Some 225-270 bytes now (Node 20 to 26); through Array.prototype.sort, 1,090-1,170.
      expect(perRecord).toBeLessThan(500);
    } finally {
      observer.disconnect();
    }
  });
});
