// The prepared requests of a batch: the validation pass writes every record that is to be sent, as
// the exact JSON body that was checked, to a private temporary file; the sending pass reads them
// back. So what is sent is exactly what was validated, the input is read (and parsed) only once,
// standard input needs no copy of its own, and memory stays flat however long the input.
//
// One record a line: `<input line>\t<fingerprint>\t<signatory email>\t<JSON body>` (an email that
// passed the request schema holds no white space, and JSON.stringify escapes tabs and newlines
// inside strings, so neither can occur in the body).
import { closeSync, mkdtempSync, openSync, read, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from '../errors.js';

export interface SpooledRecord {
  line: number;
  fingerprint: string;
  /** The signatory's email, for the report of a record that failed. */
  email: string;
  /** The request, as the JSON text that passed the checks. */
  body: string;
}

const FLUSH_AT = 256 * 1024;

export interface Spool {
  writer: SpoolWriter;
  reader: SpoolReader;
  /** Removes what is left (only where the file could not be removed while open, as on Windows). */
  dispose(): void;
}

/**
 * A new spool in a private folder under `folder` (the system's temporary folder by default). Where
 * the system allows it, the file is removed from its folder as soon as it is open, so that nothing
 * of the records is left behind however the process ends, even by kill -9.
 */
export function createSpool(folder = tmpdir()): Spool {
  const dir = mkdtempSync(join(folder, 'esign-batch-'));
  const path = join(dir, 'requests');
  const writeFd = openSync(path, 'wx', 0o600);
  const readFd = openSync(path, 'r');
  let removed = false;
  try {
    rmSync(dir, { recursive: true });
    removed = true;
  } catch {
    // Windows keeps an open file: it is removed at the end instead.
  }
  const writer = new SpoolWriter(writeFd, dir);
  const reader = new SpoolReader(readFd);
  return {
    writer,
    reader,
    dispose: () => {
      writer.close();
      reader.close();
      if (!removed) rmSync(dir, { recursive: true, force: true });
    },
  };
}

class SpoolWriter {
  #parts: string[] = [];
  #size = 0;
  #closed = false;

  constructor(
    private readonly fd: number,
    private readonly where: string,
  ) {}

  add(record: SpooledRecord): void {
    const text = `${record.line}\t${record.fingerprint}\t${record.email}\t${record.body}\n`;
    this.#parts.push(text);
    this.#size += text.length;
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
        `Cannot write the checked records to the temporary folder ${this.where}: ${(error as Error).message}. Nothing was sent.`,
        ExitCode.internal,
        'spool_failed',
        { hint: 'Point TMPDIR at a folder with room, then run again.', cause: error },
      );
    }
  }

  /** Writes what is buffered; the sending pass reads the file through its own descriptor. */
  finish(): void {
    this.#flush();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.fd);
  }
}

const CHUNK = 256 * 1024;

export class SpoolReader {
  #buffer = Buffer.allocUnsafe(CHUNK);
  /** Bytes at the start of #buffer left over from the last read: the start of a line. */
  #kept = 0;
  #position = 0;
  #ended = false;
  #closed = false;

  constructor(private readonly fd: number) {}

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
    if (this.#closed) return;
    this.#closed = true;
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
    const tab3 = text.indexOf('\t', tab2 + 1);
    if (tab > start && tab2 > tab && tab3 > tab2 && tab3 < end) {
      records.push({
        line: Number(text.slice(start, tab)),
        fingerprint: text.slice(tab + 1, tab2),
        email: text.slice(tab2 + 1, tab3),
        body: text.slice(tab3 + 1, end),
      });
    }
    start = end + 1;
  }
  return records;
}
