/**
 * A store that crashes at its Nth operation: that operation and every later one fail, and
 * followers hear nothing more, as if the process had died there. What completed before stays in
 * the inner store (the memory store's durability model: a write that returned is kept; one in
 * flight is lost). The harness reopens the inner store in a new host (docs/design/foundation.md
 * "Guarantees").
 * @module
 */
import type { StorageDriver } from "../../src/base/storage/types.ts";

export interface CrashingStore {
  driver: StorageDriver;
  /** Operations started so far (the crash point's scale). */
  operations(): number;
  crashed(): boolean;
}

/** `crashAt` 0 never crashes: a run that counts the workload's operations. */
export function crashingStore(inner: StorageDriver, crashAt: number): CrashingStore {
  let count = 0;
  let dead = false;
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
        if (crashAt > 0 && count >= crashAt) dead = true;
        if (dead) {
          if (property === "read") return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("crashed")) }) };
          return Promise.reject(new Error("crashed"));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, operations: () => count, crashed: () => dead };
}
