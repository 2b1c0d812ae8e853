// What a batch's plan keeps through the whole run: the spool, not the validation pass. The pass's
// maps (every record's duplicate key, the earlier results by line and by fingerprint) are garbage
// once it is over; a plan that kept them held some 50 bytes a record until the batch ended.
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { prepare } from '../../src/batch/prepare.js';
import type { PreviousResults } from '../../src/batch/previous-results.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

async function planKeepingNothingElse() {
  const previous: PreviousResults = new Map();
  const lines = Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({ signatory: { name: `Person ${i}`, email: `person${i}@example.com` } }),
  );
  const prepared = await prepare(
    {
      format: 'jsonl',
      stream: Readable.from([`${lines.join('\n')}\n`]),
      previous,
      retryUnknown: false,
      keep: true,
      signal: new AbortController().signal,
    },
    { template: { id: TEMPLATE }, merge_data: {} },
  );
  if (prepared.kind !== 'plan') throw new Error(`expected a plan, got ${prepared.kind}`);
  // Only the validation pass (through its input) holds `previous` once prepare is over.
  return { plan: prepared.plan, pass: new WeakRef(previous) };
}

describe('a batch plan', () => {
  it('does not keep the validation pass (its maps of every record) alive while the records are sent', async () => {
    const { plan, pass } = await planKeepingNothingElse();
    try {
      // A WeakRef holds its target until the current job ends: collect on a later turn.
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(pass.deref()).toBeUndefined();
      // The plan still sends every record.
      let sent = 0;
      for (let records = await plan.records(); records.length > 0; records = await plan.records())
        sent += records.length;
      expect(sent).toBe(50);
    } finally {
      plan.dispose();
    }
  });
});
