// What was created, told when the output that should have told it failed: an envelope exists on
// the server whether or not its id and signing URL reached anyone, and one that is not reported
// gets created a second time. `create` (standard output, $GITHUB_OUTPUT) and the batch (results it
// could not store) name it the same way, on stderr, with exit 9.
import type { Envelope } from '../api/schemas.js';
import { OutputFailedError } from '../errors.js';

/** "envelope 01J…, signing URL https://…": an envelope that exists, as a lost result names it. */
export function createdEnvelopeText(envelope: Pick<Envelope, 'envelope_id' | 'signing_url'>): string {
  return `envelope ${envelope.envelope_id}, signing URL ${envelope.signing_url}`;
}

/**
 * The envelope was created but `what` could not be written (a closed pipe, a full disk): exit 9,
 * the envelope named in the details (stderr, or the `--json` error object), and the hint says not
 * to create it again. `missing`: what the user lacks, in a few words; `more`: further details.
 */
export function createdButNotWritten(
  error: NodeJS.ErrnoException,
  envelope: Pick<Envelope, 'envelope_id' | 'signing_url'>,
  { what, missing, more = [] }: { what: string; missing: string; more?: string[] },
): OutputFailedError {
  return new OutputFailedError(error, what, {
    details: [createdEnvelopeText(envelope), ...more],
    hint: `The envelope was created (${envelope.envelope_id}); ${missing}. Do not create it again.`,
  });
}
