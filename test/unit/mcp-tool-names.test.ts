// Which tools `esign mcp` lists, from --read-only and --tools: decided before the SDK is loaded.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
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
