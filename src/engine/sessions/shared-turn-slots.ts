/**
 * `concurrency.maxRunningTurns` as one FIFO across every process sharing the store
 * (docs/design/processes.md "The turn-slot cap"): one record holds the running turns and the queue,
 * changed only by compare-and-set commits. A waiting turn re-reads it when a turn of this process
 * ends and at least every `POLL_MS`; entries of a crashed process are dropped by the recovery
 * sweep, with its sessions.
 * @module
 */
import { randomId } from "../../base/ids.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { updateRecord } from "../../base/storage/update.ts";
import type { Release, SlotPool } from "./turn-slots.ts";

interface Entry {
  id: string;
  owner: string;
  sessionId: string;
}

interface SlotState {
  running: Entry[];
  queue: Entry[];
}

/** How often a queued turn looks for a freed slot of another process. */
const POLL_MS = 100;

export class SharedTurnSlots implements SlotPool {
  readonly #storage: StorageDriver;
  readonly #key: string;
  readonly #max: number;
  readonly #owner: string;
  /** Wakes this process's waiting turns when one of its own turns frees a slot. */
  readonly #wakers = new Set<() => void>();

  constructor(storage: StorageDriver, options: { key: string; max: number; owner: string }) {
    this.#storage = storage;
    this.#key = options.key;
    this.#max = options.max;
    this.#owner = options.owner;
  }

  /** Never a slot without a storage round trip: `enqueue` decides. */
  tryAcquire(): Release | undefined {
    return undefined;
  }

  /**
   * Joins the shared FIFO. Position 0: the slot was free and is taken. Otherwise the 1-based place
   * in the queue across all processes, and a promise of the slot; aborting the signal leaves the
   * queue and rejects the promise with the signal's reason.
   */
  async enqueue(signal: AbortSignal, sessionId = ""): Promise<{ position: number; slot: Promise<Release> }> {
    const entry: Entry = { id: randomId(12), owner: this.#owner, sessionId };
    let position = 0;
    await this.#update((state) => {
      if (state.queue.length === 0 && state.running.length < this.#max) {
        state.running.push(entry);
        position = 0;
      } else {
        state.queue.push(entry);
        position = state.queue.length;
      }
      return true;
    });
    if (position === 0) return { position, slot: Promise.resolve(this.#releaser(entry)) };
    return { position, slot: this.#wait(entry, signal) };
  }

  /** Drops the entries of sessions that `orphaned` names (the sweep found their process gone). */
  async forget(orphaned: (entry: { owner: string; sessionId: string }) => boolean): Promise<void> {
    await this.#update((state) => {
      const before = state.running.length + state.queue.length;
      state.running = state.running.filter((entry) => !orphaned(entry));
      state.queue = state.queue.filter((entry) => !orphaned(entry));
      return state.running.length + state.queue.length !== before;
    });
  }

  /** The entries now, for the sweep. */
  async entries(): Promise<Array<{ owner: string; sessionId: string }>> {
    const state = parse(await this.#storage.get(this.#key));
    return [...state.running, ...state.queue];
  }

  // --- internals ---

  async #update(mutate: (state: SlotState) => boolean): Promise<void> {
    await updateRecord(this.#storage, this.#key, (current) => {
      const state = parse(current);
      return mutate(state) ? JSON.stringify(state) : undefined;
    });
  }

  /** Moves the entry to the running set once it is among the first of the queue for a free slot. */
  #wait(entry: Entry, signal: AbortSignal): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let busy = false;
      let done = false;
      const finish = (): void => {
        done = true;
        clearTimeout(timer);
        this.#wakers.delete(attempt);
        signal.removeEventListener("abort", onAbort);
      };
      const attempt = (): void => {
        if (busy || done) return;
        busy = true;
        let granted = false;
        this.#update((state) => {
          granted = false;
          const at = state.queue.findIndex((e) => e.id === entry.id);
          if (at < 0) {
            // Already running (a lost answer to an earlier attempt), or dropped by a sweep.
            granted = state.running.some((e) => e.id === entry.id);
            return false;
          }
          if (at >= this.#max - state.running.length) return false;
          state.queue.splice(at, 1);
          state.running.push(entry);
          granted = true;
          return true;
        }).then(
          () => {
            busy = false;
            if (done) return;
            if (granted) {
              finish();
              resolve(this.#releaser(entry));
            } else schedule();
          },
          () => {
            busy = false;
            if (!done) schedule();
          },
        );
      };
      const schedule = (): void => {
        clearTimeout(timer);
        timer = setTimeout(attempt, POLL_MS);
      };
      const onAbort = (): void => {
        if (done) return;
        finish();
        void this.#leave(entry).finally(() => reject(signal.reason));
      };
      this.#wakers.add(attempt);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      schedule();
    });
  }

  async #leave(entry: Entry): Promise<void> {
    await this.#update((state) => {
      const before = state.running.length + state.queue.length;
      state.queue = state.queue.filter((e) => e.id !== entry.id);
      state.running = state.running.filter((e) => e.id !== entry.id);
      return state.running.length + state.queue.length !== before;
    }).catch(() => {});
    for (const wake of this.#wakers) wake();
  }

  #releaser(entry: Entry): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      void this.#leave(entry);
    };
  }
}

function parse(raw: string | undefined): SlotState {
  if (raw === undefined) return { running: [], queue: [] };
  try {
    const state = JSON.parse(raw) as Partial<SlotState>;
    return { running: Array.isArray(state.running) ? state.running : [], queue: Array.isArray(state.queue) ? state.queue : [] };
  } catch {
    return { running: [], queue: [] };
  }
}
