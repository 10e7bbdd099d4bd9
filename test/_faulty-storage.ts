/**
 * A storage driver that can start failing writes, as a disk that fills up does, and recover: the
 * failures are `StorageUnavailableError`, what a driver raises for ENOSPC, EROFS or EIO.
 */
import { StorageUnavailableError } from "../src/base/storage/errors.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";

export interface FaultyStorage {
  driver: StorageDriver;
  /** Writes fail from the `(n + 1)`-th write on, until `recover()`. */
  failWritesAfter(n: number): void;
  /** The next `n` writes fail, later ones succeed again (a transient outage). */
  failNextWrites(n: number): void;
  /**
   * Writes carrying a record whose value `matches` (a `set`, or a `commit` with such a record: the
   * whole commit) fail, until `recover()`: a record that no longer fits.
   */
  failRecordsMatching(matches: (value: string) => boolean): void;
  recover(): void;
  /** Writes refused so far. */
  readonly refused: number;
}

const WRITES = new Set(["commit", "set", "delete", "append", "deleteLog"]);

export function faultyStorage(inner: StorageDriver): FaultyStorage {
  let allowed = Number.POSITIVE_INFINITY;
  let transient = 0;
  let recordPattern: ((value: string) => boolean) | undefined;
  let refused = 0;
  const fail = (): Promise<never> => {
    refused++;
    const cause = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    return Promise.reject(new StorageUnavailableError("[agent-serve] [storage] the store cannot take writes (ENOSPC)", { cause }));
  };
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function" || !WRITES.has(String(property))) return value;
      return (...args: unknown[]) => {
        if (transient > 0) {
          transient--;
          return fail();
        }
        if (allowed <= 0) return fail();
        if (property === "set" && recordPattern?.(String(args[1]))) return fail();
        if (property === "commit" && recordPattern && committedValues(args[0]).some(recordPattern)) return fail();
        allowed--;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    driver,
    failWritesAfter(n) {
      allowed = n;
    },
    failNextWrites(n) {
      transient = n;
    },
    failRecordsMatching(pattern) {
      recordPattern = pattern;
    },
    recover() {
      allowed = Number.POSITIVE_INFINITY;
      transient = 0;
      recordPattern = undefined;
    },
    get refused() {
      return refused;
    },
  };
}

function committedValues(batch: unknown): string[] {
  const records = (batch as { records?: Array<{ value: string | null }> } | undefined)?.records ?? [];
  return records.flatMap((write) => (write.value === null ? [] : [write.value]));
}
