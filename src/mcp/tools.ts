// The tools `esign mcp` offers, and what each does when called: the same path as the command line.
// A create or a validation goes through the request builder `envelope create` and its --dry-run
// use (src/envelope/create-request.ts), a create is sent with create's own policy
// (src/envelope/send.ts), and every failure is told with the code, message and hint of a `--json`
// error (errorBody in src/errors.ts). No checks of their own, no error mapping of their own: the
// tools' input schemas only describe the arguments, they accept anything and leave the checking to
// that path. Nothing here loads the MCP SDK (src/mcp/server.ts does).
import type * as z from 'zod/mini';
import { CreateEnvelopeRequest, Envelope, Signatory } from '../api/schemas.js';
import { connect } from '../config/connect.js';
import type { Settings } from '../config/settings.js';
import type { Context } from '../context.js';
import { errorBody } from '../errors.js';
import { inputProblem, usageProblem } from '../problems.js';
import { buildCreateRequest, type CreateDraft, type InputNames } from '../request/create-request.js';
import { type Problems, toMergeData } from '../request/request.js';
import type { ToolName } from './tool-names.js';

/** What the tools work with: the settings read once at start, and a context whose stdout is stderr. */
export interface ToolDeps {
  readonly settings: Settings;
  /** Trace each setting and exchange on stderr (--verbose). */
  readonly verbose: boolean;
  readonly ctx: Context;
  /** What `esign templates --json` prints. */
  templates(): unknown;
  /** What `esign status --json` prints. */
  status(): unknown;
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
  readonly description: string;
  readonly annotations: ToolAnnotations;
  /**
   * The arguments, as JSON Schema, for the assistant to read; they are checked by the create path
   * only. Built by the server, which has the JSON Schema converter (`toJson`).
   */
  inputJsonSchema(toJson: JsonSchemaOf): Record<string, unknown>;
  /** What a successful call returns as structured content, when it has a fixed shape. */
  readonly output?: z.ZodMiniType;
  /** The structured result; a failure is thrown (a CliError, as on the command line). */
  run(args: unknown, deps: ToolDeps): Promise<unknown>;
}

/** A tool's result, as MCP carries it: structured content, the same as JSON text, and whether it failed. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tool's arguments as a create draft; an argument the tools do not take is a problem, as an unknown flag is. */
function draftOf(args: unknown, problems: Problems): CreateDraft {
  const given = isObject(args) ? args : {};
  for (const key of Object.keys(given)) {
    if (!ARGUMENTS.includes(key)) {
      problems.push(
        usageProblem('', `unknown argument '${key}' (the arguments are ${ARGUMENTS.join(', ')}).`),
      );
    }
  }
  const mergeData = given.merge_data ?? undefined;
  if (mergeData !== undefined && !isObject(mergeData)) {
    problems.push(
      inputProblem('merge_data', 'must be an object of merge fields, like {"company": "Acme Corp"}.'),
    );
  }
  return {
    template: given.template,
    mergeData: isObject(mergeData) ? toMergeData(mergeData, 'merge_data', problems) : {},
    signatory: given.signatory,
    expiresInDays: given.expires_in_days ?? undefined,
  };
}

/** The request create_envelope would send for these arguments (what `envelope create --dry-run` prints). */
function requestFor(args: unknown, deps: ToolDeps): CreateEnvelopeRequest {
  const problems: Problems = [];
  return buildCreateRequest(draftOf(args, problems), deps.settings, problems, TOOL_INPUT_NAMES);
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

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'create_envelope',
    title: 'Create and send an envelope',
    description:
      'Creates an envelope from a template: the signatory is emailed a link to sign, at once. Checks the arguments as validate_envelope does first; nothing is sent when they are wrong. Returns the envelope (envelope_id, signing_url, status, created_at, expires_at). On failure the error carries code, message and hint. If the code is outcome_unknown (or the hint says the envelope may have been created), the envelope may exist: do not call create_envelope again for it without asking the user, or the signatory may get two.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    inputJsonSchema: envelopeInput,
    output: Envelope,
    async run(args, deps) {
      const request = requestFor(args, deps);
      const client = await connect(deps.settings, deps.ctx, { verbose: deps.verbose });
      const { createEnvelope } = await import('../envelope/send.js');
      try {
        const envelope = await createEnvelope(client, request, deps.ctx);
        deps.ctx.stderr.write(`esign mcp: create_envelope: created envelope ${envelope.envelope_id}.\n`);
        return envelope;
      } finally {
        await client.close();
      }
    },
  },
  {
    name: 'validate_envelope',
    title: 'Check an envelope without sending it',
    description:
      'Takes the same arguments as create_envelope and checks them the same way, against the template names in force and the API’s request rules. Returns the exact request body create_envelope would send, or an error listing every problem found. Sends nothing.',
    annotations: READ_ONLY,
    inputJsonSchema: envelopeInput,
    output: CreateEnvelopeRequest,
    run: async (args, deps) => requestFor(args, deps),
  },
  {
    name: 'list_templates',
    title: 'List the template names in force',
    description:
      'The template names in force (from the project file .esign.json, for the active profile), their ids, and in entries each one with its declared fields (required ones must be in merge_data; a key that is not a field is refused), as `esign templates --json` gives them. A name can be given as create_envelope’s template.',
    annotations: READ_ONLY,
    inputJsonSchema: noArguments,
    run: async (_args, deps) => deps.templates(),
  },
  {
    name: 'get_status',
    title: 'Show the settings in use',
    description:
      'The profile, the API base URL, where the token comes from (masked: the token itself is never shown), the config file and the project file in force, as `esign status --json` gives them.',
    annotations: READ_ONLY,
    inputJsonSchema: noArguments,
    run: async (_args, deps) => deps.status(),
  },
];

/** Runs a tool: its structured result, or its failure as a tool error carrying a `--json` error's fields. */
export async function callTool(tool: ToolDefinition, args: unknown, deps: ToolDeps): Promise<ToolResult> {
  try {
    const value = await tool.run(args, deps);
    const structured = isObject(value) ? value : { result: value };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured };
  } catch (error) {
    const body = errorBody(error);
    deps.ctx.stderr.write(`esign mcp: ${tool.name}: ${String(body.code)}: ${String(body.message)}\n`);
    const structured = { error: body };
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
      isError: true,
    };
  }
}
