import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandGuard, IGNORED_CLASS, SKIPPED } from '../../src/text/runner-commands.js';

// The runner's parser (actions/runner ActionCommand.cs), modelled on the safe side: its reader
// splits lines at \n, \r and \r\n; a culture-aware comparison may skip ignorable characters
// anywhere, so they are dropped before the checks.
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]/gu;
const runnerLines = (text: string) => text.split(/\r\n|\r|\n/);
const isV2Command = (line: string) =>
  line
    .replace(IGNORABLE, '')
    .replace(/^\p{White_Space}+/u, '')
    .startsWith('::');
const isV1Command = (line: string) => line.replace(IGNORABLE, '').includes('##[');

function guarded(chunks: string[], anywhere: boolean): string {
  const guard = new CommandGuard({ anywhere });
  return chunks.map((chunk) => guard.inert(chunk)).join('');
}

const unit = fc.constantFrom(
  ':',
  ':',
  '#',
  '#',
  '[',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u00a0',
  '\u00ad',
  '\u200b',
  '\u2003',
  'a',
  ']',
  '%',
);

describe('CommandGuard', () => {
  it('neutralises a field name that would start a line after white space (the attack)', () => {
    const guard = new CommandGuard({ anywhere: true });
    expect(guard.inert('error: 1 problem\n  ::stop-commands::x: is invalid\n')).toBe(
      'error: 1 problem\n  :\\x3astop-commands::x: is invalid\n',
    );
    expect(guard.inert('::error::fake\n')).toBe(':\\x3aerror::fake\n');
    expect(guard.inert('a ##[stop-commands]x\n')).toBe('a ##\\x5bstop-commands]x\n');
    // split across writes
    expect(guard.inert('  :')).toBe('  :');
    expect(guard.inert(':add-mask::x\n#')).toBe('\\x3aadd-mask::x\n#');
    expect(guard.inert('#[x]\n')).toBe('#\\x5bx]\n');
  });

  it('leaves ordinary text, JSON and URLs exactly as they are', () => {
    const guard = new CommandGuard({ anywhere: true });
    const text = `${JSON.stringify({ a: 'b::c', url: 'https://x.example/s/1#frag' })}\nhint: run \`esign login\`: now\n  key: value\n`;
    expect(guard.inert(text)).toBe(text);
    const pretty = JSON.stringify({ '::x': '::y', list: ['::z'] }, null, 2);
    expect(new CommandGuard({ anywhere: false }).inert(pretty)).toBe(pretty);
  });

  it('after any chunks, no line the runner reads is a workflow command', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 12 }), { maxLength: 8 }), (chunks) => {
        const out = guarded(chunks, true);
        expect(runnerLines(out).filter((line) => isV2Command(line) || isV1Command(line))).toEqual([]);
        const stdout = guarded(chunks, false);
        expect(runnerLines(stdout).filter(isV2Command)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('the same text gives the same output however it is cut into writes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit, maxLength: 12 }), { maxLength: 8 }),
        fc.boolean(),
        (chunks, anywhere) => {
          expect(guarded(chunks, anywhere)).toBe(guarded([chunks.join('')], anywhere));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('changes only the character that completes a command, and only by escaping it', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        const out = guarded([text], true);
        expect(out.replaceAll('\\x3a', ':').replaceAll('\\x5b', '[')).toBe(text);
      }),
    );
  });

  it('knows when the next write starts a line (where esign puts its own commands)', () => {
    const guard = new CommandGuard({ anywhere: true });
    expect(guard.atLineStart).toBe(true);
    guard.inert('progress 3/10');
    expect(guard.atLineStart).toBe(false);
    guard.inert('\n');
    expect(guard.atLineStart).toBe(true);
    guard.written('::add-mask::x\n');
    expect(guard.atLineStart).toBe(true);
  });
});

describe('the classes of what the runner skips, written out', () => {
  it("hold every character Unicode's properties put in them on this Node", () => {
    const skipped = new RegExp(`^${SKIPPED}$`, 'u');
    const ignored = new RegExp(`^${IGNORED_CLASS}$`, 'u');
    const bySkippedProperties = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]$/u;
    const byIgnoredProperties = /^[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]$/u;
    const missing: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      if (bySkippedProperties.test(char) && !skipped.test(char))
        missing.push(`skipped U+${code.toString(16)}`);
      if (byIgnoredProperties.test(char) && !ignored.test(char))
        missing.push(`ignored U+${code.toString(16)}`);
    }
    expect(missing).toEqual([]);
    // And nothing a person would type: letters, digits, punctuation.
    for (const char of ['a', 'Z', '0', ':', '#', '[', 'é', 'ß', '中', '😀'])
      expect(skipped.test(char), char).toBe(false);
  });
});
