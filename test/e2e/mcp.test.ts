// `esign mcp` as an assistant meets it: the SDK's own client spawns the built binary over stdio,
// against the sandbox (what is sent, and what is not) and a scripted server (a 401 that echoes the
// token, a 422, a connection dropped after the request left). Every result, error and stderr line
// is searched for the token.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateEnvelopeRequest, Envelope } from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { LIVE_TOKEN } from '../helpers/create-command.js';
import { errorOf } from '../helpers/mcp-results.js';
import { json, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, bundleProcessWatch, freshConfigDir, runBin, runWatched } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let project: string;
const scripted = useScriptedServer();
/** One server against the sandbox, and one against the scripted server, for the tests that call tools (a start costs a few hundred milliseconds). */
let sandboxServed: Served;
let scriptedServed: Served;

beforeAll(async () => {
  sandbox = await startQuietSandbox();
  project = mkdtempSync(join(tmpdir(), 'esign-mcp-'));
  writeFileSync(join(project, '.esign.json'), JSON.stringify({ templates: { 'offer-letter': ACME_OFFER } }));
  // Sending without a person's confirmation (--confirm never): what confirming does is
  // test/e2e/mcp-confirm.test.ts's.
  [sandboxServed, scriptedServed] = await Promise.all([
    serve(['--confirm', 'never'], sandboxEnv()),
    serve(['--confirm', 'never'], { ESIGN_BASE_URL: scripted.baseUrl, ESIGN_TOKEN: LIVE_TOKEN }),
  ]);
});
afterAll(async () => {
  await Promise.all([sandboxServed?.close(), scriptedServed?.close()]);
  expectNoToken(sandboxServed, tokenOf(sandbox));
  expectNoToken(scriptedServed, LIVE_TOKEN);
  await sandbox.close();
});

interface Served {
  client: Client;
  stderr(): string;
  /** Every result the client got, as JSON text, for the token search. */
  results: string[];
  call(name: string, args?: Record<string, unknown>): Promise<ToolCall>;
  close(): Promise<void>;
}

interface ToolCall {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: unknown[];
}

const sandboxEnv = () => ({ ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: tokenOf(sandbox) });

/**
 * Starts `esign mcp` under the SDK's client: the 2025 handshake (`initialize`) that most clients
 * speak, or with `modern` the 2026-07-28 revision's (`server/discover`).
 */
async function serve(args: string[], env: Record<string, string>, modern = false): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ESIGN_CONFIG_DIR: freshConfigDir(),
      ...env,
    },
    cwd: project,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'esign-test', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(transport);
  const results: string[] = [];
  return {
    client,
    stderr: () => stderr,
    results,
    call: async (name, callArgs = {}) => {
      const result = (await client.callTool({ name, arguments: callArgs })) as ToolCall;
      results.push(JSON.stringify(result));
      return result;
    },
    close: () => client.close(),
  };
}

/** Fails when the token is anywhere the assistant or a log could see it. */
function expectNoToken(served: Served, token: string): void {
  for (const text of [...served.results, served.stderr()]) expect(text).not.toContain(token);
}

const OFFER_ARGS = {
  template: 'offer-letter',
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
  merge_data: { company: 'Acme Corp', role: 'Engineer' },
  expires_in_days: 14,
};

/** The same envelope as OFFER_ARGS, as `envelope create` flags. */
const OFFER_FLAGS = [
  '--template',
  'offer-letter',
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
  '--set',
  'company=Acme Corp',
  '--set',
  'role=Engineer',
  '--expires-in-days',
  '14',
];

