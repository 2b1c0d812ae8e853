import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { problemText } from '../../src/problems.js';
import { loadProjectFile, parseProjectFile } from '../../src/project/project-file.js';
import { describeNearUlid, resolveTemplate, templateNamesFor } from '../../src/project/templates.js';
import { locate } from '../../src/text/json.js';

const OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

/** A template resolution with its problem as the text it is shown as. */
const withText = (resolution: ReturnType<typeof resolveTemplate>) =>
  'problem' in resolution ? { problem: problemText(resolution.problem) } : resolution;
const NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';
const SANDBOX_OFFER = '01JD7X6C8PZ5R3V9YQ1TGM4HWB';

function problemOf(text: string, path = '/repo/.esign.json'): UsageError {
  try {
    parseProjectFile(text, path);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected the project file to be refused');
}

describe('parseProjectFile', () => {
  it('reads every documented key', () => {
    const text = JSON.stringify({
      profile: 'sandbox',
      templates: { 'offer-letter': OFFER },
      profiles: { sandbox: { templates: { 'offer-letter': SANDBOX_OFFER } } },
      defaults: { expires_in_days: 14, concurrency: 8, rate: '10/s' },
    });
    expect(parseProjectFile(text, '/repo/.esign.json')).toEqual(JSON.parse(text));
  });

  it('refuses a token anywhere, naming its line and column (exit 2)', () => {
    const top = problemOf('{\n  "templates": {},\n  "token": "tok_live_123"\n}\n');
    expect(top.exitCode).toBe(2);
    expect(top.message).toBe(
      "/repo/.esign.json:3:3: the project file holds a token ('token'); secrets never live in a repository.",
    );
    const nested = problemOf('{"profiles": {"ci": {\n    "api_token": "x"}}}');
    expect(nested.message).toContain(
      "/repo/.esign.json:2:5: the project file holds a token ('profiles.ci.api_token')",
    );
    // A template may be called "token-refresh": a name, not a secret.
    expect(parseProjectFile(`{"templates": {"token-refresh": "${OFFER}"}}`, 'p').templates).toEqual({
      'token-refresh': OFFER,
    });
  });

  it('reports malformed JSON with path, line and column', () => {
    const error = problemOf(
      '{\n  "templates": {\n    "offer-letter": "01JD7X4ZQ8G1N6RVS0Y2MBKT3E",\n  }\n}\n',
    );
    expect(error.message).toBe(
      "/repo/.esign.json:4:3: the project file is not valid JSON: trailing comma before '}'.",
    );
  });

  it('reports a wrong value and an unknown key with their line and column', () => {
    const badId = problemOf('{\n  "templates": {\n    "offer-letter": "01JD7X4ZQ8"\n  }\n}');
    expect(badId.message).toBe(
      "/repo/.esign.json:3:5: 'templates.offer-letter' must be a template id (a ULID: 26 characters like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E).",
    );
    const typo = problemOf('{\n  "template": {}\n}');
    expect(typo.message).toContain(
      "/repo/.esign.json:2:3: unknown key 'template'. Did you mean 'templates'?",
    );
    const days = problemOf('{"defaults": {"expires_in_days": "14"}}');
    expect(days.message).toBe("/repo/.esign.json:1:15: 'defaults.expires_in_days' must be a whole number.");
  });

  it('names the rule a declared field name breaks, not zod\'s bare "Invalid input" (a record key\'s own message)', () => {
    const empty = problemOf(`{"templates": {"offer-letter": {"id": "${OFFER}", "fields": {"": {}}}}}`);
    expect(empty.message).toBe(
      "/repo/.esign.json:1:80: 'templates.offer-letter.fields.' is not a field name: a merge tag is never empty.",
    );
  });

  it('locate finds any key of any valid JSON object (property)', () => {
    const key = fc.string({ minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue(), { minKeys: 1 }),
        fc.nat(),
        fc.boolean(),
        (object, pick, pretty) => {
          const keys = Object.keys(object);
          const chosen = keys[pick % keys.length] as string;
          const text = JSON.stringify(object, null, pretty ? 2 : 0);
          const { line, column } = locate(text, [chosen]);
          const lineText = text.split('\n')[line - 1] ?? '';
          expect(lineText.slice(column - 1).startsWith(JSON.stringify(chosen))).toBe(true);
        },
      ),
    );
  });
});

describe('finding the project file', () => {
  it('is found from a nested folder, the nearest one winning', () => {
    const root = mkdtempSync(join(tmpdir(), 'esign-project-'));
    const nested = join(root, 'a', 'b', 'c');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(root, '.esign.json'), `{"templates": {"nda": "${NDA}"}}`);
    expect(loadProjectFile(nested)?.path).toBe(join(root, '.esign.json'));
    writeFileSync(join(root, 'a', '.esign.json'), `{"profile": "sandbox"}`);
    expect(loadProjectFile(nested)).toEqual({
      path: join(root, 'a', '.esign.json'),
      content: { profile: 'sandbox' },
    });
  });
});

