// What a command may touch. Production builds it from the process; tests build one with buffered
// streams, a chosen TTY-ness, a temporary config directory and their own environment.
import type { Readable } from 'node:stream';
import { InterruptedError } from './errors.js';
import { redact } from './text/redact.js';
import { CommandGuard } from './text/runner-commands.js';

export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY: boolean;
  readonly columns?: number;
  /**
   * While the reader is behind (a pipe that is asynchronous, as on macOS and Windows), a promise
   * that resolves when it has caught up; undefined when more may be written now.
   */
  drained?(): Promise<void> | undefined;
  /**
   * The first error the stream met (EPIPE from a closed pipe, ENOSPC from a full disk, EIO), once
   * it has: what was written since may be lost. Undefined while all is well.
   */
  failure?(): NodeJS.ErrnoException | undefined;
  /** Calls `listener` once, the first time the stream fails. */
  onFailure?(listener: (error: NodeJS.ErrnoException) => void): void;
  /**
   * Resolves once everything written so far has left the process or failed to (then `failure()`
   * says why): a closed pipe or a full disk is known only after the write.
   */
  flushed?(): Promise<void>;
  /**
   * Writes esign's own workflow commands (`::add-mask::`, `::error`), whole lines: on a stream the
   * CI runner reads, everything else is kept from acting as one (src/text/runner-commands.ts).
   * Write them through `writeCommands` (src/ci/github-actions.ts), which falls back to `write`.
   */
  command?(lines: string): unknown;
  /**
   * Writes text whose secrets the caller masked value by value (the MCP protocol's messages, in
   * src/commands/mcp.ts): a stream that redacts does not mask the whole text again, so that the
   * protocol's own text (its keys and structure) is never touched. Absent: `write`.
   */
  writeRedacted?(chunk: string): unknown;
  /**
   * Where a drawing for the person goes (a QR code), or a warning that what they asked to see did
   * not happen (--open): this stream, unless what is written to it is held back (stderr under
   * --json holds notes for the error object), then the stream behind it.
   */
  drawing?(): OutputStream;
}

type NodeOutput = OutputStream & {
  writableNeedDrain?: boolean;
  once?(event: 'drain', listener: () => void): unknown;
};

