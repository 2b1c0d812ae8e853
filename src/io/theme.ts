// A chalk instance whose colour level is the run's decision (io/terminal.ts), never chalk's own.
import { Chalk, type ChalkInstance } from 'chalk';
import { colorOf, type StreamName, type TerminalDecision } from './terminal.js';

export { colorLevel } from './terminal.js';

export function themeFor(terminal: TerminalDecision, stream: StreamName): ChalkInstance {
  return new Chalk({ level: colorOf(terminal, stream) });
}
