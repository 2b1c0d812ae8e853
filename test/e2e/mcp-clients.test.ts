// `esign mcp` under every client an assistant may be using: the SDK v2 client (in the 2025 handshake
// and in 2026-07-28's), the SDK v1 client (what most deployed clients are built on), and the
// official MCP Inspector's CLI. Each lists the tools, calls each one, and meets every error kind: a
// usage problem, no token, 401, 403, 422, and an outcome unknown (the connection dropped after the
// request left), against the sandbox and a scripted server on 127.0.0.1. Every error must arrive as
// a tool error whose text carries esign's code, message and hint (never a client's schema
// complaint), and read the same under every client.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateEnvelopeRequest, Envelope } from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { LIVE_TOKEN } from '../helpers/create-command.js';
import {
  type ClientKind,
  type ServedEsign,
  serveUnder,
  type ToolCallResult,
} from '../helpers/mcp-clients.js';
import { errorOf, textOf } from '../helpers/mcp-results.js';
import { json, useScriptedServer } from '../helpers/scripted-server.js';
import { ACME_OFFER, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

const KINDS: ClientKind[] = ['v2', 'v2-2026', 'v1', 'inspector'];

let sandbox: RunningSandbox;
let project: string;
const scripted = useScriptedServer();

beforeAll(async () => {
  sandbox = await startQuietSandbox();
  project = mkdtempSync(join(tmpdir(), 'esign-mcp-clients-'));
  writeFileSync(
    join(project, '.esign.json'),
    JSON.stringify({
      templates: {
        'offer-letter': { id: ACME_OFFER, fields: { company: { required: true }, role: {} } },
      },
    }),
  );
});
afterAll(() => sandbox?.close());

const OFFER = {
  template: 'offer-letter',
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
  merge_data: { company: 'Acme Corp', role: 'Engineer' },
  expires_in_days: 14,
};
const BY_ID = { template: ACME_OFFER, signatory: { name: 'Ada Lovelace', email: 'ada@example.com' } };

/** Each error kind's `--json` error object, by client, for the comparison at the end. */
const errorsSeen = new Map<string, Map<ClientKind, Record<string, unknown>>>();

/** The error a call returned, checked as any client must show it; remembered for the comparison. */
function expectToolError(
  kind: ClientKind,
  label: string,
  result: ToolCallResult,
  code: string,
): Record<string, unknown> {
  expect(result.isError, `${label} is a tool error`).toBe(true);
  expect(result.structuredContent, `${label} carries no structured content`).toBeUndefined();
  const error = errorOf(result);
  expect(error.code).toBe(code);
  const text = result.content[0]?.text ?? '';
  expect(text.startsWith(`esign error ${code}: ${String(error.message)}`), text).toBe(true);
  if (typeof error.hint === 'string') expect(text).toContain(`Hint: ${error.hint}`);
  expect(textOf(result)).not.toMatch(/output schema|Structured content|-32602/i);
  const seen = errorsSeen.get(label) ?? new Map();
  seen.set(kind, error);
  errorsSeen.set(label, seen);
  return error;
}

/** Fails when the token is anywhere the assistant or a log could see it. */
function expectNoToken(served: ServedEsign, results: unknown[], token: string): void {
  expect(JSON.stringify(results)).not.toContain(token);
  expect(served.stderr()).not.toContain(token);
}

describe.each(KINDS)('esign mcp under the %s client', (kind) => {
  it('lists the tools with accurate annotations, and calls each one against the sandbox', async () => {
    const token = tokenOf(sandbox);
    const served = await serveUnder(kind, {
      args: ['--confirm', 'never'],
      env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: token },
      cwd: project,
    });
    const results: unknown[] = [];
    try {
      const tools = await served.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'create_envelope',
        'validate_envelope',
        'list_templates',
        'get_status',
      ]);
      const create = tools.find((tool) => tool.name === 'create_envelope');
      expect(create?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
      expect(create?.outputSchema).toMatchObject({ type: 'object' });
      for (const tool of tools.filter((t) => t.name !== 'create_envelope')) {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      }

      const before = sandbox.requests().length;
      const checked = await served.call('validate_envelope', OFFER);
      results.push(checked);
      expect(checked.isError).toBeFalsy();
      expect(CreateEnvelopeRequest.parse(checked.structuredContent)).toEqual({
        template_id: ACME_OFFER,
        merge_data: { company: 'Acme Corp', role: 'Engineer' },
        signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
        expires_in_days: 14,
      });
      const templates = await served.call('list_templates');
      results.push(templates);
      expect(templates.structuredContent).toMatchObject({ templates: { 'offer-letter': ACME_OFFER } });
      const status = await served.call('get_status');
      results.push(status);
      expect(status.structuredContent).toMatchObject({ token: { value: `****${token.slice(-4)}` } });
      expect(sandbox.requests()).toHaveLength(before);

      const created = await served.call('create_envelope', OFFER);
      results.push(created);
      expect(created.isError).toBeFalsy();
      const envelope = Envelope.parse(created.structuredContent);
      expect(JSON.parse(created.content[0]?.text ?? '')).toEqual(created.structuredContent);
      const sent = sandbox.requests().slice(before);
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0]?.body ?? '')).toMatchObject({ template_id: ACME_OFFER, expires_in_days: 14 });
      expect(served.stderr()).toContain(`created envelope ${envelope.envelope_id}`);

      const usage = await served.call('validate_envelope', {
        template: 'offer-leter',
        signatory: { name: 'Ada', email: 'not-an-email' },
      });
      results.push(usage);
      const error = expectToolError(kind, 'usage', usage, 'usage');
      expect(error.details).toEqual([
        `template: no template named 'offer-leter'. Did you mean 'offer-letter'? Names in ${join(project, '.esign.json')}: offer-letter.`,
        'signatory.email: must be an email address, like ada@example.com.',
      ]);
      expect(textOf(usage)).toContain("- template: no template named 'offer-leter'.");
      expect(sandbox.requests()).toHaveLength(before + 1);
      expectNoToken(served, results, token);
    } finally {
      await served.close();
    }
  });

  it('no token: create_envelope is an unauthenticated error that says how to log in; nothing is sent', async () => {
    const served = await serveUnder(kind, { env: { ESIGN_BASE_URL: sandbox.baseUrl }, cwd: project });
    try {
      const before = sandbox.requests().length;
      const error = expectToolError(
        kind,
        'no token',
        await served.call('create_envelope', OFFER),
        'unauthenticated',
      );
      expect(error.message).toBe("Not logged in: no token for profile 'default'.");
      expect(error.hint).toContain('esign login');
      expect(sandbox.requests()).toHaveLength(before);
    } finally {
      await served.close();
    }
  });

  it('401 (a body that echoes the token), 403, 422 and a dropped connection: esign’s code, message and hint', async () => {
    const served = await serveUnder(kind, {
      args: ['--confirm', 'never'],
      env: { ESIGN_BASE_URL: scripted.baseUrl, ESIGN_TOKEN: LIVE_TOKEN },
    });
    const results: unknown[] = [];
    try {
      const call = async (reply: Parameters<typeof scripted.script>[0]) => {
        scripted.script(reply);
        const result = await served.call('create_envelope', BY_ID);
        results.push(result);
        return result;
      };
      const e401 = expectToolError(
        kind,
        '401',
        await call(json(401, { message: `Token ${LIVE_TOKEN} is not valid.` })),
        'unauthenticated',
      );
      expect(e401).toMatchObject({ status: 401 });
      expect(String(e401.message)).toContain('[redacted]');
      expect(String(e401.hint)).toContain('esign login');
      const e403 = expectToolError(
        kind,
        '403',
        await call(json(403, { message: 'Forbidden.' })),
        'forbidden',
      );
      expect(e403).toMatchObject({ status: 403 });
      expect(String(e403.hint)).toContain('another organisation');
      // The hints name the tool's argument, never the command line's flag.
      expect(String(e403.hint)).toContain('Check the template argument, or log in');
      expect(String(e403.hint)).not.toContain('--template');
      const e422 = expectToolError(
        kind,
        '422',
        await call(
          json(422, {
            message: 'The given data was invalid.',
            errors: { 'merge_data.company': ['The company field is required.'] },
          }),
        ),
        'rejected',
      );
      expect(e422).toMatchObject({
        status: 422,
        details: ['merge_data.company: The company field is required.'],
      });
      const dropped = await call({ kind: 'destroy' });
      const unknown = expectToolError(kind, 'outcome unknown', dropped, 'outcome_unknown');
      expect(String(unknown.hint)).toContain('the envelope may have been created');
      expect(dropped.content[0]?.text).toContain(
        'OUTCOME UNKNOWN: the envelope may have been created, and the signatory may already have its email. Do NOT call create_envelope again for it without asking the user',
      );
      // A success whose body is not the envelope (a gateway that dropped it, or one cut at esign's
      // limit) is an unknown outcome too, in the same words as create's.
      const empty = expectToolError(
        kind,
        '200 without the envelope',
        await call({ kind: 'text', status: 200, body: '' }),
        'outcome_unknown',
      );
      expect(String(empty.message)).toContain('not with the envelope: its answer was empty');
      expect(String(empty.message)).toContain('The envelope may have been created.');
      const huge = expectToolError(
        kind,
        '200 larger than esign reads',
        await call({ kind: 'text', status: 200, body: `{"data":"${'x'.repeat(5 * 1024 * 1024)}"}` }),
        'outcome_unknown',
      );
      expect(String(huge.message)).toContain('its answer was larger than 4 MiB, the most esign reads');
      // One request each: nothing was sent twice, the dropped one least of all.
      expect(scripted.requests).toHaveLength(6);
      expectNoToken(served, results, LIVE_TOKEN);
    } finally {
      await served.close();
    }
  });

  it('the templates in force as resources, and the send_envelope prompt', async () => {
    const served = await serveUnder(kind, { env: { ESIGN_BASE_URL: sandbox.baseUrl }, cwd: project });
    try {
      const resources = await served.listResources();
      expect(resources.map((resource) => resource.uri)).toEqual([
        'esign://templates',
        'esign://templates/offer-letter',
      ]);
      const [entry] = await served.readResource('esign://templates/offer-letter');
      expect(JSON.parse(entry?.text ?? '')).toMatchObject({
        name: 'offer-letter',
        id: ACME_OFFER,
        fields: [
          { name: 'company', required: true },
          { name: 'role', required: false },
        ],
      });
      const [index] = await served.readResource('esign://templates');
      expect(JSON.parse(index?.text ?? '')).toMatchObject({ templates: { 'offer-letter': ACME_OFFER } });
      const prompt = await served.getPrompt('send_envelope', { signatory_name: 'Ada Lovelace' });
      const text = prompt.messages[0]?.content.text ?? '';
      expect(text).toContain('signatory: Ada Lovelace');
      const steps = ['list_templates', 'validate_envelope', 'create_envelope'].map((tool) =>
        text.indexOf(tool),
      );
      expect(steps.every((at) => at >= 0)).toBe(true);
      expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    } finally {
      await served.close();
    }
  });
});

describe('every client reads every error the same', () => {
  it('usage, no token, 401, 403, 422 and outcome unknown: one error object, whatever the client', () => {
    const withoutRequestId = (error: Record<string, unknown>) => {
      const { request_id: _, ...rest } = error;
      return { ...rest, message: String(rest.message).replace(/request id [^)]+/, 'request id …') };
    };
    expect([...errorsSeen.keys()].sort()).toEqual([
      '200 larger than esign reads',
      '200 without the envelope',
      '401',
      '403',
      '422',
      'no token',
      'outcome unknown',
      'usage',
    ]);
    for (const [label, byClient] of errorsSeen) {
      expect([...byClient.keys()], label).toEqual(KINDS);
      const [first, ...others] = [...byClient.values()].map(withoutRequestId);
      for (const other of others) expect(other, label).toEqual(first);
    }
  });
});
