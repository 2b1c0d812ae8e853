// The check of merge data against a template's declared fields (src/project/fields.ts), the
// template entry's object form in the project file, and how names and ids find their fields.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/connect.js';
import { UsageError } from '../../src/errors.js';
import { callTool, TOOLS, type ToolDeps } from '../../src/mcp/tools.js';
import { problemText } from '../../src/problems.js';
import { checkMergeData, describeFieldCheck, FieldProblems } from '../../src/project/fields.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { listTemplates, resolveTemplate, templateNamesFor } from '../../src/project/templates.js';
import { hasControl } from '../../src/text/terminal-text.js';
import { createTestContext } from '../helpers/context.js';
import { defaultRules, errorOf } from '../helpers/mcp-results.js';

const OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const PROD_OFFER = '01JF2K8W0R3M7Q5N9T1V4XBYCD';
const NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';

const FIELDS = {
  company: { required: true, description: 'Legal name of the employer' },
  start_date: { required: true, example: '2026-12-01' },
  salary: {},
};
const offer = { label: 'offer-letter', fields: FIELDS };

function problemOf(text: string): UsageError {
  try {
    parseProjectFile(text, '/repo/.esign.json');
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected the project file to be refused');
}

describe('checkMergeData', () => {
  it('passes data that fits, and checks nothing when no fields are declared', () => {
    expect(checkMergeData(FIELDS, { company: 'Acme', start_date: '2026-12-01' })).toEqual({
      unknown: [],
      missing: [],
    });
    expect(checkMergeData(undefined, { anything: 'x' })).toBeUndefined();
  });

  it('names an unknown key with "did you mean", and every required field missing or empty', () => {
    const check = checkMergeData(FIELDS, { company: '  ', start_dte: '2026-12-01', bonus: '1' });
    expect(check).toEqual({ unknown: ['start_dte', 'bonus'], missing: ['company', 'start_date'] });
    expect(describeFieldCheck(check as NonNullable<typeof check>, offer)).toEqual([
      "merge field 'start_dte' is not a field of template 'offer-letter' (its fields: company, start_date, salary). Did you mean 'start_date'?",
      "merge field 'bonus' is not a field of template 'offer-letter' (its fields: company, start_date, salary).",
      "merge fields 'company', 'start_date' are required by template 'offer-letter', and missing or empty (company: Legal name of the employer; start_date: e.g. 2026-12-01)",
    ]);
  });

  it('does not take a key from the prototype for a field', () => {
    expect(
      checkMergeData({}, { constructor: 'x', __proto__: 'y' } as Record<string, string>)?.unknown,
    ).toEqual(['constructor']);
    expect(checkMergeData({ toString: { required: true } }, {})?.missing).toEqual(['toString']);
  });
});

describe('FieldProblems: a batch tells each problem once, with its lines', () => {
  it('a misspelt column once for the file, a missing field with the first lines and a count', () => {
    const problems = new FieldProblems();
    const column = () => ({ kind: 'column' }) as const;
    for (let line = 2; line <= 40; line++) {
      const data: Record<string, string> = { company: 'Acme', start_dte: 'x' };
      if (line % 3 === 0) delete data.company;
      problems.add(
        line,
        checkMergeData(FIELDS, data) as NonNullable<ReturnType<typeof checkMergeData>>,
        offer,
        column,
      );
    }
    expect(problems.describe(39)[0]).toBe(
      "column 'start_dte' is not a field of template 'offer-letter' (its fields: company, start_date, salary; all 39 records). Did you mean 'start_date'?",
    );
    expect(problems.describe()).toEqual([
      "column 'start_dte' is not a field of template 'offer-letter' (its fields: company, start_date, salary; lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 29 more). Did you mean 'start_date'?",
      "merge field 'start_date' is required by template 'offer-letter', and missing or empty on lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 29 more (start_date: e.g. 2026-12-01)",
      "merge field 'company' is required by template 'offer-letter', and missing or empty on lines 3, 6, 9, 12, 15, 18, 21, 24, 27, 30 and 3 more (company: Legal name of the employer)",
    ]);
  });
});

describe("FieldProblems: a CSV header's columns", () => {
  const check = (data: Record<string, string>, fields: typeof FIELDS | Record<string, object>) =>
    checkMergeData(fields, data) as NonNullable<ReturnType<typeof checkMergeData>>;
  const nda = { label: 'nda', fields: { counterparty: {} } };

  it('a column that no template used has as a field is told once, even when empty on every line', () => {
    const problems = new FieldProblems();
    problems.noteColumns(['company', 'start_date', 'strat_date']);
    for (let line = 2; line <= 4; line++) problems.noteTemplate(offer);
    expect(problems.size).toBe(0);
    expect(problems.recordsWithBadColumns()).toBe(3);
    expect(problems.describe(3)).toEqual([
      "column 'strat_date' is not a field of template 'offer-letter' (its fields: company, start_date, salary; the column is empty on every line). Did you mean 'start_date'?",
    ]);
  });

  it('with several templates: a column of one of them is no problem where it is empty', () => {
    const problems = new FieldProblems();
    problems.noteColumns(['company', 'counterparty', 'x']);
    problems.noteTemplate(offer);
    problems.noteTemplate(nda);
    expect(problems.describe(2)).toEqual([
      "column 'x' is not a field of any of the templates 'offer-letter', 'nda' (the column is empty on every line).",
    ]);
    // …but a value in it on a record of the other template is told with its line.
    problems.add(3, check({ company: 'Acme' }, nda.fields), nda, () => ({ kind: 'column' }));
    expect(problems.describe(2)[1]).toContain("column 'company' is not a field of template 'nda' (");
  });

  it('nothing is said of columns when a record uses a template without declared fields', () => {
    const problems = new FieldProblems();
    problems.noteColumns(['anything']);
    problems.noteTemplate(offer);
    problems.noteTemplate(undefined);
    expect(problems.describe(2)).toEqual([]);
  });

  it('a column told with its lines (it had a value) is not told again as empty', () => {
    const problems = new FieldProblems();
    problems.noteColumns(['start_dte']);
    problems.noteTemplate(offer);
    problems.add(2, check({ company: 'A', start_date: 'd', start_dte: 'x' }, FIELDS), offer, () => ({
      kind: 'column',
    }));
    expect(problems.describe(1)).toHaveLength(1);
    expect(problems.describe(1).filter((text) => text.includes("'start_dte'"))).toHaveLength(1);
  });
});

describe('field problems before a terminal', () => {
  it('escape control characters from the project file and the input (a field, its description and example, a key, a column)', () => {
    const fields = {
      'co\u001b[31mpany': { required: true, description: 'x\u001b[2Jy', example: '\u0007bell' },
    };
    const template = { label: 'offer', fields };
    const check = checkMergeData(fields, { 'zz\u001b[1m': '2' });
    const one = describeFieldCheck(check as NonNullable<typeof check>, template);
    const batch = new FieldProblems();
    batch.add(2, check as NonNullable<typeof check>, template, () => ({ kind: 'column' }));
    for (const sentence of [...one, ...batch.describe(1)]) {
      expect(hasControl(sentence)).toBe(false);
      expect(sentence).toContain('\\x1b');
    }
    expect(one.join('\n')).toContain('(co\\x1b[31mpany: x\\x1b[2Jy, e.g. \\x07bell');
  });
});

describe('the object form of a template entry', () => {
  it('is read at the top level and per profile, beside plain ids', () => {
    const content = {
      templates: { 'offer-letter': { id: OFFER, fields: FIELDS }, nda: NDA },
      profiles: {
        production: { templates: { nda: { id: NDA, fields: { counterparty: { required: true } } } } },
      },
    };
    expect(parseProjectFile(JSON.stringify(content), 'p')).toEqual(content);
  });

  it('refuses unknown keys with "did you mean", and wrong values, with line and column', () => {
    expect(problemOf(`{"templates": {"offer": {"id": "${OFFER}",\n "feilds": {}}}}`).message).toBe(
      "/repo/.esign.json:2:2: unknown key 'templates.offer.feilds'. Did you mean 'fields'? Known keys here: id, fields.",
    );
    expect(
      problemOf(
        `{"profiles": {"p": {"templates": {"offer": {"id": "${OFFER}", "fields": {"a": {\n"requird": true}}}}}}}`,
      ).message,
    ).toBe(
      "/repo/.esign.json:2:1: unknown key 'profiles.p.templates.offer.fields.a.requird'. Did you mean 'required'? Known keys here: required, description, example.",
    );
    expect(
      problemOf(`{"templates": {"offer": {"id": "${OFFER}", "fields": {"a": {"required": "yes"}}}}}`).message,
    ).toBe("/repo/.esign.json:1:79: 'templates.offer.fields.a.required' must be true or false.");
    expect(problemOf('{"templates": {"offer": {"fields": {}}}}').message).toBe(
      "/repo/.esign.json:1:16: 'templates.offer.id' is required.",
    );
    expect(problemOf('{"templates": {"offer": {"id": "nope"}}}').message).toContain(
      "'templates.offer.id' must be a template id (a ULID",
    );
  });

  it('a merge tag named like a token is a field, not a secret', () => {
    const text = `{"templates": {"offer": {"id": "${OFFER}", "fields": {"token_count": {}}}}}`;
    expect(parseProjectFile(text, 'p').templates).toEqual({
      offer: { id: OFFER, fields: { token_count: {} } },
    });
  });
});

describe('resolving a template finds its fields', () => {
  const project = {
    path: '/repo/.esign.json',
    content: parseProjectFile(
      JSON.stringify({
        templates: { 'offer-letter': { id: OFFER, fields: FIELDS }, nda: NDA },
        profiles: {
          production: { templates: { 'offer-letter': PROD_OFFER } },
          twice: { templates: { offer2: { id: OFFER, fields: { other: {} } } } },
        },
      }),
      'p',
    ),
  };

  it('by name and by id; a plain id has none', () => {
    const names = templateNamesFor(project, 'default');
    expect(resolveTemplate('offer-letter', names, '--template')).toEqual({
      id: OFFER,
      fields: FIELDS,
      label: 'offer-letter',
    });
    expect(resolveTemplate(OFFER.toLowerCase(), names, '--template')).toEqual({
      id: OFFER,
      fields: FIELDS,
      label: 'offer-letter',
    });
    expect(resolveTemplate('nda', names, '--template')).toEqual({ id: NDA });
  });

  it("a profile's plain id keeps the fields declared for that name at the top level", () => {
    const names = templateNamesFor(project, 'production');
    expect(resolveTemplate('offer-letter', names, '--template')).toEqual({
      id: PROD_OFFER,
      fields: FIELDS,
      label: 'offer-letter',
    });
  });

  it('an id two names declare differently is a problem: give the name', () => {
    const names = templateNamesFor(project, 'twice');
    const resolved = resolveTemplate(OFFER, names, '--template');
    expect('problem' in resolved ? { problem: problemText(resolved.problem) } : resolved).toEqual({
      problem: `--template: ${OFFER} is the id of 'offer-letter', 'offer2' in /repo/.esign.json, whose fields differ; give the name instead.`,
    });
  });

  it('lists the names, ids and fields as `esign templates --json` does', () => {
    expect(listTemplates(templateNamesFor(project, 'default'))).toEqual([
      { name: 'nda', id: NDA, fields: [] },
      {
        name: 'offer-letter',
        id: OFFER,
        fields: [
          { name: 'company', required: true, description: 'Legal name of the employer' },
          { name: 'start_date', required: true, example: '2026-12-01' },
          { name: 'salary', required: false },
        ],
      },
    ]);
  });
});

describe("esign mcp's validate_envelope checks the fields as create does", () => {
  it('a typo and a missing required field are a tool error naming both; a fitting call passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-mcp-fields-'));
    writeFileSync(
      join(dir, '.esign.json'),
      JSON.stringify({ templates: { 'offer-letter': { id: OFFER, fields: FIELDS } } }),
    );
    const ctx = createTestContext({ cwd: dir });
    const deps: ToolDeps = {
      settings: loadSettings({}, ctx),
      verbose: false,
      ctx,
      ...defaultRules(),
      templates: () => [],
      status: () => ({}),
    };
    const validate = TOOLS.find((t) => t.name === 'validate_envelope');
    if (!validate) throw new Error('no validate_envelope');
    const signatory = { name: 'Ada', email: 'ada@example.com' };
    const bad = await callTool(
      validate,
      { template: 'offer-letter', signatory, merge_data: { company: 'Acme', start_dte: '2026-12-01' } },
      deps,
    );
    expect(errorOf(bad)).toMatchObject({
      code: 'invalid_input',
      details: [
        "merge field 'start_dte' is not a field of template 'offer-letter' (its fields: company, start_date, salary). Did you mean 'start_date'?",
        "merge field 'start_date' is required by template 'offer-letter', and missing or empty (start_date: e.g. 2026-12-01).",
      ],
    });
    const good = await callTool(
      validate,
      { template: 'offer-letter', signatory, merge_data: { company: 'Acme', start_date: '2026-12-01' } },
      deps,
    );
    expect('isError' in good).toBe(false);
  });
});
