// A person confirms before `create_envelope` sends anything. Under clients that can ask
// (elicitation: the SDK v2 client in both protocol eras, the SDK v1 client), a person who answers
// yes, no, or dismisses the question; under clients that cannot (the Inspector's CLI, a v1 client
// declaring no elicitation); with --confirm never; and with --allow-domain. What was sent is read
// from the sandbox's own request log (GET /_sandbox/requests, with the admin secret), as a person
// checking the sandbox would.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Envelope } from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { type ClientKind, type Person, type ServeOptions, serveUnder } from '../helpers/mcp-clients.js';
import { errorOf } from '../helpers/mcp-results.js';
import { ACME_OFFER, CREATE_PATH, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let project: string;

beforeAll(async () => {
  sandbox = await startQuietSandbox();
  project = mkdtempSync(join(tmpdir(), 'esign-mcp-confirm-'));
  writeFileSync(join(project, '.esign.json'), JSON.stringify({ templates: { 'offer-letter': ACME_OFFER } }));
});
afterAll(() => sandbox?.close());

/** The create requests in the sandbox's request log, as its admin route lists them. */
async function createsLogged(): Promise<{ body: string }[]> {
  const response = await fetch(`${sandbox.url}/_sandbox/requests`, {
    headers: { authorization: `Bearer ${sandbox.adminSecret}` },
  });
  expect(response.status).toBe(200);
  const log = (await response.json()) as { requests: { method: string; path: string; body: string }[] };
  return log.requests.filter((request) => request.method === 'POST' && request.path.endsWith(CREATE_PATH));
}

const OFFER = {
  template: 'offer-letter',
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' },
  merge_data: { company: 'Acme Corp', role: 'Engineer' },
  expires_in_days: 14,
};
const SENT_BODY = {
  template_id: ACME_OFFER,
  merge_data: { company: 'Acme Corp', role: 'Engineer' },
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' },
  expires_in_days: 14,
};

const serve = (kind: ClientKind, person?: Person, extra: Partial<ServeOptions> = {}) =>
  serveUnder(kind, {
    env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: tokenOf(sandbox) },
    cwd: project,
    ...(person ? { person } : {}),
    ...extra,
  });

const YES: Person = () => ({ action: 'accept', content: { send: true } });

describe.each(['v2', 'v2-2026', 'v1'] as const)('a client that can ask (%s)', (kind) => {
  it('yes: the person is shown template, signatory, fields and expiry; exactly that is sent, once', async () => {
    const served = await serve(kind, YES);
    try {
      const before = (await createsLogged()).length;
      const result = await served.call('create_envelope', OFFER);
      expect(result.isError).toBeFalsy();
      const envelope = Envelope.parse(result.structuredContent);
      expect(served.asked).toHaveLength(1);
      const question = served.asked[0] ?? '';
      for (const line of [
        `Template: offer-letter (${ACME_OFFER})`,
        'Signatory: Ada Lovelace <ada@example.com>, phone +44 20 7946 0000',
        '  company: "Acme Corp"',
        '  role: "Engineer"',
        'Expires: in 14 days, about ',
        `To be sent with profile 'default' to ${sandbox.baseUrl}`,
      ])
        expect(question).toContain(line);
      const sent = (await createsLogged()).slice(before);
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0]?.body ?? '')).toEqual(SENT_BODY);
      expect(served.stderr()).toContain('the person confirmed; sending.');
      expect(served.stderr()).toContain(`created envelope ${envelope.envelope_id}`);
    } finally {
      await served.close();
    }
  });

  it('no, a dismissal, or an accept without the yes ticked: nothing is sent, and the result says so', async () => {
    const answers: Record<string, { person: Person; code: string; says: string }> = {
      no: {
        person: () => ({ action: 'decline' }),
        code: 'declined',
        says: 'The person declined to send this envelope. Nothing was sent.',
      },
      cancel: {
        person: () => ({ action: 'cancel' }),
        code: 'cancelled',
        says: 'The person dismissed the confirmation. Nothing was sent.',
      },
      unticked: {
        person: () => ({ action: 'accept', content: { send: false } }),
        code: 'declined',
        says: 'The person did not choose to send this envelope. Nothing was sent.',
      },
    };
    for (const [label, { person, code, says }] of Object.entries(answers)) {
      const served = await serve(kind, person);
      try {
        const before = (await createsLogged()).length;
        const result = await served.call('create_envelope', OFFER);
        expect(served.asked, label).toHaveLength(1);
        const error = errorOf(result);
        expect(error.code, label).toBe(code);
        expect(error.message, label).toBe(says);
        expect(result.content[0]?.text, label).toContain(says);
        expect(await createsLogged(), label).toHaveLength(before);
      } finally {
        await served.close();
      }
    }
  });
});

