// Where results go: standard output (gathered into one write per turn of the event loop) or the
// --output file (written at once, synced in groups). A result is an object until a sink writes it,
// as one JSON line; both sinks say when they broke, and which results may not have reached their
// reader, so that no created envelope goes unreported.
import type { OutputStream } from '../context.js';
import { redact } from '../text/redact.js';
import type { DurableAppender } from './durable-file.js';
import { formatResult, parseResult, type ResultLine, resultFormatter } from './formats.js';
import type { ResultSink } from './run.js';

/**
 * How much of what was written last is kept in case the reader is gone: a pipe holds up to 64 KiB
 * that its reader may never have read (`| head -1` exits with the pipe full).
 */
const UNREAD_KEPT_BYTES = 256 * 1024;

/** How a result line goes to standard output, where a CI runner may be reading it. */
export interface StdoutLines {
  /** Called before the result is written (GitHub Actions: its signing URL masked first). */
  before?: (result: ResultLine) => void;
  /** The JSON line as it goes out (GitHub Actions: made inert for the runner's command parser). */
  line?: (json: string) => string;
}

/**
 * Results on stdout. When stdout fails (EPIPE, ENOSPC, EIO), the results it may have lost are kept:
 * as the bytes of the JSON lines written, outside V8's heap, read back only then. Kept as objects
 * (or as strings), the last some thousand results outlived young collections: every result was
 * promoted to the old generation, and on Node 24 a 100k-record batch to stdout peaked at some
 * 230 MB instead of 160 MB.
 */
export function stdoutSink(stdout: OutputStream, lines: StdoutLines = {}): ResultSink {
  let buffered = '';
  let flushing: Promise<void> | undefined;
  let broken: unknown;
  /** The JSON lines of the results in `buffered`, where a runner's lines differ from them. */
  let pendingJson = '';
  /** The results written last (of about UNREAD_KEPT_BYTES), newest last, for when the reader turns out to be gone. */
  const recent: { json: Buffer; bytes: number }[] = [];
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
    recent.push({ json: Buffer.from(lines.line ? pendingJson : chunk), bytes: chunk.length });
    pendingJson = '';
    recentBytes += chunk.length;
    while (recent.length > 1 && recentBytes - (recent[0]?.bytes ?? 0) >= UNREAD_KEPT_BYTES) {
      recentBytes -= recent.shift()?.bytes ?? 0;
    }
    if (broken === undefined) stdout.write(chunk);
  };
  return {
    write(result) {
      if (broken !== undefined) throw broken;
      lines.before?.(result);
      const json = formatResult(result);
      if (lines.line) {
        buffered += `${lines.line(json)}\n`;
        pendingJson += `${json}\n`;
      } else buffered += `${json}\n`;
      flushing ??= new Promise((resolve) =>
        setImmediate(() => {
          flush();
          resolve();
        }),
      );
    },
    flushed: () => flushing ?? Promise.resolve(),
    ready: () => (broken === undefined ? stdout.drained?.() : undefined),
    onBroken: (listener) => {
      if (broken !== undefined) listener(broken);
      else listeners.push(listener);
    },
    unread: () => {
      flush();
      return recent.flatMap((chunk) => resultsIn(chunk.json.toString('utf8')));
    },
  };
}

/** The results of JSON lines this sink wrote (formatResult's), read back through their schema. */
function resultsIn(json: string): ResultLine[] {
  const results: ResultLine[] = [];
  for (const line of json.split('\n')) {
    if (line === '') continue;
    const read = parseResult(line);
    if (read.ok) results.push(read.value);
  }
  return results;
}

/**
 * Results in the --output file, through the same token redaction as stdout. The file gathers the
 * lines of a turn of the event loop into one write: when that write fails, the results it could not
 * store are `unread`, and the run reports them; a result refused at once is kept by the run.
 */
export function fileSink(
  file: DurableAppender<ResultLine>,
  secrets: ReadonlySet<string>,
  /** The API the records go to, added to each line as `base_url`: a resume must send there too. */
  baseUrl?: string,
): ResultSink {
  const format = resultFormatter(baseUrl);
  return {
    write: (result) => {
      const text = `${format(result)}\n`;
      file.write(secrets.size === 0 ? text : redact(text, secrets), result);
    },
    flushed: () => file.flushed(),
    finish: () => file.ending(),
    onBroken: (listener) => file.onFailure(listener),
    unread: () => file.lost(),
  };
}
