import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodingsOf, REDACTED, redact, redactStrings } from '../../src/text/redact.js';

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

  it('masks a slice of 16 characters or more from anywhere in the token (the secret part without its public prefix)', () => {
    const token = 'tok_live_5f1c9a7e3b2d4c6a8e0f1a2b';
    const secrets = new Set([token]);
    const secretPart = token.slice('tok_live_'.length);
    expect(redact(`invalid token "${secretPart}"`, secrets)).toBe('invalid token "[redacted]"');
    expect(redact(`middle ${token.slice(5, 21)} end`, secrets)).toBe('middle [redacted] end');
    expect(redact(`short ${token.slice(5, 20)} stays`, secrets)).toBe(`short ${token.slice(5, 20)} stays`);
  });

  it('masks the URL-encoded token, upper- and lower-case hex, and form encoding', () => {
    const token = '12|Ab/cD+eF gH?iJ&kL=mN%oP';
    const secrets = new Set([token]);
    const upper = encodeURIComponent(token);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase());
    const form = new URLSearchParams({ t: token }).toString().slice(2);
    for (const form_ of [upper, lower, form, encodeURI(token)]) {
      expect(redact(`https://sign.example.com/s/x?t=${form_}&y=1`, secrets)).toBe(
        'https://sign.example.com/s/x?t=[redacted]&y=1',
      );
      // and a slice of it, from the middle
      expect(redact(`…${form_.slice(3, 3 + 16)}…`, secrets)).toBe(`…${REDACTED}…`);
    }
    expect(redact(JSON.stringify(token).replaceAll('/', '\\/'), secrets)).toBe(`"${REDACTED}"`);
  });

  it('leaves no 16-character slice of the token in any of its forms, whatever surrounds it', () => {
    const tokenChars = fc.constantFrom(...'abcXYZ019_-"\\/.|%+ '.split(''));
    fc.assert(
      fc.property(
        fc.string({ unit: tokenChars, minLength: 16, maxLength: 40 }),
        fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.nat(60), fc.nat(60), fc.nat(20))),
        (token, pieces) => {
          const forms = encodingsOf(token);
          const text = pieces
            .map(([filler, from, length, which]) => {
              const form = forms[which % forms.length] as string;
              const start = from % (form.length - 15);
              return filler + form.slice(start, start + Math.max(16, length));
            })
            .join('');
          const out = redact(text, new Set([token]));
          const slices = forms.flatMap((form) =>
            [...Array(form.length - 15).keys()].map((at) => form.slice(at, at + 16)),
          );
          expect(slices.find((slice) => out.includes(slice))).toBeUndefined();
        },
      ),
    );
  });

  it('changes nothing in text that holds no 16-character slice of the token', () => {
    const token = 'tok_live_5f1c9a7e3b2d4c6a8e0f';
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'tok_live_5f1c9a xyz'.split('')), maxLength: 200 }),
        (text) => {
          const hasSlice = [...Array(token.length - 15).keys()].some((at) =>
            text.includes(token.slice(at, at + 16)),
          );
          fc.pre(!hasSlice);
          expect(redact(text, new Set([token]))).toBe(text);
        },
      ),
    );
  });

  it('redactStrings redacts every string in a plain value, keys such as __proto__ kept as data', () => {
    const token = 'tok_live_5f1c9a7e3b2d4c6a8e0f';
    const value = JSON.parse(`{"a":"x ${token}","b":[1,"${token}"],"__proto__":{"c":"${token}"}}`);
    const out = redactStrings(value, (text) => redact(text, new Set([token])));
    expect(JSON.stringify(out)).toBe(
      '{"a":"x [redacted]","b":[1,"[redacted]"],"__proto__":{"c":"[redacted]"}}',
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
