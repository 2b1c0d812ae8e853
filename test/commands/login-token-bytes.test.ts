// `login` refuses a token that cannot be sent in an Authorization header: exit 2, nothing stored.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

describe('esign login: bytes a token cannot hold', () => {
  it.each([
    ['tok_\u001b[31mred', 'a control character (U+001B at position 5)'],
    ['tok_\u0000abcdef', 'a control character (U+0000 at position 5)'],
    ['tok_abc\u007f', 'a control character (U+007F at position 8)'],
    ['tok_\u0085abcdef', 'a control character (U+0085 at position 5)'],
    ['tok_caf\u00e9_123', 'a character outside visible ASCII (U+00E9 at position 8)'],
    ['tok_\u200babcdef', 'a character outside visible ASCII (U+200B at position 5)'],
    ['\u{1f511}tok_abcdef', 'a character outside visible ASCII (U+1F511 at position 1)'],
  ])('refuses %j with exit 2, stores nothing and does not echo it', async (token, what) => {
    const result = await runCli(['login', '--with-token'], { stdin: `${token}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The token contains ${what} and cannot be sent; nothing was stored.`);
    expect(result.stderr).not.toContain(token);
    expect(() => statSync(join(result.ctx.configDir, 'config.json'))).toThrow();
  });

  it('the built binary refuses a token with an escape sequence: exit 2, no config file', async () => {
    const dir = freshConfigDir();
    const result = await runBin(['login', '--with-token'], {
      env: { ESIGN_CONFIG_DIR: dir },
      stdin: 'tok_\u001b]0;title\u0007abc\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The token contains a control character (U+001B at position 5)');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('still stores a token of visible ASCII', async () => {
    const result = await runCli(['login', '--with-token'], { stdin: 'tok_live-AZaz09._~+/=!#$%&*\n' });
    expect(result.code).toBe(0);
  });
});