describe('esign mcp: the tools listed', () => {
  it('lists the four tools with their annotations; --read-only and --tools list only those allowed (in both protocol eras)', async () => {
    const all = sandboxServed;
    const [readOnly, named] = await Promise.all([
      // No token at all: the read-only tools need none, as `envelope create --dry-run` needs none.
      serve(['--read-only'], { ESIGN_BASE_URL: sandbox.baseUrl }),
      serve(['--tools', 'list_templates, get_status'], sandboxEnv(), true),
    ]);
    try {
      const { tools } = await all.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'create_envelope',
        'validate_envelope',
        'list_templates',
        'get_status',
      ]);
      const create = tools.find((tool) => tool.name === 'create_envelope');
      if (!create) throw new Error('create_envelope is not listed');
      expect(create.annotations).toMatchObject({
        readOnlyHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
      expect(Object.keys((create.inputSchema as { properties: object }).properties)).toEqual([
        'template',
        'signatory',
        'merge_data',
        'expires_in_days',
      ]);
      expect(create.outputSchema).toMatchObject({ type: 'object' });
      for (const tool of tools.filter((t) => t.name !== 'create_envelope')) {
        expect(tool.annotations?.readOnlyHint).toBe(true);
      }
      expect((await readOnly.client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'validate_envelope',
        'list_templates',
        'get_status',
      ]);
      expect((await named.client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'list_templates',
        'get_status',
      ]);
      // A tool that is not listed cannot be called either.
      const before = sandbox.requests().length;
      await expect(readOnly.call('create_envelope', OFFER_ARGS)).rejects.toThrow(
        'Tool create_envelope not found',
      );
      const checked = await readOnly.call('validate_envelope', OFFER_ARGS);
      expect(checked.isError).toBeFalsy();
      expect(checked.structuredContent).toMatchObject({ template_id: ACME_OFFER });
      const status = (await readOnly.call('get_status')).structuredContent as { token: unknown };
      expect(status.token).toEqual({
        value: null,
        source: 'none',
        overrides_profile: false,
        command: null,
        stored_at: null,
        age_days: null,
      });
      expect(sandbox.requests()).toHaveLength(before);
    } finally {
      await Promise.all([readOnly.close(), named.close()]);
    }
  });

  it('an unknown --tools name, or a writing tool under --read-only, is exit 2 at start, stdout empty', async () => {
    const env = { ESIGN_CONFIG_DIR: freshConfigDir() };
    const [unknown, contradiction] = await Promise.all([
      runBin(['mcp', '--tools', 'list_templates,crate_envelope'], { env }),
      runBin(['mcp', '--read-only', '--tools', 'create_envelope'], { env }),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain("no tool is named 'crate_envelope'");
    expect(unknown.stderr).toContain('create_envelope');
    expect(contradiction.code).toBe(2);
    expect(contradiction.stdout).toBe('');
    expect(contradiction.stderr).toContain('--read-only');
  });
});

describe('esign mcp against esign sandbox', () => {
  it('validate_envelope returns the body `envelope create --dry-run` prints, and sends nothing', async () => {
    const token = tokenOf(sandbox);
    const before = sandbox.requests().length;
    const served = sandboxServed;
    const result = await served.call('validate_envelope', OFFER_ARGS);
    const dryRun = await runBin(['envelope', 'create', ...OFFER_FLAGS, '--dry-run', '--json'], {
      env: { ESIGN_CONFIG_DIR: freshConfigDir() },
      cwd: project,
    });
    expect(dryRun.code).toBe(0);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(JSON.parse(dryRun.stdout));
    expect(CreateEnvelopeRequest.parse(result.structuredContent).template_id).toBe(ACME_OFFER);

    // Every problem at once, named as the tool's arguments, with the code `--json` errors carry.
    const bad = await served.call('validate_envelope', {
      template: 'offer-leter',
      signatory: { name: 'Ada', email: 'not-an-email' },
      merge_data: { company: { legal: 'Acme' } },
    });
    const error = errorOf(bad) as { code: string; message: string; details: string[] };
    expect(error.code).toBe('usage');
    expect(error.message).toBe('3 problems with the input; nothing was sent:');
    expect(error.details).toEqual([
      "merge_data: merge field 'company' is an object; values must be strings, numbers or booleans.",
      "template: no template named 'offer-leter'. Did you mean 'offer-letter'? Names in " +
        `${join(project, '.esign.json')}: offer-letter.`,
      'signatory.email: must be an email address, like ada@example.com.',
    ]);
    expect(sandbox.requests().length).toBe(before);
    expectNoToken(served, token);
  });

  it('create_envelope sends exactly one request and returns the envelope; list_templates and get_status are the --json reports', async () => {
    const token = tokenOf(sandbox);
    const before = sandbox.requests().length;
    const served = sandboxServed;
    const created = await served.call('create_envelope', OFFER_ARGS);
    expect(created.isError).toBeFalsy();
    const envelope = Envelope.parse(created.structuredContent);
    expect(Date.parse(envelope.expires_at) - Date.parse(envelope.created_at)).toBe(14 * 24 * 3600 * 1000);
    const sent = sandbox.requests().slice(before);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual({
      template_id: ACME_OFFER,
      merge_data: { company: 'Acme Corp', role: 'Engineer' },
      signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
      expires_in_days: 14,
    });

    const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ...sandboxEnv() };
    const [templates, status] = await Promise.all([
      runBin(['templates', '--json'], { env, cwd: project }),
      runBin(['status', '--json'], { env, cwd: project }),
    ]);
    // The text is what `esign templates --json` prints (structured content wraps it when it is not an object).
    const listed = (await served.call('list_templates')).content[0] as { type: string; text: string };
    expect(JSON.parse(listed.text)).toEqual(JSON.parse(templates.stdout));
    const reported = (await served.call('get_status')).structuredContent as Record<string, unknown>;
    const expected = JSON.parse(status.stdout);
    // Two config folders, one for each process: all else is the same.
    expect({ ...reported, config_file: null }).toEqual({ ...expected, config_file: null });
    expect(reported.token).toEqual({
      value: `****${token.slice(-4)}`,
      source: 'env ESIGN_TOKEN',
      overrides_profile: false,
      command: null,
      stored_at: null,
      age_days: null,
    });
    expect(served.stderr()).toContain(
      "esign mcp: serving create_envelope, validate_envelope, list_templates, get_status (profile 'default')",
    );
    expect(served.stderr()).toContain(
      'esign mcp: create_envelope sends without asking anyone to confirm (--confirm never).',
    );
    expect(served.stderr()).toContain(`created envelope ${envelope.envelope_id}`);
    expectNoToken(served, token);
  });
});

describe('esign mcp: API failures are tool errors with the command line’s code, message and hint', () => {
  const scriptedEnv = () => ({ ESIGN_BASE_URL: scripted.baseUrl, ESIGN_TOKEN: LIVE_TOKEN });
  const ARGS = {
    template: ACME_OFFER,
    signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
  };
  const FLAGS = ['--template', ACME_OFFER, '--name', 'Ada Lovelace', '--email', 'ada@example.com'];
  /** The request id differs from one exchange to the next. */
  const withoutRequestId = (body: Record<string, unknown>) => {
    const { request_id: _, ...rest } = body;
    return { ...rest, message: String(rest.message).replace(/, request id [^)]+/, '') };
  };

  /** The `--json` error of `envelope create` for the same reply. */
  async function commandLineError(): Promise<Record<string, unknown>> {
    const result = await runBin(['envelope', 'create', ...FLAGS, '--json'], {
      env: { ESIGN_CONFIG_DIR: freshConfigDir(), ...scriptedEnv() },
    });
    return JSON.parse(result.stderr).error;
  }

  it('a 401 that echoes the token, and a 422 with field errors', async () => {
    const echo = json(401, { message: `Token ${LIVE_TOKEN} is not valid.` });
    const rejected = json(422, {
      message: 'The given data was invalid.',
      errors: { 'merge_data.company': ['The company field is required.'] },
    });
    const served = scriptedServed;
    scripted.script(echo);
    const unauthenticated = await served.call('create_envelope', ARGS);
    scripted.script(echo);
    const cli401 = await commandLineError();
    scripted.script(rejected);
    const unprocessable = await served.call('create_envelope', ARGS);
    scripted.script(rejected);
    const cli422 = await commandLineError();

    const error401 = errorOf(unauthenticated);
    expect(error401).toMatchObject({ code: 'unauthenticated', status: 401 });
    expect(String(error401.message)).toContain('[redacted]');
    expect(withoutRequestId(error401)).toEqual(withoutRequestId(cli401));

    const error422 = errorOf(unprocessable);
    expect(error422).toMatchObject({
      code: 'rejected',
      status: 422,
      details: ['merge_data.company: The company field is required.'],
    });
    expect(withoutRequestId(error422)).toEqual(withoutRequestId(cli422));
    expect(scripted.requests).toHaveLength(4);
    for (const request of scripted.requests)
      expect(request.headers.authorization).toBe(`Bearer ${LIVE_TOKEN}`);
    expectNoToken(served, LIVE_TOKEN);
  });

  it('a connection dropped after the request left: outcome unknown, said so, and not sent again', async () => {
    const served = scriptedServed;
    scripted.script({ kind: 'destroy' });
    const dropped = await served.call('create_envelope', ARGS);
    const error = errorOf(dropped);
    expect(error.code).toBe('outcome_unknown');
    expect(String(error.hint)).toContain('the envelope may have been created');
    expect(scripted.requests).toHaveLength(1);
    expectNoToken(served, LIVE_TOKEN);
  });
});

