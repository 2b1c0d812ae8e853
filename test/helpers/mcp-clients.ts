// `esign mcp` under the clients people use, each spawning the built binary over stdio:
//   - v2: the SDK v2 client (@modelcontextprotocol/client), in the 2025 handshake or 2026-07-28's;
//   - v1: the SDK v1 client (@modelcontextprotocol/sdk), what most deployed clients are built on;
//   - inspector: the official MCP Inspector's CLI (@modelcontextprotocol/inspector --cli), a
//     process per call, with no elicitation.
// Each returns the results as the client hands them over, so that a test reads them as an
// assistant would. An elicitation handler stands in for the person.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, freshConfigDir, gather } from './spawn.js';

export type ClientKind = 'v2' | 'v2-2026' | 'v1' | 'inspector';

/** What the person answers when asked (the elicitation's result), given the question's message. */
export type Person = (message: string) => {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

export interface ToolCallResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export interface ServedEsign {
  readonly kind: ClientKind;
  listTools(): Promise<{ name: string; annotations?: Record<string, unknown>; outputSchema?: unknown }[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  listResources(): Promise<{ uri: string; name: string }[]>;
  readResource(uri: string): Promise<{ uri: string; text?: string }[]>;
  getPrompt(
    name: string,
    args?: Record<string, string>,
  ): Promise<{ messages: { content: { text?: string } }[] }>;
  /** What the server wrote to stderr (for the inspector: of every call so far). */
  stderr(): string;
  /** The questions the person was asked. */
  readonly asked: string[];
  close(): Promise<void>;
}

export interface ServeOptions {
  args?: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Declares elicitation and answers with this; without it the client cannot ask. */
  person?: Person;
}

function serverEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
    ...env,
  };
}

export async function serveUnder(kind: ClientKind, options: ServeOptions): Promise<ServedEsign> {
  if (kind === 'inspector') return inspector(options);
  if (kind === 'v1') return v1(options);
  return v2(options, kind === 'v2-2026');
}

async function v2(options: ServeOptions, modern: boolean): Promise<ServedEsign> {
  const transport = new StdioV2({
    command: process.execPath,
    args: [BIN, 'mcp', ...(options.args ?? [])],
    env: serverEnv(options.env),
    cwd: options.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new ClientV2(
    { name: 'esign-test-v2', version: '1.0.0' },
    {
      ...(options.person ? { capabilities: { elicitation: { form: {} } } } : {}),
      ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const asked: string[] = [];
  const person = options.person;
  if (person) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = String((request.params as { message?: unknown }).message);
      asked.push(message);
      return person(message);
    });
  }
  await client.connect(transport);
  return {
    kind: modern ? 'v2-2026' : 'v2',
    listTools: async () => (await client.listTools()).tools as never,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolCallResult,
    listResources: async () => (await client.listResources()).resources,
    readResource: async (uri) => (await client.readResource({ uri })).contents as never,
    getPrompt: async (name, args = {}) => (await client.getPrompt({ name, arguments: args })) as never,
    stderr: () => stderr,
    asked,
    close: () => client.close(),
  };
}

async function v1(options: ServeOptions): Promise<ServedEsign> {
  const transport = new StdioV1({
    command: process.execPath,
    args: [BIN, 'mcp', ...(options.args ?? [])],
    env: serverEnv(options.env),
    cwd: options.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new ClientV1(
    { name: 'esign-test-v1', version: '1.0.0' },
    options.person ? { capabilities: { elicitation: {} } } : {},
  );
  const asked: string[] = [];
  const person = options.person;
  if (person) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = String(request.params.message);
      asked.push(message);
      return person(message) as never;
    });
  }
  await client.connect(transport);
  // The v1 client checks structured content against a tool's output schema only once it has
  // listed the tools: list them first, as a real client does.
  await client.listTools();
  return {
    kind: 'v1',
    listTools: async () => (await client.listTools()).tools as never,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolCallResult,
    listResources: async () => (await client.listResources()).resources,
    readResource: async (uri) => (await client.readResource({ uri })).contents as never,
    getPrompt: async (name, args = {}) => (await client.getPrompt({ name, arguments: args })) as never,
    stderr: () => stderr,
    asked,
    close: () => client.close(),
  };
}

const require = createRequire(import.meta.url);
/** The Inspector's launcher, as `npx @modelcontextprotocol/inspector` runs it. */
const INSPECTOR = join(
  require.resolve('@modelcontextprotocol/inspector/package.json').replace(/package\.json$/, ''),
  'clients/launcher/build/index.js',
);

/** The Inspector's CLI: one process (and one server) per call, as a person runs it. */
function inspector(options: ServeOptions): ServedEsign {
  if (options.person) throw new Error('the Inspector CLI cannot answer elicitation');
  const home = mkdtempSync(join(tmpdir(), 'esign-inspector-'));
  const env = serverEnv(options.env);
  let stderr = '';
  const run = async (method: string, extra: string[]): Promise<unknown> => {
    const args = [
      INSPECTOR,
      '--cli',
      ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
      ...(options.cwd ? ['--cwd', options.cwd] : []),
      process.execPath,
      BIN,
      'mcp',
      ...(options.args ?? []),
      '--method',
      method,
      ...extra,
    ];
    // The Inspector's own environment: its catalog goes to a home of its own, never the user's.
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end();
    const done = await gather(child, 30_000).done;
    stderr += done.stderr;
    if (done.stdout.trim() === '')
      throw new Error(`the Inspector printed nothing (exit ${done.code}): ${done.stderr}`);
    return JSON.parse(done.stdout);
  };
  const toolArgs = (args: Record<string, unknown>) =>
    Object.keys(args).length === 0
      ? []
      : [
          '--tool-arg',
          ...Object.entries(args).map(
            ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
          ),
        ];
  return {
    kind: 'inspector',
    listTools: async () => ((await run('tools/list', [])) as { tools: never }).tools,
    call: async (name, args = {}) =>
      (await run('tools/call', ['--tool-name', name, ...toolArgs(args)])) as ToolCallResult,
    listResources: async () => ((await run('resources/list', [])) as { resources: never }).resources,
    readResource: async (uri) =>
      ((await run('resources/read', ['--uri', uri])) as { contents: never }).contents,
    getPrompt: async (name, args = {}) =>
      (await run('prompts/get', [
        '--prompt-name',
        name,
        ...(Object.keys(args).length === 0
          ? []
          : ['--prompt-args', ...Object.entries(args).map(([k, v]) => `${k}=${v}`)]),
      ])) as never,
    stderr: () => stderr,
    asked: [],
    close: async () => {},
  };
}
