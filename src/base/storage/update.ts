/**
 * Atomic record update over the port's compare-and-set commit (docs/design/storage.md).
 * @module
 */
import { RecordConflictError, type RecordWrite, type StorageDriver } from "./types.ts";

/** Attempts before an update that keeps losing races gives up with the last conflict. */
const MAX_ATTEMPTS = 50;

/**
 * Reads `key`, applies `mutate` and writes the result only if nobody changed the key meanwhile
 * (in any process sharing the store); retries from a fresh read otherwise. `mutate` returns the
 * new value, `null` to delete the key, or `undefined` to leave it unchanged. `extra` writes (and
 * `mutate`'s result) go in the same commit. Resolves with the stored value afterwards.
 */
export async function updateRecord(
  storage: StorageDriver,
  key: string,
  mutate: (current: string | undefined) => string | null | undefined,
  extra: (next: string | null) => RecordWrite[] = () => [],
): Promise<string | undefined> {
  for (let attempt = 1; ; attempt++) {
    const current = await storage.get(key);
    const next = mutate(current);
    if (next === undefined) return current;
    try {
      await storage.commit({ records: [{ key, value: next, expected: current ?? null }, ...extra(next)] });
      return next ?? undefined;
    } catch (error) {
      if (!RecordConflictError.isError(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}
