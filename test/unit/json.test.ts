import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxProblem, lineAndColumn, parseJsonText } from '../../src/io/json.js';

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
