// Which tools `esign mcp` lists: all of them, only the read-only ones (--read-only), or those named
// (--tools). Decided at start, before the MCP SDK is loaded, so that a wrong name is exit 2 at once.
import { UsageError } from '../errors.js';
import { didYouMean } from '../text/suggest.js';

/** Every tool, in the order they are listed. */
export const TOOL_NAMES = ['create_envelope', 'validate_envelope', 'list_templates', 'get_status'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The tools that change nothing anywhere. */
const READ_ONLY_TOOLS: ReadonlySet<ToolName> = new Set(['validate_envelope', 'list_templates', 'get_status']);

const isToolName = (name: string): name is ToolName => (TOOL_NAMES as readonly string[]).includes(name);

/**
 * The tools to list, from --read-only and --tools (a comma-separated list of names). `readOnlyFrom`
 * names where read-only came from, for the message (--read-only, or ESIGN_MCP_READ_ONLY).
 */
export function chooseTools(options: {
  readOnly?: boolean | undefined;
  tools?: string | undefined;
  readOnlyFrom?: string;
}): ToolName[] {
  const allowed = options.readOnly ? TOOL_NAMES.filter((name) => READ_ONLY_TOOLS.has(name)) : [...TOOL_NAMES];
  if (options.tools === undefined) return allowed;
  const named = options.tools
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const hint = `Tools: ${TOOL_NAMES.join(', ')} (read-only: ${[...READ_ONLY_TOOLS].join(', ')}).`;
  if (named.length === 0) {
    throw new UsageError('--tools: name at least one tool, like --tools list_templates,validate_envelope.', {
      hint,
    });
  }
  const unknown = named.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--tools: no tool is named ${unknown.map((name) => `'${name}'`).join(', ')}.${didYouMean(unknown[0] as string, [...TOOL_NAMES])}`,
      { hint },
    );
  }
  const writing = named.filter((name) => !allowed.includes(name as ToolName));
  if (writing.length > 0) {
    const from = options.readOnlyFrom ?? '--read-only';
    throw new UsageError(`--tools names ${writing.join(', ')}, which ${from} leaves out.`, {
      hint: `Drop it from --tools, or drop ${from}.`,
    });
  }
  return TOOL_NAMES.filter((name) => named.includes(name));
}
