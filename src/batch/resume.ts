// Resuming a batch: what the earlier runs did, read back from the results file and its journal,
// with the intents nobody answered turned into `unknown` results; refused (as a value the command
// words) when the file is not a results file or its envelopes were created at another API. Claiming
// the results file for a run, and refusing to overwrite it, are the command's
// (src/commands/envelope/batch-output.ts).
import { existsSync } from 'node:fs';
import type { Env } from '../context.js';
import { OUTCOME_UNKNOWN } from '../errors.js';
import { DurableAppender } from './durable-file.js';
import { formatResult } from './formats.js';
import { readJournal, unansweredIntents } from './journal.js';
import {
  inspectTail,
  type PreviousResults,
  ResumeRefusedError,
  readPreviousResults,
  repairTail,
} from './previous-results.js';

/**
 * What the earlier runs did, with unanswered intents turned into `unknown` results. The journal is
 * read even when the results file is gone: its intents then all count as unknown. Throws
 * ResumeRefusedError when the results cannot be resumed, before anything is written.
 */
export async function loadPrevious(
  output: string,
  options: { write?: boolean; baseUrl?: string | undefined; shownAs?: string | undefined; env?: Env } = {},
): Promise<PreviousResults> {
  const { write = true, baseUrl } = options;
  const baseUrls = new Set<string>();
  const tail = existsSync(output) ? await inspectTail(output) : undefined;
  const previous: PreviousResults = tail ? await readPreviousResults(output, baseUrls, tail) : new Map();
  previous.shownAs = options.shownAs ?? output;
  if (baseUrl !== undefined) checkSameApi(baseUrls, baseUrl);
  const { intents, exact } = unansweredIntents(await readJournal(`${output}.pending`), previous);
  // Read without a problem: the file is made ready for this run's lines (a torn last line cut off,
  // a newline after a whole last line that lacks one).
  if (write && tail) await repairTail(output, tail);
  if (intents.length > 0) {
    const lines = intents.map((intent) =>
      formatResult({
        line: intent.line,
        ok: false,
        error: {
          code: OUTCOME_UNKNOWN,
          message: exact
            ? 'The run stopped after this request was sent and before its answer was stored.'
            : 'The machine restarted while this record was being sent: it may or may not have left.',
          status: null,
        },
        fingerprint: intent.fingerprint,
        ...(baseUrl === undefined ? {} : { base_url: baseUrl }),
      }),
    );
    if (write) {
      const appender = DurableAppender.open(output, { mode: 0o600, env: options.env });
      try {
        await appender.append(`${lines.join('\n')}\n`);
      } finally {
        await appender.close();
      }
    }
    for (const intent of intents) {
      if (previous.get(intent.line)?.state !== 'created') {
        previous.set(intent.line, {
          state: 'unknown',
          fingerprint: intent.fingerprint,
          offset: Number.MAX_SAFE_INTEGER,
        });
      }
    }
  }
  return previous;
}

/** Base URLs are the same API when they differ only by trailing slashes. */
const sameApi = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * A resume sends to the API that created the earlier envelopes, or not at all: another API has
 * none of them, so every record would be sent again there, and the results file would mix two.
 */
function checkSameApi(recorded: ReadonlySet<string>, baseUrl: string): void {
  const others = [...recorded].filter((url) => !sameApi(url, baseUrl));
  if (others.length === 0) return;
  throw new ResumeRefusedError({ kind: 'other_api', recorded: others, baseUrl });
}
