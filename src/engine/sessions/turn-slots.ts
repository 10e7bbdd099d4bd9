/**
 * The `concurrency.maxRunningTurns` cap: a counting semaphore with a FIFO queue
 * (docs/guide/http-api.md "Limits").
 * @module
 */

export type Release = () => void;

/**
 * Where turns take their slot: {@link TurnSlots} in process memory (the fast path), or the
 * storage-backed FIFO shared by processes (./shared-turn-slots.ts).
 */
export interface SlotPool {
  /** A slot now without waiting, or undefined (all taken, or the pool must ask the store). */
  tryAcquire(): Release | undefined;
  /**
   * Joins the FIFO queue: position 0 when the slot was taken at once, else the 1-based position,
   * with a promise of the slot that rejects with the signal's reason when the signal aborts.
   */
  enqueue(signal: AbortSignal, sessionId?: string): { position: number; slot: Promise<Release> } | Promise<{ position: number; slot: Promise<Release> }>;
}

interface Waiter {
  grant: (release: Release) => void;
  reject: (error: unknown) => void;
}

export class TurnSlots implements SlotPool {
  readonly #max: number;
  #running = 0;
  readonly #queue: Waiter[] = [];

  /** `max` undefined means unlimited. */
  constructor(max: number | undefined) {
    this.#max = max ?? Number.POSITIVE_INFINITY;
  }

  /** A slot now, or undefined when all are taken. */
  tryAcquire(): Release | undefined {
    if (this.#running >= this.#max || this.#queue.length > 0) return undefined;
    this.#running++;
    return this.#releaser();
  }

  /**
   * Joins the FIFO queue. Returns the 1-based position and a promise of the slot; aborting the
   * signal leaves the queue and rejects the promise with the signal's reason.
   */
  enqueue(signal: AbortSignal): { position: number; slot: Promise<Release> } {
    let waiter!: Waiter;
    const slot = new Promise<Release>((grant, reject) => {
      waiter = { grant, reject };
    });
    this.#queue.push(waiter);
    const position = this.#queue.length;
    const onAbort = (): void => {
      const at = this.#queue.indexOf(waiter);
      if (at >= 0) {
        this.#queue.splice(at, 1);
        waiter.reject(signal.reason);
      }
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    void slot.then(
      () => signal.removeEventListener("abort", onAbort),
      () => {},
    );
    return { position, slot };
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.length;
  }

  // --- internals ---

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // Hand the slot straight to the next waiter so a newcomer cannot jump the queue.
      if (next) next.grant(this.#releaser());
      else this.#running--;
    };
  }
}
