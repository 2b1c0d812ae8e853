// How text is drawn on the run's terminal, as decided once (io/terminal.ts): a chalk instance whose
// colour level is the run's decision, never chalk's own, and the symbols the terminal can show.
import { Chalk, type ChalkInstance } from 'chalk';
import type { TerminalDecision } from '../context.js';
import { colorOf, type StreamName } from './terminal.js';

export { colorLevel, drawable } from './terminal.js';

export function themeFor(terminal: TerminalDecision, stream: StreamName): ChalkInstance {
  return new Chalk({ level: colorOf(terminal, stream) });
}

/** The spinner's frames: ora's Braille dots, or a turning line in ASCII. */
export function spinnerFrames(
  terminal: Pick<TerminalDecision, 'unicode'>,
): { interval: number; frames: string[] } | undefined {
  return terminal.unicode ? undefined : { interval: 130, frames: ['-', '\\', '|', '/'] };
}
