/**
 * Crash points on the server stores (docs/reliability.md "Durability model"): a small sampled
 * sweep on a real Redis and a real Postgres, in both crash modes, finds no violation; each crash
 * point gets its own key prefix or namespace, so what one point left never shows in another. A
 * machine without the server says so in the test's title instead of failing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { stopServers, storeMissing, storeState } from "../bench/chaos/stores.ts";
import { sweepSeed } from "../bench/chaos/sweep.ts";
import { eventLogName, SESSIONS_PREFIX, sessionRecordKey } from "../src/base/storage/keys.ts";

afterAll(() => stopServers(), 30_000);

// The two stores run side by side: most of a point's time is waiting (a lease a crash orphaned
// expires before a host that shares its store may close the turn), not CPU.
describe.concurrent("chaos: crash points on the server stores", () => {
  for (const store of ["redis", "postgres"] as const) {
    const missing = storeMissing(store);
    describe.skipIf(missing !== undefined)(`chaos: crash points on ${store}${missing ? ` (skipped: ${missing})` : ""}`, () => {
      it("a sampled sweep in both crash modes finds no violation", async () => {
        const totals = await sweepSeed(store, 1, { points: 3, modes: ["lost", "landed"] });
        expect(totals.failures).toEqual([]);
        expect(totals.points).toBe(6);
        // The points had something to check: acknowledged messages and turns the recovery closed.
        expect(totals.checked).toBeGreaterThan(6);
        expect(totals.restartedTurns).toBeGreaterThan(0);
      }, 90_000);

      it("a crash point's state is reopened whole by a new driver, and no other point sees it", async () => {
        const state = await storeState(store);
        const first = state.open();
        await first.commit({ records: [{ key: sessionRecordKey("s1"), value: "{}" }], appends: [{ log: eventLogName("s1"), lines: ["a", "b"] }] });
        await first.close();
        const reopened = state.open();
        const other = (await storeState(store)).open();
        try {
          expect(await reopened.get(sessionRecordKey("s1"))).toBe("{}");
          expect(await reopened.length(eventLogName("s1"))).toBe(2);
          expect(await other.list(SESSIONS_PREFIX)).toEqual([]);
          expect(await other.hasLog(eventLogName("s1"))).toBe(false);
        } finally {
          await Promise.all([reopened.close(), other.close()]);
          state.dispose();
        }
      }, 60_000);
    });
  }
});
