// How output is drawn, decided once per run (as gh's IOStreams does): whether stdout and stderr are
// terminals, the colour level of each, whether spinners and live progress lines are drawn, and the
// terminal's width. The context carries the decision; every spinner, progress line and renderer
// asks it, and none looks at the environment or a stream's TTY-ness itself.
import type { Env, OutputStream } from '../context.js';

export type ColorLevel = 0 | 1 | 2 | 3;
export type StreamName = 'stdout' | 'stderr';

export interface TerminalDecision {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** 0: no colour; 1: 16 colours; 2: 256; 3: truecolor. */
  readonly stdoutColor: ColorLevel;
  readonly stderrColor: ColorLevel;
  /** Spinners and live progress lines, drawn on stderr. */
  readonly animations: boolean;
  /** Columns of the terminal behind stdout, else stderr; undefined when neither is one. */
  readonly width: number | undefined;
}

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
): TerminalDecision {
  const { stdout, stderr } = streams;
  return {
    stdoutIsTTY: stdout.isTTY,
    stderrIsTTY: stderr.isTTY,
    stdoutColor: colorLevel(stdout, env),
    stderrColor: colorLevel(stderr, env),
    animations: animationsWanted(stderr, env),
    width: widthOf(stdout, stderr),
  };
}

/** The colour level of one stream. */
export function colorOf(terminal: TerminalDecision, stream: StreamName): ColorLevel {
  return stream === 'stdout' ? terminal.stdoutColor : terminal.stderrColor;
}
