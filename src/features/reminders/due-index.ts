/**
 * The in-memory due index of armed reminders: id to due time, plus a min-heap to take what is
 * due in O(log n) per reminder. Heap entries are never removed in place: an entry whose time no
 * longer matches the map is stale and skipped when it surfaces, and the heap is rebuilt when
 * stale entries outnumber live ones.
 * @module
 */

interface Entry {
  at: number;
  id: string;
}

export class DueIndex {
  readonly #due = new Map<string, number>();
  #heap: Entry[] = [];

  get size(): number {
    return this.#due.size;
  }

  set(id: string, at: number): void {
    if (this.#due.get(id) === at) return;
    this.#due.set(id, at);
    this.#push({ at, id });
    if (this.#heap.length > 2 * this.#due.size + 1024) this.#rebuild();
  }

  delete(id: string): void {
    this.#due.delete(id);
  }

  /** The earliest due time, or undefined when nothing is armed. */
  peek(): number | undefined {
    this.#dropStale();
    return this.#heap[0]?.at;
  }

  /** Removes and returns the ids due at or before `now`, earliest first. */
  takeDue(now: number): string[] {
    const out: string[] = [];
    for (;;) {
      this.#dropStale();
      const top = this.#heap[0];
      if (!top || top.at > now) return out;
      this.#pop();
      this.#due.delete(top.id);
      out.push(top.id);
    }
  }

  // --- internals ---

  #dropStale(): void {
    for (let top = this.#heap[0]; top && this.#due.get(top.id) !== top.at; top = this.#heap[0]) this.#pop();
  }

  #rebuild(): void {
    this.#heap = [];
    for (const [id, at] of this.#due) this.#push({ at, id });
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= entry.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.at < heap[left]!.at ? right : left;
      if (heap[child]!.at >= last.at) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
