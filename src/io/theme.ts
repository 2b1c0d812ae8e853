// How text is drawn on the run's terminal, as decided once (io/terminal.ts): a chalk instance whose
// colour level is the run's decision, never chalk's own, and the symbols the terminal can show.
// Where the stream shows no colour (a pipe, a file, NO_COLOR) chalk is not loaded at all: its
// supports-color imports node:process, whose ES-module facade reads every property of `process`
// (process.report among them), about 5% of a create's instructions on Node 24.
import type { ChalkInstance } from 'chalk';
import type { TerminalDecision } from '../context.js';
import { colorOf, type StreamName } from './terminal.js';

export { colorLevel, drawable } from './terminal.js';

/**
 * Text as it is, as chalk at level 0 gives it (its arguments joined by spaces), without chalk: every
 * style and chain of styles (`c.cyan.underline`) is this same function. Not a thenable: it is
 * returned from an async function.
 */
const plain: ChalkInstance = new Proxy(() => {}, {
  get: (_target, key) =>
    key === 'level' ? 0 : key === 'then' || typeof key === 'symbol' ? undefined : plain,
  apply: (_target, _this, args: unknown[]) => args.join(' '),
}) as unknown as ChalkInstance;

export async function themeFor(terminal: TerminalDecision, stream: StreamName): Promise<ChalkInstance> {
  const level = colorOf(terminal, stream);
  if (level === 0) return plain;
  const { Chalk } = await import('chalk');
  return new Chalk({ level });
}

/** The spinner's frames: ora's Braille dots, or a turning line in ASCII. */
export function spinnerFrames(
  terminal: Pick<TerminalDecision, 'unicode'>,
): { interval: number; frames: string[] } | undefined {
  return terminal.unicode ? undefined : { interval: 130, frames: ['-', '\\', '|', '/'] };
}
