// esign envelope batch <file>: one envelope per record, with results streamed as JSON Lines and a
// run that can always be resumed. The work is done by the phases in src/batch/ (prepare, resume,
// limiter, send, progress, report), run in order by src/batch/core.ts; this is the command's face.
import * as z from 'zod/mini';
import { runBatchCore } from '../../batch/core.js';
import { parseDuration, parseRate } from '../../batch/limiter.js';
import { DEFAULT_MAX_RATE_WAIT_MS } from '../../batch/run-batch.js';
import type { Context } from '../../context.js';
import { fromText, globalOptions, repeated, wholeNumber } from '../options.js';

export const options = z.object({
  ...globalOptions,
  file: z.string(),
  format: z.optional(z.enum(['jsonl', 'csv'], { error: 'must be jsonl or csv' })),
  template: z.optional(z.string()),
  data: repeated(),
  set: repeated(),
  expiresInDays: z.optional(z.string()),
  // No default here: the project file's defaults.concurrency comes between the flag and 4 (core.ts).
  concurrency: z.optional(wholeNumber(1, 64)),
  maxRetries: z._default(wholeNumber(0, 20), 5),
  rate: z.optional(fromText(parseRate, 'a count per time, like 100/min, 5/s or 20/30s')),
  maxRateWait: z._default(
    fromText(parseDuration, 'a duration, like 90s, 10m or 1h'),
    DEFAULT_MAX_RATE_WAIT_MS,
  ),
  output: z.optional(z.string()),
  resume: z.optional(z.boolean()),
  retryUnknown: z.optional(z.boolean()),
  dryRun: z.optional(z.boolean()),
  allowDuplicates: z.optional(z.boolean()),
});

export async function run(flags: z.infer<typeof options>, ctx: Context): Promise<number> {
  return (await runBatchCore(flags, ctx)).code;
}
