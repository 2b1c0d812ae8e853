// A person confirms before `create_envelope` sends anything. Decided here, once: what they are shown
// (template, signatory, fields, expiry, and where it goes), what counts as their yes, and that a yes
// sends the very envelope it was given for, once. The asking itself is the MCP SDK's (elicitation,
// in src/mcp/server.ts); nothing here loads it.
import { createHash, randomBytes } from 'node:crypto';
import type { CreateEnvelopeRequest } from '../api/schemas.js';
import { CliError, ExitCode } from '../errors.js';
import { isPlainObject } from '../text/plain-object.js';
import { escapeControl } from '../text/terminal-text.js';

/** `--confirm`: ask the person through the client (the default), or send without asking. */
export const CONFIRM_MODES = ['ask', 'never'] as const;
export type ConfirmMode = (typeof CONFIRM_MODES)[number];

/** The key the confirmation is asked and answered under. */
export const CONFIRM_KEY = 'confirm_send';

/** The form the person answers: one yes-or-no, with no default, so that only a choice made sends. */
export const CONFIRM_FORM: {
  type: 'object';
  properties: { send: { type: 'boolean'; title: string; description: string } };
  required: string[];
} = {
  type: 'object',
  properties: {
    send: {
      type: 'boolean',
      title: 'Send this envelope now',
      description: 'Yes emails the signatory a link to sign, at once. No sends nothing.',
    },
  },
  required: ['send'],
};

/** What the person answered, as the client relayed it (untrusted: checked here). */
export interface ConfirmationAnswer {
  readonly response: unknown;
  /** The state the question carried, as the client sent it back. */
  readonly state: unknown;
}

/** The envelope was not sent because no person said yes to it. Nothing was sent. */
export class NotConfirmedError extends CliError {
  constructor(
    message: string,
    code: 'declined' | 'cancelled' | 'not_confirmed' | 'confirmation_required',
    hint: string,
  ) {
    super(message, ExitCode.usage, code, { hint });
  }
}

const NOTHING_SENT = 'Nothing was sent.';

/**
 * What the person's answer means for `request`: the ledger entry it carried must be the question
 * asked for this very request; then only an accepted form with `send: true` is a yes.
 */
export function judgeAnswer(
  answer: ConfirmationAnswer,
  request: CreateEnvelopeRequest,
  ledger: ConfirmationLedger,
): void {
  const response = isPlainObject(answer.response) ? answer.response : {};
  const action = response.action;
  if (action === 'cancel') {
    throw new NotConfirmedError(
      `The person dismissed the confirmation. ${NOTHING_SENT}`,
      'cancelled',
      'Ask the person whether to send it before calling create_envelope again.',
    );
  }
  if (action === 'decline') {
    throw new NotConfirmedError(
      `The person declined to send this envelope. ${NOTHING_SENT}`,
      'declined',
      'Do not send it again unless the person asks you to; ask what to change.',
    );
  }
  const content = isPlainObject(response.content) ? response.content : {};
  if (action !== 'accept' || content.send !== true) {
    throw new NotConfirmedError(
      `The person did not choose to send this envelope. ${NOTHING_SENT}`,
      'declined',
      'Ask the person whether to send it before calling create_envelope again.',
    );
  }
  if (!ledger.redeem(answer.state, request)) {
    throw new NotConfirmedError(
      `The confirmation does not match this envelope (or it expired, or it was used already). ${NOTHING_SENT}`,
      'not_confirmed',
      'Call create_envelope again: the person is asked to confirm the envelope as it is now.',
    );
  }
}

/** Why nothing is sent by a server that cannot ask: the client has no forms (elicitation). */
export function confirmationUnavailable(): NotConfirmedError {
  return new NotConfirmedError(
    `This MCP client cannot ask the person to confirm (it does not support elicitation), and esign sends an envelope only after a person confirmed it. ${NOTHING_SENT}`,
    'confirmation_required',
    'Show the person the envelope (validate_envelope returns it) and let them send it themselves with `esign envelope create`; or, where an assistant is trusted to send without asking, start the server with `esign mcp --confirm never` (or ESIGN_MCP_CONFIRM=never).',
  );
}

