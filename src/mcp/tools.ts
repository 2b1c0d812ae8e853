// The tools `esign mcp` offers, and what each does when called: the same path as the command line.
// A create or a validation goes through the request builder `envelope create` and its --dry-run
// use (src/envelope/create-request.ts), with the server's own rules (--allow-domain) checked there
// too; a create is confirmed by a person first (src/mcp/confirm.ts), then sent with create's own
// policy (src/envelope/send.ts). Every failure is told with the code, message and hint of a
// `--json` error (errorBody in src/errors.ts), as the tool result src/mcp/results.ts makes of it.
// No checks of their own, no error mapping of their own: the tools' input schemas only describe the
// arguments, they accept anything and leave the checking to that path. Nothing here loads the MCP
// SDK (src/mcp/server.ts does).
import type * as z from 'zod/mini';
import { CreateEnvelopeRequest, Envelope, Signatory } from '../api/schemas.js';
import { connect } from '../config/connect.js';
import type { Settings } from '../config/settings.js';
import type { Context } from '../context.js';
import { CliError, ExitCode, InterruptedError, OUTCOME_UNKNOWN } from '../errors.js';
import { inputProblem, usageProblem } from '../problems.js';
import { buildCreateRequest, type CreateDraft, type InputNames } from '../request/create-request.js';
import { type Problems, toMergeData } from '../request/request.js';
import { type AllowedDomain, describeAllowedDomain } from '../request/signatory-domains.js';
import { isPlainObject } from '../text/plain-object.js';
import {
  CONFIRM_FORM,
  CONFIRM_KEY,
  type ConfirmationLedger,
  type ConfirmMode,
  confirmationMessage,
  confirmationUnavailable,
  judgeAnswer,
} from './confirm.js';
import { errorResult, successResult, type ToolResult } from './results.js';
import type { ToolName } from './tool-names.js';

/** What the tools work with: the settings read once at start, and a context whose stdout is stderr. */
export interface ToolDeps {
  readonly settings: Settings;
  /** Trace each setting and exchange on stderr (--verbose). */
  readonly verbose: boolean;
  readonly ctx: Context;
  /** What the server was told: ask a person before sending (`ask`), or not (`never`). */
  readonly confirm: ConfirmMode;
  /** The domains a signatory's address may be at (--allow-domain); empty: any. */
  readonly allowedDomains: readonly AllowedDomain[];
  /** The questions asked and not yet answered. */
  readonly ledger: ConfirmationLedger;
  /** What `esign templates --json` prints. */
  templates(): unknown;
  /** What `esign status --json` prints. */
  status(): unknown;
}

/** What the client can do, and what the person answered, for one call (from src/mcp/server.ts). */
export interface CallContext {
  /** The client can show the person a form (elicitation, form mode). */
  readonly canAsk: boolean;
  /** The answers to the questions asked in an earlier round of this call, by key, and the state it carried. */
  readonly answer?: { readonly responses: Readonly<Record<string, unknown>>; readonly state: unknown };
}

/** A wire schema as JSON Schema. */
type JsonSchemaOf = (schema: z.ZodMiniType) => Record<string, unknown>;

interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  readonly name: ToolName;
  readonly title: string;
  description(deps: Pick<ToolDeps, 'confirm' | 'allowedDomains'>): string;
  readonly annotations: ToolAnnotations;
  /**
   * The arguments, as JSON Schema, for the assistant to read; they are checked by the create path
   * only. Built by the server, which has the JSON Schema converter (`toJson`).
   */
  inputJsonSchema(toJson: JsonSchemaOf): Record<string, unknown>;
  /** What a successful call returns as structured content, when it has a fixed shape. */
  readonly output?: z.ZodMiniType;
  /**
   * The structured result, or a question for the person (create_envelope); a failure is thrown (a
   * CliError, as on the command line).
   */
  run(args: unknown, deps: ToolDeps, call: CallContext): Promise<unknown>;
}

/** The person is to be asked, through the client, before the call goes on. */
export interface ConfirmationQuestion {
  readonly ask: {
    /** What the answer comes back under. */
    readonly key: string;
    readonly message: string;
    readonly form: typeof CONFIRM_FORM;
    /** Carried by the client with the answer: names the question, bound to the request shown. */
    readonly state: string;
  };
}

export const isQuestion = (value: unknown): value is ConfirmationQuestion =>
  isPlainObject(value) && isPlainObject(value.ask) && typeof value.ask.state === 'string';

const ARGUMENTS = ['template', 'signatory', 'merge_data', 'expires_in_days'];

