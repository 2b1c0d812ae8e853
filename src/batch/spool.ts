// The prepared requests of a batch: the validation pass writes every record that is to be sent, as
// the exact JSON body that was checked, to a private temporary file; the sending pass reads them
// back. So what is sent is exactly what was validated, the input is read (and parsed) only once,
// standard input needs no copy of its own, and memory stays flat however long the input.
//
// One record a line: `<input line>\t<fingerprint>\t<JSON body>` (JSON.stringify escapes tabs and
// newlines inside strings, so neither can occur in the body).
import { closeSync, openSync, read, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, ExitCode } from '../errors.js';

export interface SpooledRecord {
  line: number;
  fingerprint: string;
  body: string;
}

const FLUSH_AT = 256 * 1024;

export class SpoolWriter {
  #parts: string[] = [];
  #size = 0;
  count = 0;

  private constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {}

  /** Creates the file; it must not exist (it lives in a folder of our own, mode 0700). */
  static create(path: string): SpoolWriter {
    return new SpoolWriter(openSync(path, 'wx', 0o600), path);
  }

  add(line: number, fingerprint: string, body: string): void {
    const text = `${line}\t${fingerprint}\t${body}\n`;
    this.#parts.push(text);
    this.#size += text.length;
    this.count++;
    if (this.#size >= FLUSH_AT) this.#flush();
  }

  #flush(): void {
    if (this.#parts.length === 0) return;
    const bytes = Buffer.from(this.#parts.join(''));
    this.#parts = [];
    this.#size = 0;
    try {
      let at = 0;
      while (at < bytes.length) at += writeSync(this.fd, bytes, at);
    } catch (error) {
      throw new CliError(
        `Cannot write the checked records to the temporary folder ${dirname(this.path)}: ${(error as Error).message}. Nothing was sent.`,
        ExitCode.internal,
        'spool_failed',
        { hint: 'Point TMPDIR at a folder with room, then run again.', cause: error },
      );
    }
  }

  close(): void {
    try {
      this.#flush();
    } finally {
      closeSync(this.fd);
    }
  }
}

const CHUNK = 256 * 1024;

export class SpoolReader {
  #buffer = Buffer.allocUnsafe(CHUNK);
  /** Bytes at the start of #buffer left over from the last read: the start of a line. */
  #kept = 0;
  #position = 0;
  #ended = false;

  private constructor(private readonly fd: number) {}

  static open(path: string): SpoolReader {
    return new SpoolReader(openSync(path, 'r'));
  }

  /** The next records in order (some hundreds); an empty array at the end. */
  async next(): Promise<SpooledRecord[]> {
    while (!this.#ended) {
      if (this.#kept === this.#buffer.length) {
        const bigger = Buffer.allocUnsafe(this.#buffer.length * 2); // a record longer than a chunk
        this.#buffer.copy(bigger, 0, 0, this.#kept);
        this.#buffer = bigger;
      }
      const count = await new Promise<number>((resolve, reject) =>
        read(
          this.fd,
          this.#buffer,
          this.#kept,
          this.#buffer.length - this.#kept,
          this.#position,
          (error, bytes) => (error ? reject(error) : resolve(bytes)),
        ),
      );
      this.#position += count;
      const filled = this.#kept + count;
      if (count === 0) this.#ended = true;
      const end = this.#ended ? filled : this.#buffer.lastIndexOf(10, filled - 1) + 1;
      const records = end > 0 ? parseLines(this.#buffer.toString('utf8', 0, end)) : [];
      this.#buffer.copy(this.#buffer, 0, end, filled);
      this.#kept = filled - end;
      if (records.length > 0) return records;
    }
    return [];
  }

  close(): void {
    closeSync(this.fd);
  }
}

function parseLines(text: string): SpooledRecord[] {
  const records: SpooledRecord[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const tab = text.indexOf('\t', start);
    const tab2 = text.indexOf('\t', tab + 1);
    if (tab > start && tab2 > tab && tab2 < end) {
      records.push({
        line: Number(text.slice(start, tab)),
        fingerprint: text.slice(tab + 1, tab2),
        body: text.slice(tab2 + 1, end),
      });
    }
    start = end + 1;
  }
  return records;
}
