// An append-only file whose lines are on disk before their promise resolves. Lines that arrive
// while a write is under way are written and synced together (group commit), so durability costs
// one fdatasync per batch of results, not per result.
import { type FileHandle, open } from 'node:fs/promises';

export class DurableAppender {
  #queue: { text: string; done: () => void; fail: (error: unknown) => void }[] = [];
  #flushing = false;
  #closed = false;
  #failed = false;
  /** Where the next appended text will start: the file's size once everything queued is written. */
  #end: number;

  private constructor(
    private readonly handle: FileHandle,
    readonly path: string,
    size: number,
    private readonly gatherMs: number,
  ) {
    this.#end = size;
  }

  /**
   * `gatherMs`: how long the first line of a batch waits for others to join it. Zero where a caller
   * waits on the sync; a few milliseconds where nobody does, so that one sync covers many lines.
   */
  static async open(path: string, gatherMs = 0): Promise<DurableAppender> {
    const handle = await open(path, 'a', 0o644);
    return new DurableAppender(handle, path, (await handle.stat()).size, gatherMs);
  }

  /** True once a write or sync failed: what was queued then may not be on disk. */
  get failed(): boolean {
    return this.#failed;
  }

  get end(): number {
    return this.#end;
  }

  /** Resolves once `text` has been written and synced to disk. */
  append(text: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`${this.path} is closed`));
    this.#end += Buffer.byteLength(text);
    return new Promise((done, fail) => {
      this.#queue.push({ text, done, fail });
      if (!this.#flushing) {
        this.#flushing = true;
        if (this.gatherMs > 0) setTimeout(() => void this.#flush(), this.gatherMs);
        else void this.#flush();
      }
    });
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        try {
          await this.handle.write(batch.map((entry) => entry.text).join(''));
          await this.handle.datasync();
          for (const entry of batch) entry.done();
        } catch (error) {
          this.#failed = true;
          for (const entry of batch) entry.fail(error);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing || this.#queue.length > 0) await new Promise((r) => setImmediate(r));
    await this.handle.close();
  }
}