describe('template names', () => {
  const project = {
    path: '/repo/.esign.json',
    content: {
      templates: { 'offer-letter': OFFER, nda: NDA.toLowerCase() },
      profiles: { sandbox: { templates: { 'offer-letter': SANDBOX_OFFER } } },
    },
  };

  it('takes the profile names over the top-level ones', () => {
    expect(templateNamesFor(project, 'default').names).toEqual({ 'offer-letter': OFFER, nda: NDA });
    const sandbox = templateNamesFor(project, 'sandbox');
    expect(sandbox.names).toEqual({ 'offer-letter': SANDBOX_OFFER, nda: NDA });
    expect(sandbox.origins['offer-letter']).toBe('profiles.sandbox.templates');
  });

  it('resolves names, passes ids, and lists the names with did-you-mean for a typo', () => {
    const names = templateNamesFor(project, 'default');
    expect(resolveTemplate('offer-letter', names, '--template')).toEqual({ id: OFFER });
    expect(resolveTemplate(NDA.toLowerCase(), names, '--template')).toEqual({ id: NDA });
    expect(withText(resolveTemplate('ofer-letter', names, '--template'))).toEqual({
      problem:
        "--template: no template named 'ofer-letter'. Did you mean 'offer-letter'? Names in /repo/.esign.json: nda, offer-letter.",
    });
    // A batch record's template_id: resolved, or the problem noted under the record's own key.
    expect(resolveTemplate('nda', names, 'template_id')).toEqual({ id: NDA });
    expect(withText(resolveTemplate('ndaa', names, 'template_id'))).toEqual({
      problem:
        "template_id: no template named 'ndaa'. Did you mean 'nda'? Names in /repo/.esign.json: nda, offer-letter.",
    });
    // No project file: the resolver itself says so (issue 20), naming the folder it looked from.
    expect(
      withText(
        resolveTemplate('offer-letter', templateNamesFor(undefined, 'default', '/ci/step'), '--template'),
      ),
    ).toEqual({
      problem:
        "--template: must be a ULID or a template name, and no template is named 'offer-letter': no .esign.json was found in /ci/step or its parents to name templates.",
    });
  });
});

describe('describeNearUlid: a value shaped like an id is told what is wrong with it as an id', () => {
  const repo = { path: '/repo/.esign.json', content: { templates: { nda: NDA } } };
  const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const ulidArb = fc
    .tuple(
      fc.constantFrom(...'01234567'),
      fc.array(fc.constantFrom(...crockford), { minLength: 25, maxLength: 25 }),
    )
    .map(([first, rest]) => first + rest.join(''))
    .filter((id) => /[0-9]/.test(id));

  it('a ULID with one character dropped is one character short, with one added one too long', () => {
    fc.assert(
      fc.property(ulidArb, fc.nat(25), fc.constantFrom(...crockford), (id, at, extra) => {
        const short = id.slice(0, at) + id.slice(at + 1);
        const long = id.slice(0, at) + extra + id.slice(at);
        fc.pre(/[0-9]/.test(short));
        expect(describeNearUlid(short)).toContain(`'${short}' is one character short`);
        expect(describeNearUlid(long)).toContain(`'${long}' is one character too long`);
        for (const names of [
          templateNamesFor(undefined, 'default', '/x'),
          templateNamesFor(repo, 'default'),
        ]) {
          expect(withText(resolveTemplate(short, names, '--template'))).toEqual({
            problem: `--template: ${describeNearUlid(short)}.`,
          });
        }
      }),
    );
  });

  it('a ULID with I, L, O or U in it names the letter and its place', () => {
    fc.assert(
      fc.property(
        ulidArb,
        fc.integer({ min: 1, max: 25 }),
        fc.constantFrom('I', 'L', 'O', 'U', 'i', 'l', 'o', 'u'),
        (id, at, letter) => {
          const bad = id.slice(0, at) + letter + id.slice(at + 1);
          fc.pre(/[0-9]/.test(bad));
          expect(describeNearUlid(bad)).toContain(
            `has '${letter}' at character ${at + 1} (I, L, O and U are not Crockford base-32)`,
          );
        },
      ),
    );
  });

  it('leaves names alone: no digit, other characters, or far from 26 characters', () => {
    for (const name of [
      'offer-letter',
      'OFFERLETTERFORCONTRACTORSX',
      'nda',
      '01JD7X4ZQ8G1N6RVS0Y2MB',
      'a'.repeat(40),
    ]) {
      expect(describeNearUlid(name)).toBeUndefined();
    }
    expect(describeNearUlid('81JD7X4ZQ8G1N6RVS0Y2MBKT3E')).toContain(
      "'81JD7X4ZQ8G1N6RVS0Y2MBKT3E' is out of range: the largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
    );
  });

  it('an id in the project file shaped like one is told what is wrong with it, as --template is', () => {
    const error = problemOf('{"templates": {"offer": "01JD7X4ZQ8G1N6RVS0Y2MBKT3U"}}');
    expect(error.message).toContain("'01JD7X4ZQ8G1N6RVS0Y2MBKT3U' has 'U' at character 26");
    const object = problemOf('{"templates": {"offer": {"id": "01JD7X4ZQ8G1N6RVS0Y2MBKT3"}}}');
    expect(object.message).toContain("'01JD7X4ZQ8G1N6RVS0Y2MBKT3' is one character short");
    expect(problemOf('{"templates": {"offer": "offer-letter"}}').message).toContain('must be a template id');
  });

  it('a template name shaped like an id still resolves to its id when it is in force', () => {
    const shaped = {
      path: '/repo/.esign.json',
      content: { templates: { '01JD7X4ZQ8G1N6RVS0Y2MBKT3': OFFER } },
    };
    expect(
      resolveTemplate('01JD7X4ZQ8G1N6RVS0Y2MBKT3', templateNamesFor(shaped, 'default'), '--template'),
    ).toEqual({
      id: OFFER,
    });
    // Object keys of the names are own properties only.
    expect(resolveTemplate('constructor', templateNamesFor(shaped, 'default'), '--template')).toHaveProperty(
      'problem',
    );
  });
});
