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

/**
 * Writes the records to the spool through a buffer of bytes: each record's line is encoded into it
 * at once, so that no record's text is kept on V8's heap until the next write (the records of a
 * 256 KB flush held there outlived young collections, and made the young generation grow).
 */
class SpoolWriter {
  #buffer = Buffer.allocUnsafe(FLUSH_AT);
  /** The bytes of #buffer not yet written to the file. */
  #used = 0;
  #closed = false;

  constructor(
    private readonly fd: number,
    private readonly where: string,
  ) {}

  add(record: SpooledRecord): void {
    const text = `${record.line}\t${record.fingerprint}\t${record.email}\t${record.body}\n`;
    const size = Buffer.byteLength(text);
    if (this.#used + size > this.#buffer.length) {
      this.#flush();
      if (size > this.#buffer.length) {
        this.#write(Buffer.from(text)); // a record longer than the buffer goes on its own
        return;
      }
    }
    this.#used += this.#buffer.write(text, this.#used);
  }

  #flush(): void {
    if (this.#used === 0) return;
    const bytes = this.#buffer.subarray(0, this.#used);
    this.#used = 0;
    this.#write(bytes);
  }

  #write(bytes: Buffer): void {
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
/** The most records one call hands out: the sending pass asks for a few dozen ahead of its workers. */
const MAX_HANDED_OUT = 64;
const NEWLINE = 0x0a;
const TAB = 0x09;

/**
 * Reads the spool back a chunk of bytes at a time, and makes the records of a chunk only as they are
 * asked for, each field a string of its own, decoded from the bytes. The chunk itself is never made
 * into one string: a record sliced out of it would hold all of it (some thousand records' text, a
 * large object for V8) until its last record was sent, so that each chunk outlived young
 * collections and was promoted, and the young generation grew to the largest V8 allows.
 */
export class SpoolReader {
  #buffer = Buffer.allocUnsafe(CHUNK);
  /** The first byte of #buffer not yet handed out as a record. */
  #start = 0;
  /** The bytes of #buffer read from the file. */
  #filled = 0;
  #position = 0;
  #ended = false;
  #closed = false;

  constructor(private readonly fd: number) {}

  /** The next records in order (a few dozen); an empty array at the end. */
  async next(): Promise<SpooledRecord[]> {
    for (;;) {
      const records = this.#take();
      if (records.length > 0 || this.#ended) return records;
      await this.#read();
    }
  }

  /** The records of the whole lines read so far (and of the last line, at the end of the file). */
  #take(): SpooledRecord[] {
    const records: SpooledRecord[] = [];
    const buffer = this.#buffer.subarray(0, this.#filled);
    while (records.length < MAX_HANDED_OUT && this.#start < this.#filled) {
      const start = this.#start;
      let end = buffer.indexOf(NEWLINE, start);
      if (end === -1) {
        if (!this.#ended) break; // the rest of the line is still in the file
        end = this.#filled;
      }
      this.#start = end + 1;
      const record = parseLine(buffer, start, end);
      if (record) records.push(record);
    }
    return records;
  }

  /** Reads more of the file after the part of a line left over (a bigger buffer for a long line). */
  async #read(): Promise<void> {
    const kept = this.#filled - this.#start;
    if (kept === this.#buffer.length) {
      const bigger = Buffer.allocUnsafe(this.#buffer.length * 2); // a record longer than a chunk
      this.#buffer.copy(bigger, 0, this.#start, this.#filled);
      this.#buffer = bigger;
    } else if (this.#start > 0) {
      this.#buffer.copy(this.#buffer, 0, this.#start, this.#filled);
    }
    this.#start = 0;
    this.#filled = kept;
    const count = await new Promise<number>((resolve, reject) =>
      read(this.fd, this.#buffer, kept, this.#buffer.length - kept, this.#position, (error, bytes) =>
        error ? reject(error) : resolve(bytes),
      ),
    );
    this.#position += count;
    this.#filled += count;
    if (count === 0) this.#ended = true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.fd);
  }
}

/** The record in `buffer` from `start` to `end` (its newline), or undefined for a line without its four fields. */
function parseLine(buffer: Buffer, start: number, end: number): SpooledRecord | undefined {
  const tab = buffer.indexOf(TAB, start);
  const tab2 = tab === -1 ? -1 : buffer.indexOf(TAB, tab + 1);
  const tab3 = tab2 === -1 ? -1 : buffer.indexOf(TAB, tab2 + 1);
  if (!(tab > start && tab2 > tab && tab3 > tab2 && tab3 < end)) return undefined;
  return new ReadRecord(
    Number(buffer.toString('latin1', start, tab)),
    buffer.toString('utf8', tab + 1, tab2),
    buffer.toString('utf8', tab2 + 1, tab3),
    buffer.toString('utf8', tab3 + 1, end),
  );
}

/**
 * A record read back, made by a constructor, not as an object literal: V8 tracks where literals are
 * made, and once many of a site's objects had outlived young collections (the workers held up while
 * their young generation was at its largest), it made every later record directly in the old
 * generation, where each held its strings through every young collection. A 100k-record batch on
 * Node 24 then peaked at some 220 MB instead of 160 MB, in about half the runs
 * (test/unit/spool-pretenuring.test.ts).
 */
class ReadRecord implements SpooledRecord {
  constructor(
    readonly line: number,
    readonly fingerprint: string,
    readonly email: string,
    readonly body: string,
  ) {}
}
