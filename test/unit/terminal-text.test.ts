import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControl, escapedExcerpt, hasControl, quotedExcerpt } from '../../src/text/terminal-text.js';

// Text rich in what must be escaped: controls, bidi overrides, `##[`, beside printable characters.
const withControls = fc
  .array(
    fc.oneof(
      fc.constantFrom('\u001b', '\u009b', '\u202e', '\n', '\r', '#', '[', '\u2028'),
      fc.string({ minLength: 1, maxLength: 3 }),
    ),
    { minLength: 11, maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('escapedExcerpt', () => {
  it('is escapeControl for text within the limit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (text) => {
        expect(escapedExcerpt(text, 50)).toBe(escapeControl(text));
      }),
    );
  });

  it('cuts longer text, marks the cut, and leaves no control character', () => {
    fc.assert(
      fc.property(withControls, (text) => {
        const shown = escapedExcerpt(text, 10);
        expect(shown.endsWith('…')).toBe(true);
        expect(hasControl(shown.slice(0, -1))).toBe(false);
      }),
    );
  });

  it('never cuts a surrogate pair in two', () => {
    expect(escapedExcerpt(`abc😀def`, 4)).toBe('abc…');
    expect(escapedExcerpt(`abc😀def`, 5)).toBe('abc😀…');
  });
});

describe('quotedExcerpt', () => {
  it('quotes, escapes controls and the quote itself', () => {
    expect(quotedExcerpt('say "hi"\x1b[2J')).toBe('"say \\"hi\\"\\x1b[2J"');
    expect(quotedExcerpt('404')).toBe('"404"');
  });
});
