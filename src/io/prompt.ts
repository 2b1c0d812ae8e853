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
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new InterruptedError('Interrupted; nothing was stored.'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char === '\u0015') value = '';
        else if (char >= ' ') value += char;
      }
    };
    input.on('data', onData);
  });
}
