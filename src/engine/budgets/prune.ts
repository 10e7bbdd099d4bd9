/**
 * Day records of past windows removed (docs/design/budgets.md "Records"): nothing reads a day's
 * record once it is over but an operator looking back, so the records of today and the two days
 * before are kept and older ones go, when a process starts its first turn of a UTC day.
 * @module
 */
import type { StorageDriver } from "../../base/storage/types.ts";
import { utcDay } from "./windows.ts";

/** UTC days of per-day records kept: today's and the ones before it. */
export const KEPT_DAYS = 3;

/** Where the per-day records live (src/base/storage/keys.ts: `principalBudgetKey`, `agentBudgetKey`). */
const DAY_PREFIXES = ["budgets/principals/", "budgets/agent/"];
const DAY = /\/(\d{4}-\d{2}-\d{2})$/;
/** Deletes committed at once, so a long list does not make one huge batch. */
const BATCH = 100;

/** Removes the per-day records of days before the kept ones; resolves with how many went. */
export async function pruneDays(storage: StorageDriver, at: number): Promise<number> {
  const oldestKept = utcDay(at - (KEPT_DAYS - 1) * 24 * 60 * 60 * 1000);
  const keys = (await Promise.all(DAY_PREFIXES.map((prefix) => storage.list(prefix)))).flat();
  const old = keys.filter((key) => {
    const day = DAY.exec(key)?.[1];
    return day !== undefined && day < oldestKept;
  });
  for (let n = 0; n < old.length; n += BATCH) {
    await storage.commit({ records: old.slice(n, n + BATCH).map((key) => ({ key, value: null })) });
  }
  return old.length;
}
