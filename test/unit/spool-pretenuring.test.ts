// Where V8 puts the records read back from the spool after a stall. When many records of one
// allocation site outlive young collections (the workers held up by a slow answer, a full disk's
// retries), V8 may decide that the site's objects are long-lived and allocate every later one
// directly in the old generation. The records were object literals, an allocation site V8 tracks:
// once the decision fell, each record was old from birth and held its strings (young) through every
// young collection, and a 100k-record batch on Node 24 peaked at some 220 MB instead of 160 MB, in
// about half the runs. Made by a constructor, the records stay young and die young (V8 tracks
// literals' sites, not a constructor's).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createSpool, type SpooledRecord } from '../../src/batch/spool.js';
import { promotionBy } from '../helpers/promotion.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

describe('spool', () => {
  it('hands out records that stay young after a stall held thousands of them', async () => {
    const spool = createSpool(mkdtempSync(join(tmpdir(), 'esign-spool-')));
    try {
      const count = 40_000;
      for (let i = 0; i < count; i++) {
        spool.writer.add({
          line: i + 1,
          fingerprint: `fp${i}`,
          email: `person${i}@example.com`,
          body: JSON.stringify({ signatory: { name: `Person ${i}` }, merge_data: { n: `${i}` } }),
        });
      }
      spool.writer.finish();
      let read = 0;
      const next = async () => {
        const records = await spool.reader.next();
        read += records.length;
        return records;
      };
      // V8 decides that a site's objects are long-lived only while its young generation is at its
      // largest, as a long batch's is: grown first, by young objects that outlive collections.
      for (let round = 0; round < 12; round++) {
        const survivors = Array.from({ length: 150_000 }, (_, i) => ({ i, text: `${i}` }));
        gc({ type: 'minor' });
        gc({ type: 'minor' });
        expect(survivors).toHaveLength(150_000);
      }
      // A stall: thousands of records held through young collections, again and again.
      for (let round = 0; round < 8; round++) {
        const held: SpooledRecord[] = [];
        while (held.length < 2000) held.push(...(await next()));
        gc({ type: 'minor' });
        gc({ type: 'minor' });
        expect(held.at(-1)?.line).toBe(read);
      }
      // Then records read and let go at once, as a batch that runs freely does.
      const readBefore = read;
      const promoted = await promotionBy(async () => {
        for (let i = 0; i < 10_000; ) {
          const records = await next();
          if (records.length === 0) break;
          i += records.length;
        }
      });
      expect(read - readBefore).toBeGreaterThanOrEqual(10_000);
      expect(promoted, 'an attempt without a full collection').toBeDefined();
      // 10,000 records old from birth: some 550 KB (the record objects; their strings stay young).
      // Young: 4-32 KB (Node 20 to 26).
      expect(promoted).toBeLessThan(256 * 1024);
    } finally {
      spool.dispose();
    }
  });
});
