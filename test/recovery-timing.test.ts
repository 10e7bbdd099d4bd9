/**
 * How soon a crashed process's turn is closed by its neighbours' sweep (docs/design/processes.md
 * "Recovery by lease", "How soon"): within the lease ttl plus the fast sweep period of its death,
 * not up to two ttls. The lease ttl here is longer than the fast sweep period, so the two bounds
 * differ, and the crash comes just after a renewal has landed, when the lease lives longest.
 */
import { afterEach, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { FAST_SWEEP_MS } from "../src/engine/sessions/recovery-sweep.ts";
import { turnLeaseKey } from "../src/base/storage/keys.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { allEvents, eventually, postJson, project, quietLogger, severable } from "./_harness.ts";
import { sharedStore } from "./_shared-store.ts";

const LEASE_TTL_MS = 4_000;
/** Timers and the sweep's own reads run late on a loaded machine: 7 s, still under two ttls. */
const SCHEDULING_SLACK_MS = 1_000;
const open: AgentHost[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((host) => host.close()));
});

function hostOn(storage: StorageDriver): AgentHost {
  const host = createHost({ agents: [{ slug: "hello", project: project(), storage }], logger: quietLogger, drainTimeoutMs: 50, dev: true, leaseTtlMs: LEASE_TTL_MS });
  open.push(host);
  return host;
}

it("closes a crashed host's turn within the lease ttl plus the fast sweep period", async () => {
  const shared = sharedStore(createMemoryStorage());
  // The crash comes right after the turn lease's second renewal has landed (its third take, about
  // 2.7 s in): the lease then outlives the crash by a full ttl and expires at about 6.7 s, just
  // after a neighbour that swept only every ttl would have looked (2 s, 6 s, 10 s): that one would
  // close the turn some 7.3 s after the crash, sweeping every 2 s closes it about 5.3 s after.
  let takes = 0;
  let crashed: (at: number) => void = () => {};
  const killed = new Promise<number>((resolve) => (crashed = resolve));
  const watched = new Proxy(shared, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "acquireLease" || typeof value !== "function") return value;
      return async (key: string, owner: string, ttlMs: number) => {
        const taken = await (value as StorageDriver["acquireLease"]).call(target, key, owner, ttlMs);
        if (taken && key.startsWith(turnLeaseKey("")) && ++takes === 3) {
          dying.sever();
          crashed(Date.now());
        }
        return taken;
      };
    },
  });
  const dying = severable(watched);
  const a = hostOn(dying.driver);
  const b = hostOn(shared);
  const created = await a.request("/hello/v1/session", postJson({ message: "/sleep 60000\non a" }));
  const { sessionId } = (await created.json()) as { sessionId: string };
  const target = { kind: "in-process" as const, host: b, fetch: (path: string, init?: RequestInit) => b.request(path, init) };
  await eventually(async () => ((await allEvents(target, "/hello", sessionId)).some((e) => e.type === "step.started") ? true : undefined), 5_000, "step.started");
  const killedAt = await killed;
  await eventually(async () => ((await allEvents(target, "/hello", sessionId)).some((e) => e.type === "turn.failed") ? true : undefined), 4 * LEASE_TTL_MS, "turn.failed");
  const took = Date.now() - killedAt;
  expect(took).toBeLessThan(LEASE_TTL_MS + FAST_SWEEP_MS + SCHEDULING_SLACK_MS);
}, 30_000);
