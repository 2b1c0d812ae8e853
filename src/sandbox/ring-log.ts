// The last N of something (requests received, envelopes created), for GET /_sandbox/requests and
// /_sandbox/envelopes: a fixed-size ring, so a long benchmark keeps memory flat. A count alone does
// not keep memory flat when items can be large (a request's body can be 1 MiB): with a byte budget,
// the oldest items are also dropped once the sizes of those kept pass it.

/** A cap on the sum of the kept items' sizes; `sizeOf` is asked again when an item `resized`. */
export interface ByteBudget<T> {
  maxBytes: number;
  sizeOf(item: T): number;
}

export class RingLog<T> {
  readonly capacity: number;
  /** The most bytes kept (Infinity without a budget). */
  readonly maxBytes: number;
  #items: (T | undefined)[];
  #next = 0;
  #size = 0;
  /** Items added since the start or the last clear, kept or not. */
  #total = 0;
  readonly #sizeOf: ((item: T) => number) | undefined;
  /** The size charged for each kept item, and their sum. */
  #charged = new Map<T, number>();
  #bytes = 0;

  constructor(capacity: number, budget?: ByteBudget<T>) {
    this.capacity = Math.max(0, Math.floor(capacity));
    this.maxBytes = budget?.maxBytes ?? Number.POSITIVE_INFINITY;
    this.#sizeOf = budget?.sizeOf;
    this.#items = [];
  }

  add(item: T): void {
    if (this.capacity === 0) return;
    if (this.#size === this.capacity) this.#dropOldest();
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size += 1;
    this.#total += 1;
    this.#charge(item);
  }

  /**
   * `item` grew or shrank after it was added (a request's body is read after the request is
   * listed): its size is charged anew, and the oldest items dropped past the budget. Nothing
   * happens for an item no longer kept.
   */
  resized(item: T): void {
    if (this.#charged.has(item)) this.#charge(item);
  }

  #charge(item: T): void {
    if (!this.#sizeOf) return;
    const size = this.#sizeOf(item);
    this.#bytes += size - (this.#charged.get(item) ?? 0);
    this.#charged.set(item, size);
    // The newest item stays, whatever its size: a log that lost what just came would help nobody.
    while (this.#bytes > this.maxBytes && this.#size > 1) this.#dropOldest();
  }

  #dropOldest(): void {
    const index = (this.#next - this.#size + this.capacity) % this.capacity;
    const item = this.#items[index] as T;
    this.#items[index] = undefined;
    this.#size -= 1;
    this.#bytes -= this.#charged.get(item) ?? 0;
    this.#charged.delete(item);
  }

  /** Oldest first; at most the last `limit`. */
  items(limit = this.#size): T[] {
    const count = Math.min(limit, this.#size);
    const out: T[] = new Array(count);
    const start = (this.#next - count + this.capacity) % (this.capacity || 1);
    for (let i = 0; i < count; i++) out[i] = this.#items[(start + i) % this.capacity] as T;
    return out;
  }

  get size(): number {
    return this.#size;
  }

  get total(): number {
    return this.#total;
  }

  /** The sum of the kept items' sizes (0 without a budget). */
  get bytes(): number {
    return this.#bytes;
  }

  clear(): void {
    this.#items = [];
    this.#next = 0;
    this.#size = 0;
    this.#total = 0;
    this.#charged.clear();
    this.#bytes = 0;
  }
}