/** Problems name the tool's arguments, as the command line's name its flags. */
const TOOL_INPUT_NAMES: InputNames = {
  fields: {
    template_id: 'template',
    signatory: 'signatory',
    'signatory.name': 'signatory.name',
    'signatory.email': 'signatory.email',
    'signatory.phone': 'signatory.phone',
    expires_in_days: 'expires_in_days',
  },
  hint: 'Nothing was sent. Fix the arguments named, and call validate_envelope to check them before create_envelope.',
};

/** The tool's arguments as a create draft; an argument the tools do not take is a problem, as an unknown flag is. */
function draftOf(args: unknown, problems: Problems): CreateDraft {
  const given = isPlainObject(args) ? args : {};
  for (const key of Object.keys(given)) {
    if (!ARGUMENTS.includes(key)) {
      problems.push(
        usageProblem('', `unknown argument '${key}' (the arguments are ${ARGUMENTS.join(', ')}).`),
      );
    }
  }
  const mergeData = given.merge_data ?? undefined;
  if (mergeData !== undefined && !isPlainObject(mergeData)) {
    problems.push(
      inputProblem('merge_data', 'must be an object of merge fields, like {"company": "Acme Corp"}.'),
    );
  }
  return {
    template: given.template,
    mergeData: isPlainObject(mergeData) ? toMergeData(mergeData, 'merge_data', problems) : {},
    signatory: given.signatory,
    expiresInDays: given.expires_in_days ?? undefined,
  };
}

/** The request create_envelope would send for these arguments (what `envelope create --dry-run` prints). */
function requestFor(args: unknown, deps: ToolDeps): CreateEnvelopeRequest {
  const problems: Problems = [];
  return buildCreateRequest(draftOf(args, problems), deps.settings, problems, {
    ...TOOL_INPUT_NAMES,
    allowedDomains: deps.allowedDomains,
  });
}

/** The arguments of create_envelope and validate_envelope. */
function envelopeInput(toJson: JsonSchemaOf): Record<string, unknown> {
  const signatory = toJson(Signatory);
  return {
    type: 'object',
    properties: {
      template: {
        type: 'string',
        description:
          'A template name in force (list_templates lists them) or a template id (a ULID, like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E).',
      },
      signatory: { ...signatory, description: 'Who signs: full name, email, and optionally a phone number.' },
      merge_data: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: "The template's merge fields and their values, as strings.",
      },
      expires_in_days: {
        type: 'integer',
        minimum: 1,
        description: "Days until the envelope expires; default the project file's, else 30.",
      },
    },
    required: ['template', 'signatory'],
  };
}

const noArguments = () => ({ type: 'object', properties: {} });

const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** What the descriptions say of --allow-domain, when the server was started with it. */
function domainsSentence(allowed: readonly AllowedDomain[]): string {
  return allowed.length === 0
    ? ''
    : ` This server sends only to signatories at ${allowed.map(describeAllowedDomain).join(', ')}; any other address is refused before anything is sent.`;
}

const CREATE_DESCRIPTION_END =
  ' Returns the envelope (envelope_id, signing_url, status, created_at, expires_at). On failure the result is an error whose text carries esign’s code, message and hint. If the code is outcome_unknown, the envelope may exist: never call create_envelope again for it without asking the user, or the signatory may get two.';

/**
 * Whether `request` may be sent now: nothing to ask (--confirm never), or the person's yes to this
 * very request; else the question to ask them. A no, a dismissal, or a client that cannot ask is
 * thrown: nothing is sent.
 */
function confirmBeforeSending(
  request: CreateEnvelopeRequest,
  args: unknown,
  deps: ToolDeps,
  call: CallContext,
): ConfirmationQuestion | undefined {
  if (deps.confirm === 'never') return undefined;
  if (call.answer) {
    const { responses, state } = call.answer;
    judgeAnswer({ response: responses[CONFIRM_KEY], state }, request, deps.ledger);
    logCreate(deps, 'the person confirmed; sending.');
    return undefined;
  }
  if (!call.canAsk) throw confirmationUnavailable();
  logCreate(deps, 'asking the person to confirm; nothing is sent until they do.');
  const message = confirmationMessage({
    request,
    templateGiven: isPlainObject(args) ? args.template : undefined,
    profile: deps.settings.profile.value,
    baseUrl: deps.settings.baseUrl.value,
    now: deps.ctx.now(),
  });
  return { ask: { key: CONFIRM_KEY, message, form: CONFIRM_FORM, state: deps.ledger.ask(request) } };
}

/**
 * A create the server gave up waiting for (a second signal while it stopped) after its request had
 * left: its outcome is unknown, and said so to the client and on stderr, never as a plain interrupt.
 */
