// The tools' arguments through create's request builder, in-process: what the assistant may get
// wrong (an argument the tools do not take, merge data that is not an object, a signatory outside
// the allowed domains) is told with every other problem at once, and values are taken as `--data`
// takes them. What a person is asked before a create, and which answers send: only a yes given
// for this very envelope, once. Every failure is a tool error with text only.
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/connect.js';
import { NetworkError } from '../../src/errors.js';
import { CONFIRM_KEY, ConfirmationLedger } from '../../src/mcp/confirm.js';
import { errorResult } from '../../src/mcp/results.js';
import { type CallContext, callTool, isQuestion, TOOLS, type ToolDeps } from '../../src/mcp/tools.js';
import { parseAllowedDomain } from '../../src/request/signatory-domains.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { defaultRules, errorOf, textOf } from '../helpers/mcp-results.js';

function deps(overrides: Partial<ToolDeps> = {}): ToolDeps {
  const ctx = createTestContext({
    env: { ESIGN_BASE_URL: 'http://127.0.0.1:9/api/v1', ESIGN_TOKEN: 'tok_abcdefghijklmnop' },
    now: new Date('2026-12-01T10:00:00Z'),
  });
  return {
    settings: loadSettings({}, ctx),
    verbose: false,
    ctx,
    ...defaultRules(),
    templates: () => [{ name: 'offer-letter' }],
    status: () => ({}),
    ...overrides,
  };
}

const tool = (name: string) => {
  const found = TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

const ENVELOPE = {
  template: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
  merge_data: { company: 'Acme Corp' },
  expires_in_days: 14,
};

const domains = (...names: string[]) =>
  names.map((name) => {
    const parsed = parseAllowedDomain(name);
    if (!('domain' in parsed)) throw new Error(parsed.problem);
    return parsed;
  });

describe('the tools, in-process', () => {
  it('validate_envelope: merge values as --data takes them (42 → "42"), the template id in upper case', async () => {
    const result = await callTool(
      tool('validate_envelope'),
      {
        template: '01jd7x4zq8g1n6rvs0y2mbkt3e',
        signatory: { name: 'Ada', email: 'ada@example.com' },
        merge_data: { salary: 42, remote: true },
        expires_in_days: null,
      },
      deps(),
    );
    if (isQuestion(result)) throw new Error('validate_envelope asked a question');
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      merge_data: { salary: '42', remote: 'true' },
      signatory: { name: 'Ada', email: 'ada@example.com' },
    });
  });

  it('an unknown argument and merge_data that is not an object are told with the rest, as a usage error, in text only', async () => {
    const result = await callTool(
      tool('validate_envelope'),
      {
        template: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
        name: 'Ada',
        merge_data: 'company=Acme',
        expires_in_days: '14',
      },
      deps(),
    );
    const details = [
      "unknown argument 'name' (the arguments are template, signatory, merge_data, expires_in_days).",
      'merge_data: must be an object of merge fields, like {"company": "Acme Corp"}.',
      'signatory: is required.',
      'expires_in_days: must be a number.',
    ];
    const hint =
      'Nothing was sent. Fix the arguments named, and call validate_envelope to check them before create_envelope.';
    expect(errorOf(result)).toEqual({
      code: 'usage',
      message: '4 problems with the input; nothing was sent:',
      status: null,
      hint,
      details,
    });
    expect(textOf(result).split('\n').slice(0, 6)).toEqual([
      'esign error usage: 4 problems with the input; nothing was sent:',
      ...details.map((line) => `- ${line}`),
      `Hint: ${hint}`,
    ]);
  });

  it('a result that is not an object is structured as {result}, its text as it is', async () => {
    const result = await callTool(tool('list_templates'), {}, deps());
    if (isQuestion(result)) throw new Error('list_templates asked a question');
    expect(result.structuredContent).toEqual({ result: [{ name: 'offer-letter' }] });
    expect(result.content[0]?.text).toBe('[{"name":"offer-letter"}]');
  });

  it('outcome_unknown is said in words that cannot be missed', () => {
    const { toolResult } = errorResult(
      new NetworkError('The connection broke after the request was sent.', true),
    );
    expect(errorOf(toolResult).code).toBe('outcome_unknown');
    expect(toolResult.content[0]?.text).toMatch(/^esign error outcome_unknown: /);
    expect(toolResult.content[0]?.text).toContain(
      'OUTCOME UNKNOWN: the envelope may have been created, and the signatory may already have its email. Do NOT call create_envelope again for it without asking the user',
    );
  });
});

