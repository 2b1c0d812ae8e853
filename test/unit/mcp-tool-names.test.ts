// Which tools `esign mcp` lists, from --read-only and --tools: decided before the SDK is loaded.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { serverRules } from '../../src/mcp/server-options.js';
import { chooseTools, TOOL_NAMES } from '../../src/mcp/tool-names.js';

function usageErrorOf(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('expected a usage error');
}

describe('chooseTools', () => {
  it('lists every tool by default, the read-only ones under --read-only, the named ones in table order', () => {
    expect(chooseTools({})).toEqual([...TOOL_NAMES]);
    expect(chooseTools({ readOnly: true })).toEqual(['validate_envelope', 'list_templates', 'get_status']);
    expect(chooseTools({ tools: ' get_status,,validate_envelope ' })).toEqual([
      'validate_envelope',
      'get_status',
    ]);
    expect(chooseTools({ readOnly: true, tools: 'list_templates' })).toEqual(['list_templates']);
  });

  it('an unknown name is a usage error naming it, with the closest tool and the list', () => {
    const error = usageErrorOf(() => chooseTools({ tools: 'list_templates,create_envelop' }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe("--tools: no tool is named 'create_envelop'. Did you mean 'create_envelope'?");
    expect(error.hint).toContain('validate_envelope');
  });

  it('an empty list, or a writing tool under --read-only, is a usage error', () => {
    expect(usageErrorOf(() => chooseTools({ tools: ' , ' })).message).toContain('name at least one tool');
    expect(usageErrorOf(() => chooseTools({ readOnly: true, tools: 'create_envelope' })).message).toBe(
      '--tools names create_envelope, which --read-only leaves out.',
    );
  });
});

describe('serverRules: the flags, or the same in the environment (an MCP Bundle’s settings)', () => {
  it('a flag wins over its variable; empty variables mean the defaults', () => {
    expect(serverRules({}, {})).toEqual({
      confirm: 'ask',
      allowedDomains: [],
      readOnly: false,
      readOnlyFrom: 'ESIGN_MCP_READ_ONLY',
    });
    const env = {
      ESIGN_MCP_CONFIRM: 'never',
      ESIGN_MCP_ALLOW_DOMAINS: 'example.com, *.Example.org',
      ESIGN_MCP_READ_ONLY: 'true',
    };
    expect(serverRules({}, env)).toMatchObject({
      confirm: 'never',
      allowedDomains: [
        { domain: 'example.com', subdomains: false },
        { domain: 'example.org', subdomains: true },
      ],
      readOnly: true,
    });
    expect(serverRules({ confirm: 'ask', allowDomain: ['example.net'] }, env)).toMatchObject({
      confirm: 'ask',
      allowedDomains: [{ domain: 'example.net', subdomains: false }],
    });
    // What an MCP Bundle hands over when its optional settings are left as they are.
    expect(
      serverRules({}, { ESIGN_MCP_CONFIRM: '', ESIGN_MCP_ALLOW_DOMAINS: '', ESIGN_MCP_READ_ONLY: 'false' }),
    ).toMatchObject({
      confirm: 'ask',
      allowedDomains: [],
      readOnly: false,
    });
  });

  it('a bad value names the variable it came from', () => {
    expect(usageErrorOf(() => serverRules({}, { ESIGN_MCP_READ_ONLY: 'maybe' })).message).toBe(
      'ESIGN_MCP_READ_ONLY must be true or false (got "maybe").',
    );
    expect(usageErrorOf(() => serverRules({}, { ESIGN_MCP_CONFIRM: 'always' })).message).toBe(
      'ESIGN_MCP_CONFIRM must be ask or never (got "always").',
    );
    const rules = serverRules({}, { ESIGN_MCP_READ_ONLY: '1' });
    expect(usageErrorOf(() => chooseTools({ ...rules, tools: 'create_envelope' })).message).toBe(
      '--tools names create_envelope, which ESIGN_MCP_READ_ONLY leaves out.',
    );
  });
});