function abortedAfterSending(error: unknown): unknown {
  if (!(error instanceof InterruptedError) || !error.mayHaveSent) return error;
  return new CliError(
    'The server was stopped while it waited for the API to answer this create: the envelope may have been created.',
    ExitCode.interrupted,
    OUTCOME_UNKNOWN,
    { hint: 'Check whether it exists before sending it again: the signatory would get two.', cause: error },
  );
}

const logCreate = (deps: ToolDeps, line: string) =>
  deps.ctx.stderr.write(`esign mcp: create_envelope: ${line}\n`);

/** Checks, connects (a missing token is told before anyone is asked), confirms, then sends. */
async function createEnvelopeTool(args: unknown, deps: ToolDeps, call: CallContext): Promise<unknown> {
  const request = requestFor(args, deps);
  const client = await connect(deps.settings, deps.ctx, {
    verbose: deps.verbose,
    // The API's 403 and 404 hints name the tool's argument, as the problems found here do.
    templateFrom: `the ${TOOL_INPUT_NAMES.fields.template_id} argument`,
  });
  try {
    const question = confirmBeforeSending(request, args, deps, call);
    if (question) return question;
    const { createEnvelope } = await import('../envelope/send.js');
    const envelope = await createEnvelope(client, request, deps.ctx).catch((error: unknown) => {
      throw abortedAfterSending(error);
    });
    logCreate(deps, `created envelope ${envelope.envelope_id}.`);
    return envelope;
  } finally {
    await client.close();
  }
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'create_envelope',
    title: 'Create and send an envelope',
    description: ({ confirm, allowedDomains }) =>
      'Creates an envelope from a template and sends it: the signatory, a real person, is emailed a link to sign, at once, and it cannot be unsent. The arguments are checked first as validate_envelope checks them; nothing is sent when they are wrong.' +
      domainsSentence(allowedDomains) +
      (confirm === 'ask'
        ? ' Then the person using this client is shown what will be sent (template, signatory, fields, expiry) and asked to confirm; only their yes sends it. A no, a dismissal, or a client that cannot ask (no elicitation) sends nothing, and the error says so (code declined, cancelled or confirmation_required): do not try again unless the person asks.'
        : ' This server was started with --confirm never: it sends at once, without asking the person to confirm, so be sure the person wants it sent.') +
      CREATE_DESCRIPTION_END,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    inputJsonSchema: envelopeInput,
    output: Envelope,
    run: createEnvelopeTool,
  },
  {
    name: 'validate_envelope',
    title: 'Check an envelope without sending it',
    description: ({ allowedDomains }) =>
      `Takes the same arguments as create_envelope and checks them the same way, against the template names in force and the API’s request rules.${domainsSentence(allowedDomains)} Returns the exact request body create_envelope would send, or an error listing every problem found. Sends nothing.`,
    annotations: READ_ONLY,
    inputJsonSchema: envelopeInput,
    output: CreateEnvelopeRequest,
    run: async (args, deps) => requestFor(args, deps),
  },
  {
    name: 'list_templates',
    title: 'List the template names in force',
    description: () =>
      'The template names in force (from the project file .esign.json, for the active profile), their ids, and in entries each one with its declared fields (required ones must be in merge_data; a key that is not a field is refused), as `esign templates --json` gives them. A name can be given as create_envelope’s template. Also readable as the resources esign://templates and esign://templates/{name}.',
    annotations: READ_ONLY,
    inputJsonSchema: noArguments,
    run: async (_args, deps) => deps.templates(),
  },
  {
    name: 'get_status',
    title: 'Show the settings in use',
    description: () =>
      'The profile, the API base URL, where the token comes from (masked: the token itself is never shown), the config file and the project file in force, as `esign status --json` gives them.',
    annotations: READ_ONLY,
    inputJsonSchema: noArguments,
    run: async (_args, deps) => deps.status(),
  },
];

/**
 * Runs a tool: its result, a question for the person, or its failure as a tool error carrying a
 * `--json` error's fields.
 */
export async function callTool(
  tool: ToolDefinition,
  args: unknown,
  deps: ToolDeps,
  call: CallContext = { canAsk: false },
): Promise<ToolResult | ConfirmationQuestion> {
  try {
    const value = await tool.run(args, deps, call);
    return isQuestion(value) ? value : successResult(value);
  } catch (error) {
    const result = errorResult(error);
    deps.ctx.stderr.write(`esign mcp: ${tool.name}: ${result.code}: ${result.message}\n`);
    return result.toolResult;
  }
}
