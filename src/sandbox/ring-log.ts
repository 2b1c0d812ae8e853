// The last N of something (requests received, envelopes created), for GET /_sandbox/requests and
// /_sandbox/envelopes: a fixed-size ring, so a long benchmark keeps memory flat.

export class RingLog<T> {
  readonly capacity: number;
  #items: (T | undefined)[];
  #next = 0;
  #size = 0;
  /** Items added since the start or the last clear, kept or not. */
  #total = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(0, Math.floor(capacity));
    this.#items = [];
  }

  add(item: T): void {
    if (this.capacity === 0) return;
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size += 1;
    this.#total += 1;
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

  clear(): void {
    this.#items = [];
    this.#next = 0;
    this.#size = 0;
    this.#total = 0;
  }
}
