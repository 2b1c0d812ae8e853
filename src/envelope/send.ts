// Sending one envelope as a batch of one: the request goes out until it has an outcome the policy
// stores (src/batch/policy.ts), with create's own bounds. Loaded only when a create is really sent,
// so that a dry run or a usage error never loads the outcome, the policy or the rate-limit headers.
import type { ApiClient } from '../api/client.js';
import type { CreateOutcome } from '../api/outcome.js';
import { sleep } from '../api/retry.js';
import type { CreateEnvelopeRequest, Envelope } from '../api/schemas.js';
import { CREATE_BOUNDS, countRetry, nextStep, type RecordState } from '../batch/policy.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { secondsText } from '../text/units.js';

/**
 * Sends the request until it has an outcome the policy stores: a batch of one, with create's own
 * bounds (src/batch/policy.ts). Returns the envelope, or throws the outcome's error.
 */
export async function createEnvelope(
  client: ApiClient,
  request: CreateEnvelopeRequest,
  ctx: Context,
): Promise<Envelope> {
  const state: RecordState = { attempts: 0, rateLimited: 0, readyAt: ctx.now().getTime() };
  for (;;) {
    let outcome: CreateOutcome;
    try {
      outcome = client.classify(await client.sendCreate(request, ctx.signal));
    } catch (error) {
      outcome = client.classifyFailure(error);
    }
    const step = nextStep(outcome, state, CREATE_BOUNDS, { now: ctx.now().getTime() });
    if (outcome.kind === 'created') return outcome.envelope;
    if (step.kind !== 'retry') throw outcome.error;
    countRetry(state, step);
    ctx.stderr.write(
      `note: the API answered ${outcome.error.status}; retrying in ${secondsText(step.waitMs)}.\n`,
    );
    try {
      await sleep(step.waitMs, ctx.signal);
    } catch {
      throw new InterruptedError('Interrupted while waiting to retry; no envelope was created.');
    }
  }
}
