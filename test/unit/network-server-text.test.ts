import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Envelope, ulid } from '../../src/api/schemas.js';
import { escapeControl, hasControl } from '../../src/text/terminal-text.js';

describe('escapeControl', () => {
  it('shows C0, DEL, C1 and bidi controls as escapes and leaves the rest alone', () => {
    expect(escapeControl('Server Error\r\u001b[1A\u001b[2K')).toBe('Server Error\\r\\x1b[1A\\x1b[2K');
    expect(escapeControl('\u001b]0;pwned\u0007title')).toBe('\\x1b]0;pwned\\x07title');
    expect(escapeControl('a\nb\tc\u007f\u009b\u202eZ')).toBe('a\\nb\\tc\\x7f\\x9b\\u202eZ');
    // A CI runner's command marker, anywhere in a line, is data too.
    expect(escapeControl('x ##[stop-commands]abc')).toBe('x #\\x23[stop-commands]abc');
    expect(escapeControl('# heading [link] #tag')).toBe('# heading [link] #tag');
    expect(escapeControl('Grüße, 東京 — ok')).toBe('Grüße, 東京 — ok');
  });

  it('leaves no control character behind, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(hasControl(escapeControl(text))).toBe(false);
        if (!hasControl(text)) expect(escapeControl(text)).toBe(text);
      }),
    );
  });
});

describe('the wire schemas refuse server text that is not what the spec says', () => {
  const envelope = {
    envelope_id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
    signing_url: 'https://sign.example.com/s/01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
    status: 'ready',
    created_at: '2026-11-22T10:00:00.000Z',
    expires_at: '2026-12-22T10:00:00.000Z',
  };

  it('a signing_url holding control characters does not match', () => {
    expect(Envelope.safeParse(envelope).success).toBe(true);
    for (const bad of ['https://sign.example.com/s/\u001b[2J', 'https://sign.example.com/s/a\u0085b']) {
      const parsed = Envelope.safeParse({ ...envelope, signing_url: bad });
      expect(parsed.success).toBe(false);
    }
  });

  it('a ULID above 7ZZZZZZZZZZZZZZZZZZZZZZZZZ is out of range, not "not Crockford base-32"', () => {
    const messages = (value: string) =>
      ulid()
        .safeParse(value)
        .error?.issues.map((issue) => issue.message);
    expect(messages('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBeUndefined();
    expect(messages('81JD7X4ZQ8G1N6RVS0Y2MBKT3E')).toEqual([
      'is out of range: the largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ',
    ]);
    expect(messages('U1JD7X4ZQ8G1N6RVS0Y2MBKT3E')).toEqual([
      'must be a ULID: 26 characters of Crockford base-32, like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
    ]);
  });
});