describe('a client that cannot ask', () => {
  it.each(['inspector', 'v1', 'v2'] as const)(
    '%s without elicitation: nothing is sent; the result says why, and names --confirm never',
    async (kind) => {
      const served = await serve(kind);
      try {
        const before = (await createsLogged()).length;
        const result = await served.call('create_envelope', OFFER);
        const error = errorOf(result);
        expect(error.code).toBe('confirmation_required');
        expect(result.content[0]?.text).toContain('does not support elicitation');
        expect(String(error.hint)).toContain('esign mcp --confirm never');
        expect(await createsLogged()).toHaveLength(before);
      } finally {
        await served.close();
      }
    },
  );

  it('with --confirm never (or ESIGN_MCP_CONFIRM=never) it sends without asking, even a client that could ask', async () => {
    const [byFlag, byEnv] = await Promise.all([
      serve('inspector', undefined, {
        args: ['--confirm', 'never'],
        env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: tokenOf(sandbox) },
      }),
      serve('v2', YES, {
        env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: tokenOf(sandbox), ESIGN_MCP_CONFIRM: 'never' },
      }),
    ]);
    try {
      const before = (await createsLogged()).length;
      for (const served of [byFlag, byEnv]) {
        const result = await served.call('create_envelope', OFFER);
        expect(result.isError, served.kind).toBeFalsy();
        expect(served.asked).toEqual([]);
        expect(served.stderr()).toContain('sends without asking anyone to confirm (--confirm never)');
      }
      const sent = (await createsLogged()).slice(before);
      expect(sent.map((request) => JSON.parse(request.body))).toEqual([SENT_BODY, SENT_BODY]);
    } finally {
      await Promise.all([byFlag.close(), byEnv.close()]);
    }
  });
});

describe('--allow-domain', () => {
  it('a signatory outside the allowed domains is refused before the person is asked and before anything is sent', async () => {
    const served = await serve('v1', YES, {
      args: ['--allow-domain', 'example.org', '--allow-domain', '*.example.com'],
    });
    try {
      const before = (await createsLogged()).length;
      const outside = { ...OFFER, signatory: { name: 'Eve', email: 'eve@elsewhere.test' } };
      for (const tool of ['validate_envelope', 'create_envelope']) {
        const error = errorOf(await served.call(tool, outside));
        expect(error.code).toBe('usage');
        expect(error.message).toBe(
          'signatory.email: elsewhere.test is not a domain this sender may send to (allowed: example.org, *.example.com).',
        );
      }
      expect(served.asked).toEqual([]);
      expect(await createsLogged()).toHaveLength(before);
      // Inside: asked, then sent.
      const inside = await served.call('create_envelope', {
        ...OFFER,
        signatory: { name: 'Ada', email: 'ada@mail.example.com' },
      });
      expect(inside.isError).toBeFalsy();
      expect(served.asked).toHaveLength(1);
      expect(await createsLogged()).toHaveLength(before + 1);
      const listed = await served.listTools();
      const create = listed.find((tool) => tool.name === 'create_envelope') as { description?: string };
      expect(create.description).toContain(
        'This server sends only to signatories at example.org, *.example.com',
      );
    } finally {
      await served.close();
    }
  });

  it('a value that is not a domain is exit 2 at start, naming the flag or the variable', async () => {
    const { runBin, freshConfigDir } = await import('../helpers/spawn.js');
    const [flag, variable, confirm] = await Promise.all([
      runBin(['mcp', '--allow-domain', 'ada@example.com'], { env: { ESIGN_CONFIG_DIR: freshConfigDir() } }),
      runBin(['mcp'], {
        env: { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_MCP_ALLOW_DOMAINS: 'example.com, https://x.io' },
      }),
      runBin(['mcp'], { env: { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_MCP_CONFIRM: 'sometimes' } }),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toContain('--allow-domain takes a domain, not an address');
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain('ESIGN_MCP_ALLOW_DOMAINS takes a domain, not a URL (');
    expect(confirm.code).toBe(2);
    expect(confirm.stderr).toContain('ESIGN_MCP_CONFIRM must be ask or never (got "sometimes")');
  });
});
