// Where result lines go: standard output (gathered into one write per turn of the event loop) or
// the --output file (written at once, synced in groups). Both say when they broke, and which lines
// may not have reached their reader, so that no created envelope goes unreported.
import type { OutputStream } from '../context.js';
import { redact } from '../text/redact.js';
import type { DurableAppender } from './durable-file.js';
import type { ResultSink } from './run-batch.js';

/**
 * How much of what was written last is kept in case the reader is gone: a pipe holds up to 64 KiB
 * that its reader may never have read (`| head -1` exits with the pipe full).
 */
const UNREAD_KEPT_BYTES = 256 * 1024;

/** Results on stdout. When stdout fails (EPIPE, ENOSPC, EIO), the lines it may have lost are kept. */
export function stdoutSink(stdout: OutputStream): ResultSink {
  let buffered = '';
  let flushing: Promise<void> | undefined;
  let broken: unknown;
  /** The last chunks written, newest last, for when the reader turns out to be gone. */
  const recent: string[] = [];
  let recentBytes = 0;
  const listeners: ((error: unknown) => void)[] = [];
  stdout.onFailure?.((error) => {
    broken ??= error;
    for (const listener of listeners.splice(0)) listener(error);
  });
  const flush = () => {
    const chunk = buffered;
    buffered = '';
    flushing = undefined;
    if (chunk === '') return;
    recent.push(chunk);
    recentBytes += chunk.length;
    while (recent.length > 1 && recentBytes - (recent[0] as string).length >= UNREAD_KEPT_BYTES) {
      recentBytes -= (recent.shift() as string).length;
    }
    if (broken === undefined) stdout.write(chunk);
  };
  return {
    write(text) {
      if (broken !== undefined) throw broken;
      buffered += text;
      flushing ??= new Promise((resolve) =>
        setImmediate(() => {
          flush();
          resolve();
        }),
      );
    },
    flushed: () => flushing ?? Promise.resolve(),
    ready: () => (broken === undefined ? stdout.drained?.() : undefined),
    broken: () => broken,
    onBroken: (listener) => {
      if (broken !== undefined) listener(broken);
      else listeners.push(listener);
    },
    unread: () => {
      flush();
      return recent.join('').split('\n').filter(Boolean);
    },
  };
}

/**
 * Results in the --output file, through the same token redaction as stdout. The file gathers the
 * lines of a turn of the event loop into one write: when that write fails, the lines it could not
 * store are `unread`, and run-batch reports them; a line refused at once is kept by run-batch.
 */
export function fileSink(
  file: DurableAppender,
  secrets: ReadonlySet<string>,
  /** The API the records go to, added to each line as `base_url`: a resume must send there too. */
  baseUrl?: string,
): ResultSink {
  const stamp = baseUrl === undefined ? undefined : `,"base_url":${JSON.stringify(baseUrl)}}\n`;
  // A result line is one JSON object and its newline: the key goes in before the closing brace.
  const stamped = (text: string) =>
    stamp !== undefined && text.endsWith('}\n') ? `${text.slice(0, -2)}${stamp}` : text;
  return {
    write: (line) => {
      const text = stamped(line);
      return file.write(secrets.size === 0 ? text : redact(text, secrets));
    },
    flushed: () => file.flushed(),
    finish: () => file.ending(),
    broken: () => (file.failed ? true : undefined),
    onBroken: (listener) => file.onFailure(listener),
    unread: () => file.lost(),
  };
}
