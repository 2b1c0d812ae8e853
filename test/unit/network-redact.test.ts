import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/text/redact.js';

const TOKEN = 'tok_"quoted\\slash_5f1c9a7e3b2d4c6a';

describe('redact', () => {
  it('masks the token as written', () => {
    expect(redact(`Bearer ${TOKEN} and ${TOKEN}`, new Set([TOKEN]))).toBe('Bearer [redacted] and [redacted]');
  });

  it('masks the JSON-escaped form (a token holding " or \\)', () => {
    const json = JSON.stringify({ error: { message: `bad token ${TOKEN}` } });
    expect(json).not.toContain(TOKEN);
    const out = redact(json, new Set([TOKEN]));
    expect(out).toBe('{"error":{"message":"bad token [redacted]"}}');
    expect(JSON.parse(out).error.message).toBe('bad token [redacted]');
  });

  it('masks a prefix of 16 characters or more echoed by a server, and leaves shorter ones', () => {
    const secrets = new Set(['tok_live_5f1c9a7e3b2d4c6a8e0f']);
    expect(redact('echo: tok_live_5f1c9a7e3b… (truncated)', secrets)).toBe('echo: [redacted]… (truncated)');
    expect(redact('echo: tok_live_5f1c9a7e3b2d4c6a8', secrets)).toBe('echo: [redacted]');
    expect(redact('tok_live_5f1c9a is 15', secrets)).toBe('tok_live_5f1c9a is 15');
  });

  it('costs nothing and changes nothing with no secret registered', () => {
    const text = 'nothing to hide';
    expect(redact(text, new Set())).toBe(text);
  });

  it('leaves no 16-character prefix of the token in any form, whatever surrounds it', () => {
    const tokenChars = fc.constantFrom(...'abcXYZ019_-"\\/.'.split(''));
    fc.assert(
      fc.property(
        fc.string({ unit: tokenChars, minLength: 16, maxLength: 40 }),
        fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.nat(40), fc.boolean())),
        (token, pieces) => {
          const escaped = JSON.stringify(token).slice(1, -1);
          const text = pieces
            .map(([filler, cut, asJson]) => filler + (asJson ? escaped : token).slice(0, Math.max(16, cut)))
            .join('');
          const out = redact(text, new Set([token]));
          expect(out).not.toContain(token.slice(0, 16));
          expect(out).not.toContain(escaped.slice(0, 16));
        },
      ),
    );
  });
});
