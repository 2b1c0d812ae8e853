import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateKey, LineByKey } from '../../src/batch/prepare.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

describe('duplicateKey', () => {
  const record = (template: string, email: string, merge: Record<string, unknown>) => ({
    template_id: template,
    signatory: { email },
    merge_data: merge,
  });

  it('the same envelope for the same person: template and email in any case, merge data in any order', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9A-Z]{26}$/),
        fc.emailAddress(),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        (template, email, merge) => {
          const reversed = Object.fromEntries(Object.entries(merge).reverse());
          expect(duplicateKey(record(template.toLowerCase(), email.toUpperCase(), reversed))).toBe(
            duplicateKey(record(template, email, merge)),
          );
        },
      ),
    );
  });

  it('records that differ in anything that matters get different keys', () => {
    fc.assert(
      fc.property(
        fc.emailAddress(),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { minKeys: 1 }),
        fc.string({ minLength: 1 }),
        (email, merge, extra) => {
          const base = duplicateKey(record('01JD7X4ZQ8G1N6RVS0Y2MBKT3E', email, merge));
          const [key, value] = Object.entries(merge)[0] as [string, string];
          expect(duplicateKey(record('01JD7X4ZQ8G1N6RVS0Y2MBKT3F', email, merge))).not.toBe(base);
          expect(duplicateKey(record('01JD7X4ZQ8G1N6RVS0Y2MBKT3E', `x${email}`, merge))).not.toBe(base);
          expect(
            duplicateKey(record('01JD7X4ZQ8G1N6RVS0Y2MBKT3E', email, { ...merge, [key]: value + extra })),
          ).not.toBe(base);
        },
      ),
    );
  });

  it('merge fields are kept apart: a key, a value or the email cannot spill into the next part', () => {
    const template = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
    const keys = [
      duplicateKey(record(template, 'a@example.com', { ab: 'c' })),
      duplicateKey(record(template, 'a@example.com', { a: 'bc' })),
      duplicateKey(record(template, 'a@example.com', { a: '1:b1:c' })),
      duplicateKey(record(template, 'a@example.com', { a: '1', b: 'c' })),
      duplicateKey(record(template, 'a@example.com1:', { a: '1' })),
      duplicateKey(record(template, 'a@example.com', {})),
      duplicateKey(record(template, 'a@example.com', { '': '' })),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('no collision among 300,000 near-identical records, and every key is a safe integer', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 300_000; i++) {
      const key = duplicateKey(
        record('01JD7X4ZQ8G1N6RVS0Y2MBKT3E', `person${i}@example.com`, { name: `Person ${i}` }),
      );
      expect(Number.isSafeInteger(key)).toBe(true);
      seen.add(key);
    }
    expect(seen.size).toBe(300_000);
  });
});

describe('LineByKey', () => {
  it('answers as a Map of each key to its first line does, through its growth and colliding keys', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            // 53-bit keys, and keys that share their low bits (the same slot before mixing)
            fc.oneof(
              fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
              fc.integer({ min: 0, max: 0x1fffff }).map((high) => high * 0x100000000 + 7),
              fc.integer({ min: 0, max: 50 }),
            ),
            fc.nat({ max: 1_000_000 }),
          ),
          { minLength: 800, maxLength: 3000 },
        ),
        (entries) => {
          const table = new LineByKey();
          const map = new Map<number, number>();
          for (const [key, line] of entries) {
            const expected = map.get(key);
            if (expected === undefined) map.set(key, line);
            expect(table.firstOrSet(key, line)).toBe(expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the keys of 100,000 records off V8’s heap, in some 2 MB', () => {
    // The array buffers a table held: V8 frees those of a collection on a background thread, and
    // the next full collection waits for it, so they are read after two (on a loaded machine, the
    // tables the table outgrew were still counted after one: 4 MB instead of 2).
    const arrayBuffers = () => {
      gc();
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const table = new LineByKey();
    const before = heapUsed();
    const buffersBefore = arrayBuffers();
    for (let line = 1; line <= 100_000; line++) table.firstOrSet(line * 0x1000003 + 0x100000000, line);
    // A Map took some 5 MB there (each key a heap number, and its tables).
    expect(heapUsed() - before).toBeLessThan(512 * 1024);
    // Off the heap, filled up to 85%: 131,072 slots of 16 bytes, 2 MB (filled up to 70%, twice that).
    expect(arrayBuffers() - buffersBefore).toBeLessThan(2.5 * 1024 * 1024);
    expect(table.firstOrSet(5 * 0x1000003 + 0x100000000, 1)).toBe(5);
  });
});