/** What the person is shown before anything is sent. */
export interface ConfirmationFacts {
  readonly request: CreateEnvelopeRequest;
  /** The template as the assistant named it (a name in force, or the id). */
  readonly templateGiven: unknown;
  readonly profile: string;
  readonly baseUrl: string | undefined;
  readonly now: Date;
}

/** The question, in plain lines. Every value the assistant gave is escaped: it is data, never layout. */
export function confirmationMessage(facts: ConfirmationFacts): string {
  const { request } = facts;
  const named =
    typeof facts.templateGiven === 'string' && facts.templateGiven.toUpperCase() !== request.template_id
      ? `${escapeControl(facts.templateGiven)} (${request.template_id})`
      : request.template_id;
  const { name, email, phone } = request.signatory;
  const fields = Object.entries(request.merge_data);
  const lines = [
    'Send this envelope? The signatory is emailed a link to sign, at once.',
    '',
    `Template: ${named}`,
    `Signatory: ${escapeControl(name)} <${escapeControl(email)}>${phone === undefined ? '' : `, phone ${escapeControl(phone)}`}`,
    fields.length === 0 ? 'Fields: none' : 'Fields:',
    ...fields.map(([key, value]) => `  ${escapeControl(key)}: ${JSON.stringify(escapeControl(value))}`),
    `Expires: ${expiryText(request.expires_in_days, facts.now)}`,
    `To be sent with profile '${escapeControl(facts.profile)}' to ${escapeControl(facts.baseUrl ?? '(no base URL)')}`,
  ];
  return lines.join('\n');
}

function expiryText(days: number | undefined, now: Date): string {
  const shown = days ?? 30;
  const until = new Date(now.getTime() + shown * 86_400_000).toISOString().slice(0, 10);
  const unit = shown === 1 ? 'day' : 'days';
  return `in ${shown} ${unit}, about ${until} (UTC)${days === undefined ? ", the API's default" : ''}`;
}

interface Asked {
  readonly digest: string;
  readonly expiresAt: number;
}

/** How long a question stays answerable: a person may take a while; not all day. */
const ANSWER_WITHIN_MS = 15 * 60_000;
/** Questions kept at once; the oldest goes first. */
const MOST_ASKED = 64;

/**
 * The questions asked and not yet answered: each is named by a random state the client carries
 * back with the answer, and bound to the digest of the exact request shown. A yes is redeemed once:
 * it sends the envelope it was given for, and no other, and only one of it.
 */
export class ConfirmationLedger {
  readonly #asked = new Map<string, Asked>();

  constructor(private readonly now: () => number) {}

  /** A new question for `request`: the state to carry. */
  ask(request: CreateEnvelopeRequest): string {
    this.#prune();
    const state = randomBytes(18).toString('base64url');
    this.#asked.set(state, { digest: digestOf(request), expiresAt: this.now() + ANSWER_WITHIN_MS });
    return state;
  }

  /** True, once, when `state` names a question asked for this very request that has not expired. */
  redeem(state: unknown, request: CreateEnvelopeRequest): boolean {
    if (typeof state !== 'string') return false;
    const asked = this.#asked.get(state);
    if (!asked) return false;
    this.#asked.delete(state);
    return asked.expiresAt > this.now() && asked.digest === digestOf(request);
  }

  #prune(): void {
    const now = this.now();
    for (const [state, asked] of this.#asked) if (asked.expiresAt <= now) this.#asked.delete(state);
    while (this.#asked.size >= MOST_ASKED) {
      const oldest = this.#asked.keys().next().value as string;
      this.#asked.delete(oldest);
    }
  }
}

function digestOf(request: CreateEnvelopeRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('base64url');
}
