// The MCP server on stdio, with the official SDK (v2). Loaded only by `esign mcp`: the SDK is the
// heaviest thing esign bundles, and no other command needs it.
//
// Built as a bundle of its own (dist/mcp-server.js, see scripts/build.mjs), with its own copy of
// zod: the SDK's zod shares zod's core with the zod esign uses everywhere, and in one split build
// that core would grow for every command. So this module imports only the SDK, zod and types; what
// the tools do arrives as functions (src/mcp/tools.ts, in the main build).
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { toJSONSchema, type ZodMiniType } from 'zod/mini';
import type { ToolDefinition, ToolResult } from './tools.js';

const INSTRUCTIONS =
  'esign creates e-signature envelopes from templates. Call list_templates to learn the template names, validate_envelope to check an envelope (it sends nothing), then create_envelope to send it: that emails a real person. Errors carry code, message and hint; an error whose code is outcome_unknown means the envelope may exist, so never create it again without asking.';

/** A wire schema as JSON Schema, for the assistant to read (without the draft's URL). */
function jsonSchemaOf(schema: ZodMiniType): Record<string, unknown> {
  const { $schema: _, ...rest } = toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/**
 * A Standard Schema the SDK can list and call with: `jsonSchema` is what the assistant reads;
 * `validate` is `check`'s, or accepts anything (the tool's own path checks its arguments, once).
 */
function describedSchema(jsonSchema: Record<string, unknown>, check?: ZodMiniType) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'esign',
      validate: check ? check['~standard'].validate : (value: unknown) => ({ value }),
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}

export interface McpIo {
  readonly stdin: Readable;
  /** Carries the protocol, and nothing else. */
  readonly stdout: Writable;
  readonly signal: AbortSignal;
  readonly version: string;
  /** For what the SDK reports out of band (a line that is not JSON-RPC, a broken pipe). */
  log(line: string): void;
}

/**
 * Serves `tools` until the client closes standard input or the process is told to stop; then waits
 * for the calls still running. `call` runs a tool.
 */
export async function serveTools(
  tools: readonly ToolDefinition[],
  call: (tool: ToolDefinition, args: unknown) => Promise<ToolResult>,
  io: McpIo,
): Promise<void> {
  const running = new Set<Promise<unknown>>();
  const factory = () => {
    const server = new McpServer(
      { name: 'esign', version: io.version },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    for (const tool of tools) {
      const output = tool.output;
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          annotations: { title: tool.title, ...tool.annotations },
          inputSchema: describedSchema(tool.inputJsonSchema(jsonSchemaOf)),
          ...(output ? { outputSchema: describedSchema(jsonSchemaOf(output), output) } : {}),
        },
        (args: unknown) => {
          // A call still running when the client leaves (a create on the wire) is finished, not dropped.
          const pending = call(tool, args);
          running.add(pending);
          void pending.finally(() => running.delete(pending));
          return pending;
        },
      );
    }
    return server;
  };
  const wire = new StdioServerTransport(io.stdin, io.stdout);
  const handle = serveStdio(factory, { transport: wire, onerror: (error) => io.log(error.message) });
  await new Promise<void>((resolve) => {
    const onclose = wire.onclose;
    wire.onclose = () => {
      onclose?.();
      resolve();
    };
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close();
  await Promise.allSettled([...running]);
}
