// What the validation pass of a batch leaves to V8's old generation: nothing kept a record. Its map
// of every record's duplicate key (a Map of heap numbers, through ever larger tables) lived through
// young collections and was promoted; V8 grows its young generation by what survives its
// collections, and on Node 24 that helped leave the sending pass with a young generation twice the
// size (the whole run's peak memory).

import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { prepare } from '../../src/batch/prepare.js';
import { promotedBytes, promotionBy } from '../helpers/promotion.js';

const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

/** The records of a JSON Lines file, in the chunks of 64 KB a file is read in. */
function recordsFile(count: number): Buffer[] {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      merge_data: { first_name: `First ${i}`, company: `Company ${i}` },
      signatory: { name: `Person ${i}`, email: `person${i}@example.com` },
    }),
  );
  // Read as a file is, 64 KB at a time.
  const bytes = Buffer.from(`${lines.join('\n')}\n`);
  return Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) =>
    bytes.subarray(i * 65536, (i + 1) * 65536),
  );
}

async function checkRecords(chunks: Buffer[]) {
  const prepared = await prepare(
    {
      format: 'jsonl',
      stream: Readable.from(chunks),
      previous: new Map(),
      retryUnknown: false,
      keep: true,
      signal: new AbortController().signal,
    },
    { template: { id: TEMPLATE }, merge_data: {} },
  );
  if (prepared.kind !== 'plan') throw new Error(`expected a plan, got ${prepared.kind}`);
  prepared.plan.dispose();
}

describe('the validation pass of a batch', () => {
  it('promotes no table of every record into the old generation', async () => {
    await checkRecords(recordsFile(200)); // compiled, and the modules loaded
    const file = recordsFile(40_000);
    const grown = await promotionBy(
      () => checkRecords(file),
      () => promotedBytes(true),
    );
    expect(grown, 'an attempt without a full collection').toBeDefined();
    // Through the Map: 5.0-6.2 MB (Node 22 to 26); now 1.0-2.2 MB, the records in hand (a chunk's)
    // at each young collection.
    expect(grown).toBeLessThan(3.5 * 1024 * 1024);
  });
});
