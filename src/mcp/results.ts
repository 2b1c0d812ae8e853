// What a tool call returns, as MCP carries it, decided once for every tool and every client.
//
// A success is structured content (the shape the tool's output schema declares) and the same as
// JSON text. A failure is a tool error (`isError`) with text only: esign's code, message, hint and
// details in plain lines an assistant and a person read, then the `--json` error object as JSON.
// It never carries structured content: clients built on the v1 SDK, and the MCP Inspector, check
// structured content against the tool's output schema even on an error, and an error object is no
// envelope; they would replace esign's message with a schema complaint.
import { errorBody } from '../errors.js';
import { isPlainObject } from '../text/plain-object.js';

/** A tool's result, as MCP carries it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A result: structured content (a value that is not an object is wrapped as `{result}`), and the value as JSON text. */
export function successResult(value: unknown): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: isPlainObject(value) ? value : { result: value },
  };
}

/** What the assistant must not do after an error of this code, said where it cannot be missed. */
const WARNINGS: Record<string, string> = {
  outcome_unknown:
    'OUTCOME UNKNOWN: the envelope may have been created, and the signatory may already have its email. Do NOT call create_envelope again for it without asking the user: a second call can send a second envelope.',
};

/** A failure as a tool error: its `--json` error object (`code`, `message`, `hint`, …) and that object told in lines. */
export function errorResult(error: unknown): { code: string; message: string; toolResult: ToolResult } {
  const body = errorBody(error);
  const code = String(body.code);
  const message = String(body.message);
  const lines = [`esign error ${code}: ${message}`];
  if (Array.isArray(body.details)) lines.push(...body.details.map((line) => `- ${String(line)}`));
  if (typeof body.hint === 'string') lines.push(`Hint: ${body.hint}`);
  const warning = WARNINGS[code];
  if (warning) lines.push(warning);
  return {
    code,
    message,
    toolResult: {
      content: [
        { type: 'text', text: lines.join('\n') },
        { type: 'text', text: JSON.stringify({ error: body }) },
      ],
      isError: true,
    },
  };
}
