// What a command may touch. Production builds it from the process; tests build one with buffered
// streams, a chosen TTY-ness, a temporary config directory and their own environment.
import type { Readable } from 'node:stream';

export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY: boolean;
  readonly columns?: number;
  /**
   * While the reader is behind (a pipe that is asynchronous, as on macOS and Windows), a promise
   * that resolves when it has caught up; undefined when more may be written now.
   */
  drained?(): Promise<void> | undefined;
}

type NodeOutput = OutputStream & {
  writableNeedDrain?: boolean;
  once?(event: 'drain', listener: () => void): unknown;
};

export interface InputStream {
  readonly isTTY: boolean;
  /** The whole of standard input as text (read once; later calls get the same text). */
  readAll(): Promise<string>;
  /** Standard input as a stream, for readers that go line by line. */
  stream(): Readable;
}

export type Env = Readonly<Record<string, string | undefined>>;

export interface Context {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /**
   * The terminal behind stderr, for a spinner (ora draws with cursor moves and hooks the stream's
   * writes, which a wrapper cannot take part in). Spinner text never holds a secret.
   */
  readonly spinnerStream: NodeJS.WritableStream;
  readonly stdin: InputStream;
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
  /** Registers a value that must never reach stdout or stderr (the token); it is masked if it does. */
  addSecret(value: string): void;
}

/** Replaces every registered secret in a chunk of output. */
export function redact(text: string, secrets: ReadonlySet<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** Wraps a stream so that no registered secret can be written through it. */
export function redactingStream(stream: OutputStream, secrets: ReadonlySet<string>): OutputStream {
  return {
    write: (chunk: string) => stream.write(secrets.size === 0 ? chunk : redact(chunk, secrets)),
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
  };
}

export function cachedReadAll(source: () => Readable): () => Promise<string> {
  let text: Promise<string> | undefined;
  return () => {
    text ??= (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of source()) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    })();
    return text;
  };
}
