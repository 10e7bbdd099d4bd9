/**
 * The memory driver's key index: keys in sorted order, kept in chunks of at most `CHUNK` keys, so
 * an insert or delete moves at most one chunk's worth of keys and a range read starts with two
 * binary searches, whatever the number of keys (docs/design/listing.md "Storage").
 * @module
 */

/** A chunk splits in two past this size; small enough that a splice inside it is cheap. */
const CHUNK = 1024;

export class SortedKeys {
  /** Non-empty chunks; every key of a chunk sorts before every key of the next. */
  readonly #chunks: string[][] = [];

  /** Adds a key that is not in the index yet. */
  add(key: string): void {
    if (this.#chunks.length === 0) {
      this.#chunks.push([key]);
      return;
    }
    const c = this.#chunkOf(key);
    const chunk = this.#chunks[c]!;
    chunk.splice(lowerBound(chunk, key), 0, key);
    if (chunk.length > CHUNK) this.#chunks.splice(c + 1, 0, chunk.splice(CHUNK / 2));
  }

  /** Removes a key; a key not in the index is ignored. */
  delete(key: string): void {
    if (this.#chunks.length === 0) return;
    const c = this.#chunkOf(key);
    const chunk = this.#chunks[c]!;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return;
    chunk.splice(i, 1);
    if (chunk.length === 0) this.#chunks.splice(c, 1);
  }

  /** Keys from `start` on (strictly after it when `exclusive`), in order, until the caller stops. */
  *from(start: string, exclusive = false): Generator<string> {
    if (this.#chunks.length === 0) return;
    let c = this.#chunkOf(start);
    const first = this.#chunks[c]!;
    let i = exclusive ? upperBound(first, start) : lowerBound(first, start);
    for (; c < this.#chunks.length; c++, i = 0) {
      const chunk = this.#chunks[c]!;
      for (; i < chunk.length; i++) yield chunk[i]!;
    }
  }

  /** The last chunk whose first key is at or before `key` (the first chunk when none is). */
  #chunkOf(key: string): number {
    let low = 0;
    let high = this.#chunks.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#chunks[mid]![0]! <= key) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

// --- internals ---

/** The first index whose key is at or after `key`. */
function lowerBound(keys: string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (keys[mid]! < key) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The first index whose key is after `key`. */
function upperBound(keys: string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (keys[mid]! <= key) low = mid + 1;
    else high = mid;
  }
  return low;
}