describe('esign mcp: the SDK is loaded by `esign mcp` only', () => {
  let hook: string;
  beforeAll(async () => {
    hook = await bundleProcessWatch();
  });

  /** The bundle's files a run of the binary loaded. */
  async function loadedFiles(args: string[], stdin = ''): Promise<string[]> {
    const result = await runWatched(hook, args, { cwd: project, stdin });
    expect(result.code).toBe(0);
    return result.watch.modules.filter((url) => url.includes('/dist/')).map((url) => fileURLToPath(url));
  }

  const holdsSdk = (file: string) => readFileSync(file, 'utf8').includes('StdioServerTransport');

  it('--help and create --dry-run load none of it; mcp does', async () => {
    const [help, dryRun, mcp] = await Promise.all([
      loadedFiles(['--help']),
      loadedFiles(['envelope', 'create', ...OFFER_FLAGS, '--dry-run']),
      loadedFiles(['mcp']), // standard input ends at once: the server stops
    ]);
    // --help is answered by the quick entry (dist/quick.cjs, required, not imported): no ES module
    // of the bundle is loaded, and the quick entry holds none of the SDK.
    expect(help).toEqual([]);
    expect(holdsSdk(fileURLToPath(new URL('../../dist/quick.cjs', import.meta.url)))).toBe(false);
    expect(dryRun.filter(holdsSdk)).toEqual([]);
    expect(mcp.filter(holdsSdk).length).toBeGreaterThan(0);
  });

  it('the server is a bundle of its own, with its own zod: the split build holds none of zod’s JSON Schema conversion', async () => {
    const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
    const mcp = await loadedFiles(['mcp']);
    expect(mcp).toContain(join(dist, 'mcp-server.js'));
    expect(holdsSdk(join(dist, 'mcp-server.js'))).toBe(true);
    // What only the SDK used of zod was in the chunk of zod every command loads.
    const split = ['main.js', ...readdirSync(join(dist, 'chunks')).map((name) => join('chunks', name))];
    expect(split.filter((file) => readFileSync(join(dist, file), 'utf8').includes('toJSONSchema'))).toEqual(
      [],
    );
  });
});
