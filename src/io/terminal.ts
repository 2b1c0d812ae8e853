// How output is drawn, decided once per run (as gh's IOStreams does): whether stdout and stderr are
// terminals, the colour level of each, whether spinners and live progress lines are drawn, whether
// the terminal shows Unicode symbols (✓, →, ·, the Braille spinner) or needs ASCII, and the
// terminal's width. The context carries the decision; every spinner, progress line and renderer
// asks it, and none looks at the environment or a stream's TTY-ness itself.
import type { ColorLevel, Env, OutputStream, TerminalDecision } from '../context.js';

export type StreamName = 'stdout' | 'stderr';

/**
 * Colour only where the stream is a terminal that can show it, never with NO_COLOR; FORCE_COLOR
 * forces it on (1, 2, 3, or any other value: 16 colours) or off (0, false), over TTY-ness and TERM.
 */
export function colorLevel(stream: Pick<OutputStream, 'isTTY'>, env: Env): ColorLevel {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const forced = forcedColor(env.FORCE_COLOR);
  if (forced !== undefined) return forced;
  if (!stream.isTTY || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  return env.TERM?.includes('256') ? 2 : 1;
}

function forcedColor(force: string | undefined): ColorLevel | undefined {
  if (force === undefined) return undefined;
  if (force === '0' || force === 'false') return 0;
  if (force === '2' || force === '3') return Number(force) as 2 | 3;
  return 1;
}

/**
 * Spinners redraw one line with cursor moves: only on a terminal that has them (not TERM=dumb) and
 * a known width (ora loops forever on a zero-column pty, as `script` makes), never in CI logs.
 */
function animationsWanted(stderr: Pick<OutputStream, 'isTTY' | 'columns'>, env: Env): boolean {
  return stderr.isTTY && (stderr.columns ?? 0) > 0 && !inCi(env) && env.TERM !== 'dumb';
}

/** CI systems set CI (to true, 1, or a name); CI=false or CI=0 says this is not one. */
export function inCi(env: Env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}

/**
 * Whether the terminal shows Unicode symbols. Elsewhere than on Windows, the locale says how the
 * terminal reads bytes: the first of LC_ALL, LC_CTYPE and LANG that is set decides (LANG=C, POSIX or
 * a Latin-1 locale: ASCII). With no locale at all (a bare container, a service) today's terminals
 * still show UTF-8, except the Linux console (TERM=linux, whose font lacks these symbols) and
 * TERM=dumb. On Windows the locale variables do not govern the console (Node writes UTF-16 to it):
 * its terminals show Unicode unless TERM says dumb or linux.
 */
export function unicodeWanted(env: Env, platform: NodeJS.Platform): boolean {
  const plainTerm = env.TERM === 'dumb' || env.TERM === 'linux';
  if (platform === 'win32') return !plainTerm;
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((value) => value !== undefined && value !== '');
  if (locale !== undefined) return /utf-?8/i.test(locale);
  return !plainTerm;
}

function widthOf(
  stdout: Pick<OutputStream, 'isTTY' | 'columns'>,
  stderr: Pick<OutputStream, 'isTTY' | 'columns'>,
) {
  const terminal = stdout.isTTY ? stdout : stderr.isTTY ? stderr : undefined;
  const columns = terminal?.columns;
  return columns !== undefined && columns > 0 ? columns : undefined;
}

/** The decision for a run whose output goes to these streams, in this environment. */
export function decideTerminal(
  streams: {
    stdout: Pick<OutputStream, 'isTTY' | 'columns'>;
    stderr: Pick<OutputStream, 'isTTY' | 'columns'>;
  },
  env: Env,
  platform: NodeJS.Platform = process.platform,
): TerminalDecision {
  const { stdout, stderr } = streams;
  return {
    stdoutIsTTY: stdout.isTTY,
    stderrIsTTY: stderr.isTTY,
    stdoutColor: colorLevel(stdout, env),
    stderrColor: colorLevel(stderr, env),
    animations: animationsWanted(stderr, env),
    width: widthOf(stdout, stderr),
    unicode: unicodeWanted(env, platform),
  };
}

/** The colour level of one stream. */
export function colorOf(terminal: TerminalDecision, stream: StreamName): ColorLevel {
  return stream === 'stdout' ? terminal.stdoutColor : terminal.stderrColor;
}

/** The symbols esign draws, and the ASCII each becomes where the terminal shows no Unicode. */
const ASCII_FALLBACKS: Readonly<Record<string, string>> = {
  '✓': 'OK',
  '→': '->',
  '·': '-',
  '…': '...',
  '—': '-',
  // The prompt library's marks and frame (src/envelope/interactive.ts), one character each: it
  // counts the width of what it drew to redraw it.
  '◆': '*',
  '◇': 'o',
  '▲': '!',
  '■': 'x',
  '●': '*',
  '○': 'o',
  '│': '|',
  '─': '-',
  '└': '+',
  '┌': '+',
  '├': '+',
  '╭': '+',
  '╮': '+',
  '╯': '+',
  '╰': '+',
  '↑': '^',
  '↓': 'v',
  '•': '-',
};

const SYMBOL = new RegExp(`[${Object.keys(ASCII_FALLBACKS).join('')}]`, 'g');

/** `text` as the terminal can show it: unchanged, or with esign's symbols in ASCII (LANG=C). */
export function drawable(terminal: Pick<TerminalDecision, 'unicode'>, text: string): string {
  return terminal.unicode ? text : text.replace(SYMBOL, (symbol) => ASCII_FALLBACKS[symbol] ?? symbol);
}

/**
 * A terminal stream that draws what is written to it as the terminal can show it (messages and hints
 * say "Settings → API Tokens"); a stream that is not a terminal gets the text as it is.
 */
export function drawableStream(
  stream: OutputStream,
  terminal: Pick<TerminalDecision, 'unicode'>,
): OutputStream {
  if (terminal.unicode || !stream.isTTY) return stream;
  return {
    write: (chunk: string) => stream.write(drawable(terminal, chunk)),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    drained: () => stream.drained?.(),
    failure: () => stream.failure?.(),
    onFailure: (listener) => stream.onFailure?.(listener),
    flushed: () => stream.flushed?.() ?? Promise.resolve(),
    // Workflow commands as they are: a mask names exactly the value written elsewhere.
    command: (lines: string) => (stream.command ? stream.command(lines) : stream.write(lines)),
  };
}
