// An append-only file for results and intents. Each append is written to the file at once (one
// write(2), so it survives the process being killed the next instant), and synced to the disk in
// the background (so it survives a power cut too); an append's promise resolves once a sync has
// covered it. Syncs are spaced at least `syncEveryMs` apart, so that one fdatasync covers many
// lines: a sync costs far more than a write. Writes stay on the main thread: the hand-offs to
// libuv's thread pool cost more than the writes themselves.
import { close, fchmodSync, fdatasync, fstatSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Env } from '../context.js';
import { openOwnFile } from '../fs/ownership.js';
import { syncFolder } from '../fs/sync-folder.js';

interface Waiter {
  upTo: number;
  done: () => void;
  fail: (error: unknown) => void;
}

/**
 * `Tag`: what a gathered text stands for (a result, for the results file), given back by `lost()`
 * for each text a failed write kept from the file; a text written without one stands for its lines.
 */
export class DurableAppender<Tag = string> {
  /** Bytes written so far (where the next text will start), and how many a finished sync covers. */
  #end: number;
  #synced: number;
  #waiting: Waiter[] = [];
  #syncing = false;
  #timer: NodeJS.Timeout | undefined;
  #lastSync = Number.NEGATIVE_INFINITY;
  #error: unknown;
  #closed = false;
  #ending = false;
  /** With `gather`: texts waiting for this turn's write, and what the texts a failed write lost stood for. */
  #gathered: { text: string; tag: Tag | undefined }[] = [];
  #lost: Tag[] = [];
  #onFailure: ((error: unknown) => void)[] = [];
  /**
   * What those waiting for this turn's gathered texts to be written (not synced) are given: one
   * promise for the turn, not one each (a batch notes a request a record).
   */
  #turnWritten: { promise: Promise<void>; done: () => void; fail: (error: unknown) => void } | undefined;

  private readonly fd: number;
  readonly path: string;
  private readonly syncEveryMs: number;
  private readonly gather: boolean;
  private readonly behind: DurableAppender<unknown> | undefined;

  private constructor(file: {
    fd: number;
    path: string;
    size: number;
    syncEveryMs: number;
    gather: boolean;
    behind: DurableAppender<unknown> | undefined;
  }) {
    this.fd = file.fd;
    this.path = file.path;
    this.syncEveryMs = file.syncEveryMs;
    this.gather = file.gather;
    this.behind = file.behind;
    this.#end = file.size;
    this.#synced = file.size;
  }

  /**
   * Opens (or creates) `path` for appending. A new file's folder entry is synced too, or a power cut
   * could lose the whole file. `syncEveryMs` spaces the syncs; `truncate` empties the file first.
   * `behind` (with `gather`): this file never gets ahead of that one. Whatever that file has
   * gathered is written before this file's own texts, so a kill between the two writes finds that
   * one ahead; and once that file has failed, nothing more is written to this one. The file is
   * never opened through a symbolic link; with `env`, only when it is the user's own
   * (src/fs/ownership.ts), as a file of signing URLs must be.
   */
  static open<Tag = string>(
    path: string,
    {
      syncEveryMs = 0,
      mode = 0o644,
      truncate = false,
      gather = false,
      behind,
      env,
    }: {
      syncEveryMs?: number;
      mode?: number;
      truncate?: boolean;
      gather?: boolean;
      behind?: DurableAppender<unknown>;
      /** Write only to a file of the user's own; the environment says who that is (SUDO_UID). */
      env?: Env;
    } = {},
  ): DurableAppender<Tag> {
    const fd = openOwnFile(path, { mode, truncate, env });
    if (truncate) fchmodSync(fd, mode); // a file that was there keeps its mode otherwise
    const size = fstatSync(fd).size;
    if (size === 0) syncFolder(dirname(path));
    return new DurableAppender<Tag>({ fd, path, size, syncEveryMs, gather, behind });
  }

  /** True once a write or sync failed: what was appended since may not be on disk. */
  get failed(): boolean {
    return this.#error !== undefined;
  }

  /** Where the next appended text will start. */
  get end(): number {
    return this.#end;
  }

  /**
   * Writes `text` now; the promise resolves once it is synced to disk. Throws at once if the write
   * fails (disk full, say): then nothing after it is written either.
   */
  append(text: string): Promise<void> {
    this.write(text);
    return this.flushed();
  }

