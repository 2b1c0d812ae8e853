// How output is drawn, decided once per run (as gh's IOStreams does): whether stdout and stderr are
// terminals, the colour level of each, whether spinners and live progress lines are drawn, whether
// the terminal shows Unicode symbols (✓, →, ·, the Braille spinner) or needs ASCII, the terminal's
// width, and accessible mode (for screen readers: nothing redrawn, no meaning in a glyph alone).
// The context carries the decision; every spinner, progress line, prompt and renderer asks it, and
// none looks at the environment or a stream's TTY-ness itself.
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

/** An on/off variable: on unless empty, 0, false, no or off (any case); undefined when unset. */
function switchedOn(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase());
}

/**
 * Accessible mode, as the environment says: ESIGN_ACCESSIBLE first (`ESIGN_ACCESSIBLE=0` turns it
 * off for esign alone), then ACCESSIBLE (the variable charmbracelet's huh and clack honour);
 * undefined when neither is set, and the config's `accessible` key decides.
 */
export function accessibleFromEnv(env: Env): boolean | undefined {
  return switchedOn(env.ESIGN_ACCESSIBLE) ?? switchedOn(env.ACCESSIBLE);
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

/**
 * The decision for a run whose output goes to these streams, in this environment. `stored`: the
 * config's `accessible` key, asked only when the environment does not say and something asks
 * (a spinner, a prompt): `--help` and `--version` read no config file for it.
 */
export function decideTerminal(
  streams: {
    stdout: Pick<OutputStream, 'isTTY' | 'columns'>;
    stderr: Pick<OutputStream, 'isTTY' | 'columns'>;
  },
  env: Env,
  platform: NodeJS.Platform = process.platform,
  stored: () => boolean | undefined = () => undefined,
): TerminalDecision {
  const { stdout, stderr } = streams;
  let accessible: boolean | undefined;
  const isAccessible = () => {
    accessible ??= accessibleFromEnv(env) ?? stored() ?? false;
    return accessible;
  };
  const animated = animationsWanted(stderr, env);
  return {
    stdoutIsTTY: stdout.isTTY,
    stderrIsTTY: stderr.isTTY,
    stdoutColor: colorLevel(stdout, env),
    stderrColor: colorLevel(stderr, env),
    get animations() {
      return animated && !isAccessible();
    },
    get accessible() {
      return isAccessible();
    },
    get plainProgress() {
      return stderr.isTTY && !inCi(env) && isAccessible();
    },
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

/**
 * In accessible mode, the symbols that carry meaning become words (a screen reader reads `→` as
 * "right arrow"); a mark beside words that say the same (`✓ Envelope created`) goes.
 */
const SPOKEN: readonly [RegExp, string][] = [
  [/\u2713 /g, ''], // ✓
  [/\u2713/g, 'OK'],
  [/ \u2192 /g, ', then '], // →
  [/\u2192/g, ' then '],
  [/ \u00b7 /g, '; '], // ·
  [/\u00b7/g, ';'],
];

/**
 * `text` as the terminal can show it: unchanged, with esign's symbols in ASCII (LANG=C), or, in
 * accessible mode, with those that carry meaning in words.
 */
export function drawable(
  terminal: Pick<TerminalDecision, 'unicode'> & Partial<Pick<TerminalDecision, 'accessible'>>,
  text: string,
): string {
  const spoken = terminal.accessible
    ? SPOKEN.reduce((done, [symbol, words]) => done.replace(symbol, words), text)
    : text;
  return terminal.unicode ? spoken : spoken.replace(SYMBOL, (symbol) => ASCII_FALLBACKS[symbol] ?? symbol);
}

/** The SGR colour of each label a line of esign's may start with (the word says it: colour adds). */
const LABEL_COLOURS: Readonly<Record<string, string>> = {
  error: '1;31',
  warning: '1;33',
  hint: '36',
};
const LABEL = /(^|\n)(error|warning|hint):/g;

/**
 * `text` with its line-leading `error:`, `warning:` and `hint:` in colour. `atLineStart`: whether
 * the text starts a line (the last write ended one).
 */
function paintLabels(text: string, atLineStart: boolean): string {
  return text.replace(LABEL, (whole, start: string, label: string, offset: number) =>
    offset === 0 && !atLineStart ? whole : `${start}\u001b[${LABEL_COLOURS[label]}m${label}:\u001b[0m`,
  );
}

/**
 * A terminal stream that draws what is written to it as the terminal can show it (messages and hints
 * say "Settings → API Tokens"), with the labels that start a line (`error:`, `warning:`, `hint:`)
 * in colour where the decision gives stderr colour; a stream that is not a terminal gets the text as
 * it is. Accessible mode is asked on each write, not here: deciding it may read the config file,
 * which a command that writes nothing to stderr never needs.
 */
export function drawableStream(
  stream: OutputStream,
  terminal: Pick<TerminalDecision, 'unicode' | 'accessible' | 'stderrColor'>,
): OutputStream {
  if (!stream.isTTY) return stream;
  let atLineStart = true;
  return {
    write: (chunk: string) => {
      const drawn = drawable(terminal, chunk);
      const shown = terminal.stderrColor > 0 ? paintLabels(drawn, atLineStart) : drawn;
      if (chunk !== '') atLineStart = chunk.endsWith('\n');
      return stream.write(shown);
    },
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
