// A hidden prompt for secrets on a terminal: nothing typed is echoed.
import type { ReadStream } from 'node:tty';
import { InterruptedError } from '../errors.js';

export function promptSecret(
  input: ReadStream,
  output: NodeJS.WritableStream,
  question: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(question);
    const wasRaw = input.isRaw;
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.resume();
    let value = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        const next = afterKey(value, char);
        if (next === ENTERED) return finish();
        if (next === INTERRUPTED) return finish(new InterruptedError('Interrupted; nothing was stored.'));
        value = next;
      }
    };
    input.on('data', onData);
  });
}

const ENTERED = Symbol('entered');
const INTERRUPTED = Symbol('interrupted');

/**
 * What one key does to the secret typed so far: Enter (or Ctrl-D) ends it, Ctrl-C interrupts,
 * Backspace removes the last character, Ctrl-U clears the line; other control keys are ignored.
 */
function afterKey(value: string, char: string): string | typeof ENTERED | typeof INTERRUPTED {
  if (char === '\r' || char === '\n' || char === '\u0004') return ENTERED;
  if (char === '\u0003') return INTERRUPTED;
  if (char === '\u007f' || char === '\b') return value.slice(0, -1);
  if (char === '\u0015') return '';
  return char >= ' ' ? value + char : value;
}