  /**
   * Writes `text` now; `flushed()` (or a later `append`) waits for its sync. Opened with `gather`,
   * the texts of one turn of the event loop go out in one write at the end of the turn (a batch
   * stores thousands of lines a second, and each write(2) costs more than the rest of a line);
   * a failure then reaches `onFailure`, and `lost()` gives the tags of the texts it kept from the file.
   */
  write(text: string, tag?: Tag): void {
    if (this.#closed) throw new Error(`${this.path} is closed`);
    if (this.#error !== undefined) throw this.#error;
    if (this.gather) {
      if (this.#gathered.length === 0) setImmediate(() => this.#writeGathered());
      this.#gathered.push({ text, tag });
      this.#end += Buffer.byteLength(text);
      return;
    }
    const bytes = Buffer.from(text);
    if (this.#writeAll(bytes) < bytes.length) throw this.#error;
    this.#end += bytes.length;
  }

  /**
   * Resolves once everything written so far is in the file (not yet synced: it survives the process
   * being killed); rejects if that write fails. At once without `gather`, where writes are at once.
   */
  written(): Promise<void> {
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#gathered.length === 0) return Promise.resolve();
    if (this.#turnWritten) return this.#turnWritten.promise;
    let done!: () => void;
    let fail!: (error: unknown) => void;
    const promise = new Promise<void>((resolve, reject) => {
      done = resolve;
      fail = reject;
    });
    this.#turnWritten = { promise, done, fail };
    return promise;
  }

  /** Calls `listener` when a gathered write fails. */
  onFailure(listener: (error: unknown) => void): void {
    this.#onFailure.push(listener);
  }

  /** What the texts a failed gathered write did not get whole into the file stood for (their tags). */
  lost(): Tag[] {
    return this.#lost;
  }

  /** Writes `bytes`; returns how many of them got into the file (fewer once #error is set). */
  #writeAll(bytes: Buffer): number {
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at);
    } catch (error) {
      this.#error = error;
    }
    return at;
  }

  #writeGathered(): void {
    if (this.#gathered.length === 0) return;
    if (this.behind) {
      this.behind.#writeGathered();
      this.#error ??= this.behind.#error;
    }
    const gathered = this.#gathered;
    const bytes = Buffer.from(gathered.map((entry) => entry.text).join(''));
    this.#gathered = [];
    const waiting = this.#turnWritten;
    this.#turnWritten = undefined;
    // After a failed sync, or a failure of the file this one is behind, nothing more goes into
    // the file: the texts gathered before it was known are lost, like those of a failed write.
    const at = this.#error === undefined ? this.#writeAll(bytes) : 0;
    if (at === bytes.length) {
      waiting?.done();
      return;
    }
    // The texts after the last one the file got whole (a torn one is dropped on resume).
    let end = 0;
    this.#lost = gathered
      .filter((entry) => {
        end += Buffer.byteLength(entry.text);
        return end > at;
      })
      .flatMap(({ text, tag }) => (tag === undefined ? (text.split('\n').filter(Boolean) as Tag[]) : [tag]));
    waiting?.fail(this.#error);
    for (const listener of this.#onFailure.splice(0)) listener(this.#error);
  }

  /** Resolves once everything written so far is synced to disk. */
  flushed(): Promise<void> {
    this.#writeGathered();
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#synced >= this.#end) return Promise.resolve();
    return new Promise((done, fail) => {
      this.#waiting.push({ upTo: this.#end, done, fail });
      this.#schedule();
    });
  }

  /**
   * No more text is coming (the run is ending): from now on a sync starts as soon as one is wanted,
   * instead of waiting to group it with later lines.
   */
  ending(): void {
    this.#writeGathered();
    this.#ending = true;
    if (!this.#timer) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#sync();
  }

  #schedule(): void {
    if (this.#syncing || this.#timer) return;
    const wait = this.#lastSync + this.syncEveryMs - performance.now();
    if (wait > 0 && !this.#closed && !this.#ending) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#sync();
      }, wait);
    } else this.#sync();
  }

  #sync(): void {
    this.#syncing = true;
    this.#lastSync = performance.now();
    const upTo = this.#end;
    fdatasync(this.fd, (error) => {
      this.#syncing = false;
      if (error) this.#error ??= error;
      else this.#synced = upTo;
      const still: Waiter[] = [];
      for (const waiter of this.#waiting) {
        if (this.#error !== undefined) waiter.fail(this.#error);
        else if (waiter.upTo <= this.#synced) waiter.done();
        else still.push(waiter);
      }
      this.#waiting = still;
      if (still.length > 0) this.#schedule();
    });
  }

  /** Syncs what is left, then closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#writeGathered();
    this.#closed = true;
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    try {
      if (this.#error === undefined && this.#synced < this.#end) {
        await new Promise<void>((done, fail) => {
          this.#waiting.push({ upTo: this.#end, done, fail });
          if (!this.#syncing) this.#sync();
        });
      }
      while (this.#syncing) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      await new Promise<void>((resolve) => close(this.fd, () => resolve()));
    }
  }
}
