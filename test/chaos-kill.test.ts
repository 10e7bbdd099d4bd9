/**
 * Real process deaths, small (docs/reliability.md "Real process deaths"): `agent-serve serve` is
 * SIGKILLed a few times mid-workload on sqlite, Redis and Postgres under Node, and on sqlite under
 * Bun and Deno, restarted on the same state each time, and the oracles find nothing lost, repeated
 * or stuck. The documented run is `npm run chaos -- --kill --deaths=2000 --record`. A store or
 * runtime missing on the machine is skipped, and the title says so.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type KillRun, runLane } from "../bench/chaos/kill-lane.ts";
import { type KillRuntime, type KillStore, runtimeMissing, startStore, storeMissing, type StoreTarget } from "../bench/chaos/kill-targets.ts";

const started = new Map<KillStore, Promise<StoreTarget>>();
const target = (store: KillStore): Promise<StoreTarget> => {
  if (!started.has(store)) started.set(store, startStore(store));
  return started.get(store)!;
};
afterAll(async () => {
  await Promise.all([...started.values()].map(async (store) => (await store).close()));
});

const cases: Array<{ store: KillStore; runtime: KillRuntime; deaths: number }> = [
  { store: "sqlite", runtime: "node", deaths: 3 },
  { store: "redis", runtime: "node", deaths: 3 },
  { store: "postgres", runtime: "node", deaths: 3 },
  { store: "sqlite", runtime: "bun", deaths: 2 },
  { store: "sqlite", runtime: "deno", deaths: 2 },
];

describe("chaos: real serve processes SIGKILLed and restarted", () => {
  for (const { store, runtime, deaths } of cases) {
    const missing = storeMissing(store) ?? runtimeMissing(runtime);
    it.skipIf(missing !== undefined)(`${deaths} deaths on ${store} under ${runtime}: nothing lost, repeated or stuck${missing ? ` (skipped: ${missing})` : ""}`, async () => {
      const run: KillRun = await runLane({ store: await target(store), runtime, seed: 3, deaths });
      expect(run.violations).toEqual([]);
      expect(run.deaths).toBe(deaths);
      // The run had something to check: sessions the processes acknowledged before they died.
      expect(run.sessions).toBeGreaterThan(0);
      expect(run.acknowledgedMessages).toBeGreaterThanOrEqual(run.sessions);
      // Sessions created over HTTP are followed live; those an A2A task starts are not.
      expect(run.followerStreams).toBeGreaterThan(0);
      expect(run.followerStreams).toBeLessThanOrEqual(run.sessions);
    }, 90_000);
  }
});
