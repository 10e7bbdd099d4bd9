/**
 * A store that crashes at its Nth operation, as if the process had died there: that operation
 * and every later one fail, and followers hear nothing more. What the inner store was handed
 * before the crash completes there, as a write already on its way to the disk does; the Nth
 * operation itself is either lost (`"lost"`: it never reached the store) or lands without its
 * caller ever hearing back (`"landed"`: the commit reached the disk, the process died before it
 * learned so). Both are what a real crash can do to one write on a store whose committed writes
 * are durable: the memory store's durability model, and sqlite in WAL mode with
 * `synchronous=FULL` (docs/reliability.md "Durability model"). The harness then reopens the
 * inner store in a new host.
 * @module
 */
import type { StorageDriver } from "../../src/base/storage/types.ts";

export type CrashMode = "lost" | "landed";

export interface CrashingStore {
  driver: StorageDriver;
  /** Operations started so far (the crash point's scale). */
  operations(): number;
  crashed(): boolean;
  /** Crashes now: for a crash point past the end of this run's operations. */
  crash(): void;
  /** Settles once every operation handed to the inner store has finished there. */
  quiesced(): Promise<void>;
}

const WRITES = new Set(["commit", "set", "delete", "append", "deleteLog", "acquireLease", "releaseLease"]);

/** `crashAt` 0 never crashes: a run that counts the workload's operations. */
export function crashingStore(inner: StorageDriver, crashAt: number, mode: CrashMode = "lost"): CrashingStore {
  let count = 0;
  let dead = false;
  const inFlight = new Set<Promise<unknown>>();
  const track = (result: unknown): void => {
    if (!(result instanceof Promise)) return;
    const settled = result.then(() => {}, () => {});
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
  };
  const failed = (property: PropertyKey): unknown =>
    property === "read" ? { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("crashed")) }) } : Promise.reject(new Error("crashed"));
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      if (property === "follow") {
        return (log: string, listener: (first: number, lines: readonly string[]) => void) =>
          target.follow(log, (first, lines) => {
            if (!dead) listener(first, lines);
          });
      }
      // The abandoned host never closes the store the next host opens.
      if (property === "close") return async () => {};
      return (...args: unknown[]) => {
        count++;
        if (dead) return failed(property);
        if (crashAt > 0 && count >= crashAt) {
          dead = true;
          if (mode === "landed" && WRITES.has(String(property))) track((value as (...a: unknown[]) => unknown).apply(target, args));
          return failed(property);
        }
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        track(result);
        return result;
      };
    },
  });
  return {
    driver,
    operations: () => count,
    crashed: () => dead,
    crash: () => {
      dead = true;
    },
    quiesced: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