describe('--allow-domain, in the request path', () => {
  it('a signatory outside the allowed domains is a usage problem of validate and create alike, with the others', async () => {
    const rules = { allowedDomains: domains('example.org', '*.example.net') };
    for (const name of ['validate_envelope', 'create_envelope']) {
      const result = await callTool(
        tool(name),
        { ...ENVELOPE, expires_in_days: 0, signatory: { name: 'Ada', email: 'Ada@Example.COM' } },
        deps({ ...rules, confirm: 'never' }),
      );
      expect(errorOf(result)).toMatchObject({
        code: 'usage',
        details: [
          'expires_in_days: must be at least 1.',
          'signatory.email: example.com is not a domain this sender may send to (allowed: example.org, *.example.net).',
        ],
      });
    }
    const inside = ['ada@example.org', 'ada@EXAMPLE.ORG', 'ada@example.net', 'ada@mail.example.net'];
    for (const email of inside) {
      const result = await callTool(
        tool('validate_envelope'),
        { ...ENVELOPE, signatory: { name: 'Ada', email } },
        deps(rules),
      );
      expect('isError' in result, email).toBe(false);
    }
    for (const email of ['ada@mail.example.org', 'ada@example.org.evil.com', 'ada@notexample.net']) {
      const result = await callTool(
        tool('validate_envelope'),
        { ...ENVELOPE, signatory: { name: 'Ada', email } },
        deps(rules),
      );
      expect(errorOf(result).code, email).toBe('usage');
    }
  });

  it('a domain that is not one is refused with what to write', () => {
    expect(parseAllowedDomain('@Example.com')).toEqual({ domain: 'example.com', subdomains: false });
    expect(parseAllowedDomain('ada@example.com')).toEqual({
      problem: 'takes a domain, not an address (like example.com, or *.example.com for its subdomains too)',
    });
    expect(parseAllowedDomain('https://example.com')).toMatchObject({
      problem: expect.stringContaining('not a URL'),
    });
    expect(parseAllowedDomain('com')).toMatchObject({
      problem: expect.stringContaining('must be a domain name'),
    });
    expect(parseAllowedDomain('*')).toMatchObject({
      problem: expect.stringContaining('must be a domain name'),
    });
  });
});

describe('create_envelope asks a person first', () => {
  it('with a client that can ask: a question showing template, signatory, fields, expiry and where it goes; nothing sent', async () => {
    const d = deps();
    const result = await callTool(tool('create_envelope'), ENVELOPE, d, { canAsk: true });
    if (!isQuestion(result)) throw new Error(`no question: ${JSON.stringify(result)}`);
    expect(result.ask.key).toBe(CONFIRM_KEY);
    expect(result.ask.message).toBe(
      [
        'Send this envelope? The signatory is emailed a link to sign, at once.',
        '',
        'Template: 01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
        'Signatory: Ada Lovelace <ada@example.com>',
        'Fields:',
        '  company: "Acme Corp"',
        'Expires: in 14 days, about 2026-12-15 (UTC)',
        "To be sent with profile 'default' to http://127.0.0.1:9/api/v1",
      ].join('\n'),
    );
    expect(result.ask.form.required).toEqual(['send']);
    expect((d.ctx as TestContext).err.text).toBe(
      'esign mcp: create_envelope: asking the person to confirm; nothing is sent until they do.\n',
    );
  });

  it('values the assistant gave are escaped in the question: a newline cannot forge a line', async () => {
    const result = await callTool(
      tool('create_envelope'),
      { ...ENVELOPE, merge_data: { company: 'Acme\nSignatory: Someone Else' } },
      deps(),
      { canAsk: true },
    );
    if (!isQuestion(result)) throw new Error('no question');
    expect(result.ask.message).toContain('  company: "Acme\\\\nSignatory: Someone Else"');
    expect(result.ask.message.split('\n').filter((line) => line.startsWith('Signatory:'))).toHaveLength(1);
  });

  it('a client that cannot ask: nothing is sent, and the error says why and how to allow it', async () => {
    const result = await callTool(tool('create_envelope'), ENVELOPE, deps(), { canAsk: false });
    const error = errorOf(result);
    expect(error.code).toBe('confirmation_required');
    expect(String(error.message)).toContain('does not support elicitation');
    expect(String(error.hint)).toContain('esign mcp --confirm never');
  });

  it('no, cancel, a yes without the box ticked, a yes for another envelope, and a yes used twice send nothing', async () => {
    const ledger = new ConfirmationLedger(() => Date.now());
    const d = deps({ ledger });
    const ask = async (args = ENVELOPE) => {
      const question = await callTool(tool('create_envelope'), args, d, { canAsk: true });
      if (!isQuestion(question)) throw new Error('no question');
      return question.ask.state;
    };
    const answer = async (response: unknown, state: unknown, args = ENVELOPE) => {
      const call: CallContext = { canAsk: true, answer: { responses: { [CONFIRM_KEY]: response }, state } };
      return errorOf(await callTool(tool('create_envelope'), args, d, call));
    };
    expect((await answer({ action: 'decline' }, await ask())).code).toBe('declined');
    expect((await answer({ action: 'cancel' }, await ask())).code).toBe('cancelled');
    expect((await answer({ action: 'accept', content: { send: false } }, await ask())).code).toBe('declined');
    expect((await answer({ action: 'accept', content: { send: 'yes' } }, await ask())).code).toBe('declined');
    // A yes for one envelope does not send another (the client retried with other arguments).
    const other = { ...ENVELOPE, signatory: { name: 'Eve', email: 'eve@example.com' } };
    expect((await answer({ action: 'accept', content: { send: true } }, await ask(), other)).code).toBe(
      'not_confirmed',
    );
    // A state nobody issued, or none.
    expect((await answer({ action: 'accept', content: { send: true } }, 'forged')).code).toBe(
      'not_confirmed',
    );
    expect((await answer({ action: 'accept', content: { send: true } }, undefined)).code).toBe(
      'not_confirmed',
    );
  });

  it('the ledger: a yes is redeemed once, for the request it was asked for, before it expires', () => {
    let now = 0;
    const ledger = new ConfirmationLedger(() => now);
    const request = {
      template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      merge_data: {},
      signatory: { name: 'Ada', email: 'ada@example.com' },
    };
    const state = ledger.ask(request);
    expect(ledger.redeem(state, { ...request, merge_data: { a: 'b' } })).toBe(false);
    const again = ledger.ask(request);
    expect(ledger.redeem(again, request)).toBe(true);
    expect(ledger.redeem(again, request)).toBe(false);
    const late = ledger.ask(request);
    now += 15 * 60_000;
    expect(ledger.redeem(late, request)).toBe(false);
  });
});
