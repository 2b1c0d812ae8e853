// esign envelope batch <file>: one envelope per record, with results streamed as JSON Lines and a
// run that can always be resumed. The work is done by the phases in src/batch/ (prepare, resume,
// limiter, send, progress, report), run in order by src/batch/core.ts; this is the command's face.
import * as z from 'zod/mini';
import { runBatchCore } from '../../batch/core.js';
import { DEFAULT_MAX_RATE_WAIT_MS } from '../../batch/run-batch.js';
import type { Context } from '../../context.js';
import { fromText, globalOptions, repeated, wholeNumber } from '../../options.js';
import { DURATION_EXPECTED, parseDuration, parseRate, RATE_EXPECTED } from '../../text/units.js';

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
  rate: z.optional(fromText((text) => parseRate(text), RATE_EXPECTED)),
  maxRateWait: z._default(fromText(parseDuration, DURATION_EXPECTED), DEFAULT_MAX_RATE_WAIT_MS),
  output: z.optional(z.string()),
  resume: z.optional(z.boolean()),
  retryUnknown: z.optional(z.boolean()),
  dryRun: z.optional(z.boolean()),
  allowDuplicates: z.optional(z.boolean()),
  keepGoing: z.optional(z.boolean()),
  yes: z.optional(z.boolean()),
  input: z.optional(z.boolean()),
});

export async function run(flags: z.infer<typeof options>, ctx: Context): Promise<number> {
  return (await runBatchCore(flags, ctx)).code;
}
