import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findJsonSyntaxProblem,
  lineAndColumn,
  locate,
  parseJsonText,
  readJson,
  stripBom,
} from '../../src/text/json.js';

describe('jsonc-parser in the tests', () => {
  it('is its ES-module build, as in the bundle (vitest.config.ts), not the UMD one through require()', () => {
    expect(findJsonSyntaxProblem('{,}')).toBeDefined();
    const required = Object.keys(createRequire(import.meta.url).cache);
    expect(required.filter((path) => path.includes('jsonc-parser'))).toEqual([]);
  });
});

describe('findJsonSyntaxProblem', () => {
  it('accepts everything JSON.stringify produces', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        expect(findJsonSyntaxProblem(JSON.stringify(value, null, indent))).toBeUndefined();
      }),
    );
  });

  it('agrees with JSON.parse on arbitrary text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((s) => s.slice(0, Math.max(0, s.length - 1))),
        ),
        (text) => {
          let valid = true;
          try {
            JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
          } catch {
            valid = false;
          }
          expect(findJsonSyntaxProblem(text) === undefined).toBe(valid);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ',' or '}' after a property value"],
    ['{"a": 1,}', 1, 9, "trailing comma before '}'"],
    ['{"a": }', 1, 7, "unexpected '}'"],
    ['', 1, 1, 'unexpected end of input'],
    ['{"a": "b\nc"}', 1, 9, 'unescaped control character'],
    ['[1, 2', 1, 6, "expected ',' or ']'"],
    ["{'a': 1}", 1, 2, 'expected a property name in double quotes'],
  ])('locates the problem in %j at line %i, column %i', (text, line, column, reason) => {
    const problem = findJsonSyntaxProblem(text);
    expect(problem).toMatchObject({ line, column });
    expect(problem?.reason).toContain(reason);
  });

  it('parseJsonText strips a byte-order mark', () => {
    expect(parseJsonText('\ufeff{"a":"b"}')).toEqual({ ok: true, value: { a: 'b' } });
    expect(parseJsonText('{"a"')).toEqual({
      ok: false,
      problem: expect.stringMatching(/^line 1, column 5: /),
    });
  });

  it('lineAndColumn counts from 1', () => {
    expect(lineAndColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe('readJson: one reader, JSON.parse first, jsonc-parser to say where', () => {
  it('finds its own position and reason for every text JSON.parse refuses (never V8 wording)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((s) => s.slice(0, Math.max(0, s.length - 1))),
          fc.tuple(fc.json(), fc.string({ maxLength: 3 }), fc.nat()).map(([s, cut, at]) => {
            const i = at % (s.length + 1);
            return s.slice(0, i) + cut + s.slice(i);
          }),
        ),
        (text) => {
          const read = readJson(text);
          if (read.ok) return;
          const lines = stripBom(text).split('\n');
          expect(read.at.line).toBeLessThanOrEqual(lines.length);
          expect(read.at.column).toBeLessThanOrEqual((lines[read.at.line - 1] ?? '').length + 1);
          // V8's messages start with a capital ("Unexpected token", "Bad control character").
          expect(read.at.reason).toMatch(/^[a-z']/);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('counts columns after a byte-order mark, as an editor shows them', () => {
    expect(readJson('\ufeff{"a" 1}')).toEqual({
      ok: false,
      at: { line: 1, column: 6, reason: "expected ':' after a property name, found '1'" },
    });
  });

  it.each([
    ['{"a": 1} // note', 1, 10, 'comments are not allowed in JSON'],
    ['{\n  /* c */ "a": 1\n}', 2, 3, 'comments are not allowed in JSON'],
    ['[1, 2,]', 1, 7, "trailing comma before ']'"],
    ['{"a": 1} x', 1, 10, "unexpected 'x' after the end of the JSON value"],
    ['{"a": "\\x"}', 1, 8, 'bad escape in a string'],
    ['{"a": "\\u12"}', 1, 8, 'bad \\u escape in a string'],
    ['{"a": "b', 1, 9, 'unterminated string'],
  ])('JSON, not JSONC: %j is refused at line %i, column %i', (text, line, column, reason) => {
    expect(readJson(text)).toEqual({ ok: false, at: { line, column, reason } });
  });

  it('a text nested deeper than the stack still gets a message, not a crash', () => {
    const read = readJson('['.repeat(200_000));
    expect(read.ok).toBe(false);
  });

  it('locate finds a key after a byte-order mark and in arrays, or the nearest enclosing key', () => {
    const text = '\ufeff{\n  "a": [\n    {"b": 1},\n    {"c": 2}\n  ]\n}';
    expect(locate(text, ['a', '1', 'c'])).toEqual({ line: 4, column: 6 });
    expect(locate(text, ['a', '1'])).toEqual({ line: 4, column: 5 });
    expect(locate(text, ['a', '1', 'missing'])).toEqual({ line: 4, column: 5 });
    expect(locate(text, ['nope'])).toEqual({ line: 1, column: 1 });
  });
});
