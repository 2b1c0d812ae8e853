// Reading an `esign mcp` tool result as every client gets it: a success's structured content, or a
// failure's text (esign's code, message and hint in lines, then the `--json` error object).
import { ConfirmationLedger } from '../../src/mcp/confirm.js';
import type { ToolDeps } from '../../src/mcp/tools.js';

interface AnyResult {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
}

const texts = (result: AnyResult): string[] =>
  Array.isArray(result.content)
    ? result.content.map((block) => String((block as { text?: unknown }).text ?? ''))
    : [];

/** The text an assistant reads, all blocks joined. */
export function textOf(result: AnyResult | object): string {
  return texts(result as AnyResult).join('\n');
}

/** A tool error's `--json` error object (from its last text block); fails on a result that is not one. */
export function errorOf(given: AnyResult | object): Record<string, unknown> {
  const result = given as AnyResult;
  if (result.isError !== true) throw new Error(`not a tool error: ${JSON.stringify(result)}`);
  if (result.structuredContent !== undefined) throw new Error('a tool error carries structured content');
  const last = texts(result).at(-1) ?? '';
  return (JSON.parse(last) as { error: Record<string, unknown> }).error;
}

/** What the tools need beyond the settings, as `esign mcp` starts with by default. */
export function defaultRules(): Pick<ToolDeps, 'confirm' | 'allowedDomains' | 'ledger'> {
  return { confirm: 'ask', allowedDomains: [], ledger: new ConfirmationLedger(() => Date.now()) };
}
