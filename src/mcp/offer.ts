// Everything `esign mcp` serves, as values and functions the SDK-side server (src/mcp/server.ts)
// registers: the tools chosen, with descriptions that say how this server was started; the
// templates in force as resources; the "send an envelope" prompt; the instructions. Built in the
// main bundle, from the settings read once at start; nothing here loads the SDK.

import type { ToolResult } from './results.js';
import type { ToolName } from './tool-names.js';
import {
  type CallContext,
  type ConfirmationQuestion,
  callTool,
  TOOLS,
  type ToolDefinition,
  type ToolDeps,
} from './tools.js';

/** A tool as listed: its description said for this server's settings. */
interface ServedTool extends Omit<ToolDefinition, 'description' | 'run'> {
  readonly description: string;
}

interface ResourceListing {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  [key: string]: unknown;
}

export interface ServerOffer {
  readonly tools: readonly ServedTool[];
  call(tool: ServedTool, args: unknown, call: CallContext): Promise<ToolResult | ConfirmationQuestion>;
  readonly resources: {
    readonly index: { name: string; uri: string; title: string; description: string; read(): string };
    readonly entry: {
      name: string;
      uriTemplate: string;
      title: string;
      description: string;
      list(): ResourceListing[];
      names(): string[];
      read(name: string): string;
    };
  };
  readonly prompt: {
    name: string;
    title: string;
    description: string;
    /** The arguments as JSON Schema (all optional text). */
    arguments: Record<string, unknown>;
    text(args: unknown): string;
  };
  readonly instructions: string;
}

/** One template as `esign templates --json` lists it in `entries`. */
interface TemplateEntry {
  name: string;
  id: string;
  fields: { name: string; required: boolean }[];
}

interface TemplatesReport {
  project_file: string | null;
  profile: string;
  entries: TemplateEntry[];
}

const INDEX_URI = 'esign://templates';

/** What is served, for the tools chosen at start. */
export function serverOffer(chosen: readonly ToolName[], deps: ToolDeps): ServerOffer {
  const definitions = TOOLS.filter((tool) => chosen.includes(tool.name));
  const tools = definitions.map(({ run: _, description, ...rest }) => ({
    ...rest,
    description: description(deps),
  }));
  const report = () => deps.templates() as TemplatesReport;
  const entryOf = (name: string) => report().entries.find((entry) => entry.name === name);
  return {
    tools,
    call: (served, args, call) => {
      const tool = definitions.find((definition) => definition.name === served.name) as ToolDefinition;
      return callTool(tool, args, deps, call);
    },
    resources: {
      index: {
        name: 'templates',
        uri: INDEX_URI,
        title: 'Templates in force',
        description:
          'The template names in force (from .esign.json, for the active profile), their ids and declared fields: what list_templates returns.',
        read: () => JSON.stringify(deps.templates(), null, 2),
      },
      entry: {
        name: 'template',
        uriTemplate: `${INDEX_URI}/{name}`,
        title: 'A template in force',
        description:
          'One template name in force: its id and declared fields (required ones must be in merge_data).',
        list: () =>
          report().entries.map((entry) => ({
            uri: `${INDEX_URI}/${encodeURIComponent(entry.name)}`,
            name: entry.name,
            title: `Template ${entry.name}`,
            description: describeEntry(entry),
            mimeType: 'application/json',
          })),
        names: () => report().entries.map((entry) => entry.name),
        read: (name) => {
          const entry = entryOf(decodeURIComponent(name));
          const { profile, project_file } = report();
          return JSON.stringify(
            entry
              ? { ...entry, profile, project_file }
              : {
                  error: `No template named '${name}' is in force for profile '${profile}'.`,
                  profile,
                  project_file,
                },
            null,
            2,
          );
        },
      },
    },
    prompt: sendEnvelopePrompt(chosen),
    instructions: instructionsFor(chosen),
  };
}

function describeEntry(entry: TemplateEntry): string {
  const required = entry.fields.filter((field) => field.required).map((field) => field.name);
  const optional = entry.fields.filter((field) => !field.required).map((field) => field.name);
  if (entry.fields.length === 0) return `${entry.id}; no fields declared.`;
  return `${entry.id}; required: ${required.join(', ') || 'none'}; optional: ${optional.join(', ') || 'none'}.`;
}

function instructionsFor(chosen: readonly ToolName[]): string {
  const sends = chosen.includes('create_envelope');
  return [
    'esign creates e-signature envelopes from templates.',
    'Read the templates in force (list_templates, or the resources esign://templates and esign://templates/{name}), check an envelope with validate_envelope (it sends nothing)',
    sends
      ? 'then send it with create_envelope: that emails a real person, once the person using this client has confirmed it.'
      : 'then tell the person: this server cannot send envelopes (it was started read-only).',
    'Errors carry code, message and hint; an error whose code is outcome_unknown means the envelope may exist, so never create it again without asking.',
  ].join(' ');
}

const PROMPT_ARGUMENTS = {
  type: 'object',
  properties: {
    template: { type: 'string', description: 'The template name or id, if you know it' },
    signatory_name: { type: 'string', description: 'Full name of the person who signs' },
    signatory_email: { type: 'string', description: 'Email address of the person who signs' },
  },
};

/** The "send an envelope" prompt: list, validate, then create (or hand over, when this server cannot send). */
function sendEnvelopePrompt(chosen: readonly ToolName[]): ServerOffer['prompt'] {
  return {
    name: 'send_envelope',
    title: 'Send an envelope',
    description:
      'Walks through sending one envelope with esign: choose the template, check the envelope, then send it.',
    arguments: PROMPT_ARGUMENTS,
    text: (args) => {
      const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
      const known = [
        typeof given.template === 'string' && given.template ? `template: ${given.template}` : undefined,
        typeof given.signatory_name === 'string' && given.signatory_name
          ? `signatory: ${given.signatory_name}`
          : undefined,
        typeof given.signatory_email === 'string' && given.signatory_email
          ? `email: ${given.signatory_email}`
          : undefined,
      ].filter((line) => line !== undefined);
      const send = chosen.includes('create_envelope')
        ? [
            '3. Send it with create_envelope, with the same arguments, once the person has agreed. The person is then asked by their client to confirm what will be sent; a no, or a client that cannot ask, sends nothing, and the error says why. Do not call it again after such an error unless the person asks.',
            '4. Give the person the envelope id, the signing URL and when it expires. If create_envelope fails with code outcome_unknown, the envelope may have been sent: never call create_envelope again for it without asking the person.',
          ]
        : [
            '3. This server cannot send (it serves only the read-only tools). Give the person the checked values and the command to send it themselves: esign envelope create --template <template> --name <name> --email <email> --set <field>=<value> …',
          ];
      return [
        'Send one e-signature envelope with esign.',
        ...(known.length > 0 ? [`What is known so far: ${known.join('; ')}.`] : []),
        '',
        '1. Call list_templates (or read the resource esign://templates) and choose the template with the person. Note its required fields: each must be in merge_data, and a key that is not a field is refused.',
        '2. Ask the person for anything missing (the signatory’s full name and email, every required field), then call validate_envelope with template, signatory {name, email}, merge_data and, if wanted, expires_in_days. It sends nothing. Fix every problem it lists, and show the person the request body it returns.',
        ...send,
      ].join('\n');
    },
  };
}
