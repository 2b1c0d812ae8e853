// The tools' arguments through create's request builder, in-process: what the assistant may get
// wrong (an argument the tools do not take, merge data that is not an object) is told with every
// other problem at once, and values are taken as `--data` takes them.
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/connect.js';
import { callTool, TOOLS, type ToolDeps } from '../../src/mcp/tools.js';
import { createTestContext } from '../helpers/context.js';

function deps(): ToolDeps {
  const ctx = createTestContext();
  return {
    settings: loadSettings({}, ctx),
    verbose: false,
    ctx,
    templates: () => [{ name: 'offer-letter' }],
    status: () => ({}),
  };
}

const tool = (name: string) => {
  const found = TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

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
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      template_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
      merge_data: { salary: '42', remote: 'true' },
      signatory: { name: 'Ada', email: 'ada@example.com' },
    });
  });

  it('an unknown argument and merge_data that is not an object are told with the rest, as a usage error', async () => {
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
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toEqual({
      code: 'usage',
      message: '4 problems with the input; nothing was sent:',
      status: null,
      hint: 'Nothing was sent. Fix the arguments named, and call validate_envelope to check them before create_envelope.',
      details: [
        "unknown argument 'name' (the arguments are template, signatory, merge_data, expires_in_days).",
        'merge_data: must be an object of merge fields, like {"company": "Acme Corp"}.',
        'signatory: is required.',
        'expires_in_days: must be a number.',
      ],
    });
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(result.structuredContent);
  });

  it('a result that is not an object is structured as {result}, its text as it is', async () => {
    const result = await callTool(tool('list_templates'), {}, deps());
    expect(result.structuredContent).toEqual({ result: [{ name: 'offer-letter' }] });
    expect(result.content[0]?.text).toBe('[{"name":"offer-letter"}]');
  });
});
