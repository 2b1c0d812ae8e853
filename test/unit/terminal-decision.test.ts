// The run's one decision about its terminal (io/terminal.ts), as a table.
import { describe, expect, it } from 'vitest';
import type { ColorLevel } from '../../src/context.js';
import { decideTerminal, drawable, unicodeWanted } from '../../src/io/terminal.js';

const tty = { isTTY: true, columns: 80 };
const pipe = { isTTY: false, columns: undefined };
const zeroColumns = { isTTY: true, columns: 0 };

type Stream = { isTTY: boolean; columns: number | undefined };
const rows: [
  string,
  Stream,
  Stream,
  Record<string, string>,
  ColorLevel,
  ColorLevel,
  boolean,
  number | undefined,
][] = [
  // name, stdout, stderr, env, stdout colour, stderr colour, spinners, width
  ['both terminals', tty, tty, {}, 1, 1, true, 80],
  ['256 colours from TERM', tty, tty, { TERM: 'xterm-256color' }, 2, 2, true, 80],
  ['truecolor from COLORTERM', tty, tty, { COLORTERM: 'truecolor' }, 3, 3, true, 80],
  ['stdout piped', pipe, tty, {}, 0, 1, true, 80],
  ['stderr piped', tty, pipe, {}, 1, 0, false, 80],
  ['both piped', pipe, pipe, {}, 0, 0, false, undefined],
  ['NO_COLOR', tty, tty, { NO_COLOR: '1' }, 0, 0, true, 80],
  ['NO_COLOR empty counts as unset', tty, tty, { NO_COLOR: '' }, 1, 1, true, 80],
  ['NO_COLOR wins over FORCE_COLOR', tty, tty, { NO_COLOR: '1', FORCE_COLOR: '1' }, 0, 0, true, 80],
  ['FORCE_COLOR=0', tty, tty, { FORCE_COLOR: '0' }, 0, 0, true, 80],
  ['FORCE_COLOR=false', tty, tty, { FORCE_COLOR: 'false' }, 0, 0, true, 80],
  ['FORCE_COLOR=1 into pipes', pipe, pipe, { FORCE_COLOR: '1' }, 1, 1, false, undefined],
  ['FORCE_COLOR=3', pipe, tty, { FORCE_COLOR: '3' }, 3, 3, true, 80],
  ['FORCE_COLOR empty', pipe, pipe, { FORCE_COLOR: '' }, 1, 1, false, undefined],
  ['TERM=dumb: no colour, no spinner', tty, tty, { TERM: 'dumb' }, 0, 0, false, 80],
  ['TERM=dumb with FORCE_COLOR=1', tty, tty, { TERM: 'dumb', FORCE_COLOR: '1' }, 1, 1, false, 80],
  ['CI: colour on a terminal, no spinner', tty, tty, { CI: 'true' }, 1, 1, false, 80],
  ['CI=false is not CI: spinner on', tty, tty, { CI: 'false' }, 1, 1, true, 80],
  ['CI=0 is not CI: spinner on', tty, tty, { CI: '0' }, 1, 1, true, 80],
  ['a zero-column pty: no spinner', pipe, zeroColumns, {}, 0, 1, false, undefined],
];

describe('decideTerminal', () => {
  it.each(rows)('%s', (_name, stdout, stderr, env, stdoutColor, stderrColor, animations, width) => {
    expect(decideTerminal({ stdout, stderr }, env, 'linux')).toEqual({
      stdoutIsTTY: stdout.isTTY,
      stderrIsTTY: stderr.isTTY,
      stdoutColor,
      stderrColor,
      animations,
      accessible: false,
      plainProgress: false,
      width,
      unicode: env.TERM !== 'dumb',
    });
  });
});

describe('unicodeWanted', () => {
  it.each([
    // env, platform, unicode
    [{ LANG: 'C' }, 'linux', false],
    [{ LANG: 'POSIX' }, 'darwin', false],
    [{ LANG: 'en_US.UTF-8' }, 'linux', true],
    [{ LANG: 'C.utf8' }, 'linux', true],
    [{ LANG: 'de_DE.ISO-8859-1' }, 'linux', false],
    [{ LANG: 'en_US.UTF-8', LC_ALL: 'C' }, 'linux', false],
    [{ LANG: 'C', LC_CTYPE: 'en_US.UTF-8' }, 'linux', true],
    [{ LANG: 'en_US.UTF-8', LC_CTYPE: 'C' }, 'linux', false],
    [{ LANG: 'C', LC_ALL: '', LC_CTYPE: '' }, 'linux', false],
    [{}, 'linux', true],
    [{ TERM: 'linux' }, 'linux', false],
    [{ TERM: 'dumb' }, 'darwin', false],
    [{}, 'win32', true],
    [{ LANG: 'C' }, 'win32', true],
    [{ TERM: 'dumb' }, 'win32', false],
  ] as const)('%j on %s: %s', (env, platform, unicode) => {
    expect(unicodeWanted(env, platform)).toBe(unicode);
  });

  it('draws the symbols in ASCII where there is no Unicode, and leaves other text alone', () => {
    const text = '✓ 3/10 done · 1 failed … Settings → API Tokens, Zoë';
    expect(drawable({ unicode: false }, text)).toBe(
      'OK 3/10 done - 1 failed ... Settings -> API Tokens, Zoë',
    );
    expect(drawable({ unicode: true }, text)).toBe(text);
  });
});