export interface InputStream {
  readonly isTTY: boolean;
  /**
   * The whole of standard input as text (read once; later calls get the same text). On a terminal,
   * says on stderr what is being read (`what`, e.g. "merge data") and how to end it; Ctrl-C stops it
   * (InterruptedError).
   */
  readAll(what?: string): Promise<string>;
  /** The same, as the bytes that came (for input that must be checked as UTF-8). */
  readBytes(what?: string): Promise<Buffer>;
  /** Standard input as a stream, for readers that go line by line. */
  stream(): Readable;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** 0: no colour; 1: 16 colours; 2: 256; 3: truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3;
export interface TerminalDecision {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** 0: no colour; 1: 16 colours; 2: 256; 3: truecolor. */
  readonly stdoutColor: ColorLevel;
  readonly stderrColor: ColorLevel;
  /** Spinners and live progress lines, drawn on stderr (never in accessible mode). */
  readonly animations: boolean;
  /**
   * Accessible mode (ACCESSIBLE=1, ESIGN_ACCESSIBLE=1 or `esign config set accessible true`): no
   * redrawn line, no meaning in a glyph alone, plain numbered questions (io/terminal.ts).
   */
  readonly accessible: boolean;
  /**
   * What stands in for a spinner or a live progress line in accessible mode at a terminal: plain
   * lines at a slow, fixed pace on stderr.
   */
  readonly plainProgress: boolean;
  /** Columns of the terminal behind stdout, else stderr; undefined when neither is one. */
  readonly width: number | undefined;
  /** The terminal shows Unicode symbols; else its text is ASCII (io/theme.ts has the fallbacks). */
  readonly unicode: boolean;
}

export interface Context {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /**
   * The terminal behind stderr, for a spinner (ora draws with cursor moves and hooks the stream's
   * writes, which a wrapper cannot take part in). Spinner text never holds a secret.
   */
  readonly spinnerStream: NodeJS.WritableStream;
  readonly stdin: InputStream;
  /** Terminals, colour, spinners and width, decided once for the run (io/terminal.ts). */
  readonly terminal: TerminalDecision;
  readonly env: Env;
  readonly cwd: string;
  readonly version: string;
  readonly platform: NodeJS.Platform;
  readonly homedir: string;
  now(): Date;
  /** Asks for a secret on the terminal without echoing it. Only called when stdin and stderr are TTYs. */
  promptSecret(question: string): Promise<string>;
  /** Aborted on the first Ctrl-C (SIGINT) or SIGTERM. */
  readonly signal: AbortSignal;
  /**
   * The second Ctrl-C. It ends the process at once (exit 130) unless the command claims it, to
   * finish up itself (the batch prints its summary and how to resume).
   */
  readonly secondInterrupt: { readonly signal: AbortSignal; claim(): void };
  /** Registers a value that must never reach stdout or stderr (the token); it is masked if it does. */
  addSecret(value: string): void;
  /**
   * `text` with every registered secret masked (src/text/redact.ts): for what esign writes to a
   * file (results, the runner's step outputs and job summary, lists of lost envelopes), and for
   * text that is escaped on its way out, before it is escaped.
   */
  redact(text: string): string;
}

export { redact } from './text/redact.js';

/** Wraps a stream so that no registered secret can be written through it. */
export function redactingStream(stream: OutputStream, secrets: ReadonlySet<string>): OutputStream {
  const clean = (chunk: string) => (secrets.size === 0 ? chunk : redact(chunk, secrets));
  // Object.assign keeps the getters (isTTY, columns) live; a spread would copy their values.
  return Object.assign(passThrough(stream), {
    write: (chunk: string) => stream.write(clean(chunk)),
    writeRedacted: (chunk: string) => stream.write(chunk),
    command: (lines: string) => (stream.command ? stream.command(clean(lines)) : stream.write(clean(lines))),
  });
}

/**
 * Wraps a stream the CI runner reads so that no text written through it can act as a workflow
 * command (a line-leading `::` after white space, and with `anywhere` also `##[`), whether or not
 * esign believes it runs under CI: the runner reads the streams all the same, and the cost is one
 * scan of text that holds a `:`, `#` or `[`. `command` writes esign's own commands as they are,
 * each starting a line.
 */
export function commandSafeStream(stream: OutputStream, options: { anywhere: boolean }): OutputStream {
  const guard = new CommandGuard(options);
  return Object.assign(passThrough(stream), {
    write: (chunk: string) => stream.write(guard.inert(chunk)),
    command: (lines: string) => {
      const text = guard.atLineStart ? lines : `\n${lines}`;
      guard.written(text);
      return stream.write(text);
    },
  });
}

/** The parts of a wrapper that only ask the stream it wraps. */
function passThrough(stream: OutputStream): Omit<OutputStream, 'write'> {
  return {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    drained: () => {
      const target = stream as NodeOutput;
      if (target.drained) return target.drained();
      if (!target.writableNeedDrain || !target.once) return undefined;
      const once = target.once.bind(target);
      return new Promise<void>((resolve) => once('drain', resolve));
    },
    failure: () => stream.failure?.(),
    onFailure: (listener) => stream.onFailure?.(listener),
    flushed: () => stream.flushed?.() ?? Promise.resolve(),
  };
}

/**
 * A process stream (stdout, stderr) that remembers its first write error: a closed pipe or a full
 * disk is reported by Node as an 'error' event after the write returned.
 */
export function failureTracking(stream: NodeJS.WriteStream): OutputStream {
  let failure: NodeJS.ErrnoException | undefined;
  const listeners: ((error: NodeJS.ErrnoException) => void)[] = [];
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (failure) return;
    failure = error;
    for (const listener of listeners.splice(0)) listener(error);
  });
  return {
    write: (chunk: string) => stream.write(chunk),
    get isTTY() {
      return Boolean(stream.isTTY);
    },
    get columns() {
      return stream.isTTY ? stream.columns : undefined;
    },
    drained: () =>
      stream.writableNeedDrain && !failure
        ? new Promise<void>((resolve) => {
            stream.once('drain', resolve);
            listeners.push(() => resolve());
          })
        : undefined,
    failure: () => failure,
    onFailure: (listener) => {
      if (failure) listener(failure);
      else listeners.push(listener);
    },
    // A write's error reaches the 'error' listener a tick after the stream is destroyed: wait a
    // turn of the event loop after the write is done, so that `failure()` knows.
    flushed: () =>
      new Promise<void>((resolve) => {
        const settle = () => setImmediate(resolve);
        if (stream.destroyed || stream.writableEnded) settle();
        else stream.write('', settle);
      }),
  };
}

export interface ReadAllOptions {
  /** Standard input is a terminal: say what is read and how to end it. */
  isTTY?: boolean;
  stderr?: OutputStream;
  /** Ctrl-C: stop reading (InterruptedError). */
  signal?: AbortSignal;
}

/** Standard input read once, whole: as bytes (for checks that need them) or as UTF-8 text. */
export function cachedStdin(
  source: () => Readable,
  options: ReadAllOptions = {},
): Pick<InputStream, 'readAll' | 'readBytes'> {
  let bytes: Promise<Buffer> | undefined;
  const readBytes = (what = 'input') => {
    bytes ??= new Promise<Buffer>((resolve, reject) => {
      const { signal } = options;
      if (options.isTTY) {
        options.stderr?.write(
          `Reading ${what} from standard input (the terminal); end it with Ctrl-D, or press Ctrl-C to stop.\n`,
        );
      }
      const stream = source();
      const chunks: Buffer[] = [];
      const onAbort = () => {
        stream.destroy();
        reject(
          new InterruptedError(`Interrupted while reading ${what} from standard input; nothing was sent.`),
        );
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (chunk: Buffer | string) =>
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)),
      );
      stream.once('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      });
      stream.once('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(Buffer.concat(chunks));
      });
    });
    return bytes;
  };
  return { readBytes, readAll: async (what) => (await readBytes(what)).toString('utf8') };
}
