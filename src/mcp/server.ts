// The MCP server on stdio, with the official SDK (v2). Loaded only by `esign mcp`: the SDK is the
// heaviest thing esign bundles, and no other command needs it.
//
// Built as a bundle of its own (dist/mcp-server.js, see scripts/bundle-options.mjs), with its own copy of
// zod: the SDK's zod shares zod's core with the zod esign uses everywhere, and in one split build
// that core would grow for every command. So this module imports only the SDK, zod and types; what
// the tools, resources and prompt say and do arrives as values and functions (src/mcp/offer.ts, in
// the main build).
//
// A tool that needs a person's yes returns a question: the SDK's multi-round-trip input request
// (`inputRequired`), which it serves in both protocol eras (on a 2025 connection as an
// `elicitation/create` request to the client, on 2026-07-28 as an `input_required` result the client
// fulfils and retries with). The call then runs again with the answer.
import { PassThrough, type Readable, type Writable } from 'node:stream';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  McpServer,
  ResourceTemplate,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { toJSONSchema, type ZodMiniType } from 'zod/mini';
import type { ServerOffer } from './offer.js';
import type { ToolResult } from './results.js';
import type { ConfirmationQuestion } from './tools.js';

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

/**
 * Whether the client can show a form: elicitation declared on this request (2026-07-28) or at
 * `initialize` (2025), in form mode (a bare `elicitation: {}` is form mode, as the SDK reads it).
 */
function canAskForm(server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ??
    // 2025 connections: the capabilities the client declared at initialize.
    server.server.getClientCapabilities()) as ClientCapabilities | undefined;
  const elicitation = declared?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
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

/** Registers what `offer` serves on one server (one per connection). */
function buildServer(offer: ServerOffer, io: McpIo, running: Set<Promise<unknown>>): McpServer {
  const server = new McpServer(
    { name: 'esign', version: io.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: offer.instructions },
  );
  for (const tool of offer.tools) {
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
      async (args: unknown, ctx: ServerContext) => {
        const responses = ctx.mcpReq.inputResponses;
        const pending = offer.call(tool, args, {
          canAsk: canAskForm(server, ctx),
          ...(responses ? { answer: { responses, state: ctx.mcpReq.requestState() } } : {}),
        });
        // A call still running when the client leaves (a create on the wire) is finished, not dropped.
        running.add(pending);
        void pending.finally(() => running.delete(pending));
        const outcome = await pending;
        const question = (outcome as Partial<ConfirmationQuestion>).ask;
        if (!question) return outcome as ToolResult;
        const { key, message, form, state } = question;
        return inputRequired({
          inputRequests: { [key]: inputRequired.elicit({ message, requestedSchema: form }) },
          requestState: state,
        });
      },
    );
  }
  const { resources } = offer;
  server.registerResource(
    resources.index.name,
    resources.index.uri,
    { title: resources.index.title, description: resources.index.description, mimeType: 'application/json' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: resources.index.read() }] }),
  );
  server.registerResource(
    resources.entry.name,
    new ResourceTemplate(resources.entry.uriTemplate, {
      list: () => ({ resources: resources.entry.list() }),
      complete: { name: (value) => resources.entry.names().filter((name) => name.startsWith(value)) },
    }),
    { title: resources.entry.title, description: resources.entry.description, mimeType: 'application/json' },
    (uri, variables) => ({
      contents: [
        { uri: uri.href, mimeType: 'application/json', text: resources.entry.read(String(variables.name)) },
      ],
    }),
  );
  const { prompt } = offer;
  server.registerPrompt(
    prompt.name,
    { title: prompt.title, description: prompt.description, argsSchema: describedSchema(prompt.arguments) },
    (args: unknown) => ({
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(args) } }],
    }),
  );
  return server;
}

/**
 * Serves `offer` until the client closes standard input or the process is told to stop. Then no new
 * request is taken, and the calls still running (a create on the wire) finish and are answered
 * before the connection closes: the SDK's transport would close at once when standard input ends,
 * and drop their answers, so it reads standard input through a stream of esign's that ends only
 * then. A create is never aborted here: `io.signal` only stops the server; a second signal, which
 * the calls' own signal follows, aborts them.
 */
export async function serveOffer(offer: ServerOffer, io: McpIo): Promise<void> {
  const running = new Set<Promise<unknown>>();
  const input = new PassThrough();
  let stopping = false;
  let stopped: () => void = () => {};
  const stop = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const onData = (chunk: Buffer) => {
    if (!stopping) input.write(chunk);
  };
  const onEnd = () => stopped();
  io.stdin.on('data', onData);
  io.stdin.once('end', onEnd);
  io.stdin.once('close', onEnd);
  if (io.signal.aborted) stopped();
  else io.signal.addEventListener('abort', () => stopped(), { once: true });
  const wire = new StdioServerTransport(input, io.stdout);
  const handle = serveStdio(() => buildServer(offer, io, running), {
    transport: wire,
    onerror: (error) => io.log(error.message),
  });
  const closed = new Promise<void>((resolve) => {
    const onclose = wire.onclose;
    wire.onclose = () => {
      onclose?.();
      resolve();
    };
  });
  await Promise.race([stop, closed]);
  stopping = true;
  io.stdin.off('data', onData);
  io.stdin.pause();
  if (running.size > 0) io.log(`stopping: waiting for ${running.size} call(s) still running to answer.`);
  await Promise.allSettled([...running]);
  // Their answers are written once the SDK has had its turn with each result.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  input.end();
  await handle.close();
}
