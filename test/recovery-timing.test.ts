/**
 * How soon a crashed process's turn is closed by its neighbours' sweep (docs/design/processes.md
 * "Recovery by lease", "How soon"): within the lease ttl plus the fast sweep period of its death,
 * not up to two ttls. The lease ttl here is longer than the fast sweep period, so the two bounds
 * differ, and the crash comes just after a renewal, when the lease lives longest.
 */
import { afterEach, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { FAST_SWEEP_MS } from "../src/engine/sessions/recovery-sweep.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { allEvents, eventually, postJson, project, quietLogger, severable } from "./_harness.ts";
import { sharedStore } from "./_shared-store.ts";

const LEASE_TTL_MS = 4_000;
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
  const dying = severable(shared);
  const a = hostOn(dying.driver);
  const b = hostOn(shared);
  const created = await a.request("/hello/v1/session", postJson({ message: "/sleep 60000\non a" }));
  const { sessionId } = (await created.json()) as { sessionId: string };
  const target = { kind: "in-process" as const, host: b, fetch: (path: string, init?: RequestInit) => b.request(path, init) };
  await eventually(async () => ((await allEvents(target, "/hello", sessionId)).some((e) => e.type === "step.started") ? true : undefined), 5_000, "step.started");
  // Just past the first renewal (every third of the ttl): the lease now outlives the crash by about a ttl.
  await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS / 3 + 200));
  const killedAt = Date.now();
  dying.sever();
  await eventually(async () => ((await allEvents(target, "/hello", sessionId)).some((e) => e.type === "turn.failed") ? true : undefined), 4 * LEASE_TTL_MS, "turn.failed");
  const took = Date.now() - killedAt;
  expect(took).toBeLessThan(LEASE_TTL_MS + FAST_SWEEP_MS);
}, 30_000);
