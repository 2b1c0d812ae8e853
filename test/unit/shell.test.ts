// Words quoted for a POSIX shell (src/text/shell.ts), read back by a real shell.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/text/shell.js';

/** The words a POSIX shell makes of a command line's arguments. */
function shellReads(line: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it('property: a shell reads every quoted word back as it was, one word each', () => {
    const word = fc.string({
      unit: fc.constantFrom(
        'a',
        'Z',
        '0',
        ' ',
        "'",
        '"',
        '\\',
        '$',
        '`',
        '*',
        '?',
        '\n',
        '\t',
        ';',
        '&',
        '|',
        '-',
        '=',
        '/',
        '~',
        '#',
        '!',
        'é',
      ),
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        expect(shellReads(words.map(shellQuote).join(' '))).toEqual(words);
      }),
      { numRuns: 60 },
    );
  });

  it('leaves safe words bare and quotes the rest', () => {
    expect(shellQuote('hires.csv')).toBe('hires.csv');
    expect(shellQuote('--base-url=http://127.0.0.1:8080/api/v1')).toBe(
      '--base-url=http://127.0.0.1:8080/api/v1',
    );
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("Ada's file.csv")).toBe(`'Ada'\\''s file.csv'`);
    expect(shellQuote('~/x')).toBe("'~/x'");
  });

  it('a word with a control character that acts on a terminal is shown without it, and bash reads it back', () => {
    for (const word of ['/tmp/\x1b]0;pwn\x07/.esign.json', "it's\x1b[31m \\red\r\u202e", 'a##[b\x9b\n']) {
      const quoted = shellQuote(word);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
      expect(quoted).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      const out = execFileSync('bash', ['-c', `printf '%s\\0' ${quoted}`], { encoding: 'utf8' });
      expect(out.split('\0').slice(0, -1)).toEqual([word]);
    }
  });
});
