/**
 * A one-shot reminder that comes due while its session's turn lease is held by a process that
 * died between taking the lease and recording the turn (docs/design/timed-work.md "Reminders"):
 * its delivery is refused with `session_busy` at first, retried, and lands exactly once when the
 * orphaned lease expires, instead of being dropped. Found by the chaos harness
 * (docs/reliability.md).
 */
import { expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import { noTimers } from "../src/base/ports/timers.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { turnLeaseKey } from "../src/base/storage/keys.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { createScriptedModel } from "../src/testing.ts";
import { eventually, quietLogger } from "./_harness.ts";

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function events(host: ReturnType<typeof createHost>, sessionId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const response = await host.request(`/r/v1/session/${sessionId}/events`);
  return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

it("a reminder due while an orphaned turn lease holds its session is delivered once the lease expires", async () => {
  const storage = createMemoryStorage();
  const clock = { now: Date.parse("2026-03-02T09:00:30.000Z") };
  const model = createScriptedModel();
  const project = { name: "R", agent: { builtinTools: { reminders: true } }, instructions: "Be brief.", diagnostics: [] } as unknown as ProjectDefinition;
  const host = createHost({ agents: [{ slug: "r", project, storage }], models: { resolve: () => model }, logger: quietLogger, drainTimeoutMs: 50, timers: noTimers, now: () => clock.now });
  try {
    const created = await host.request("/r/v1/session", post({ message: `/tool reminders_create {"purpose":"later","prompt":"/reply hello later","delay":"30s"}\nok` }));
    expect(created.status).toBe(200);
    const { sessionId } = (await created.json()) as { sessionId: string };
    await eventually(async () => ((await events(host, sessionId)).some((e) => e.type === "session.waiting") ? true : undefined), 10_000, "the first turn");

    // A process that took the session's turn lease and died before recording its turn.
    expect(await storage.acquireLease(turnLeaseKey(sessionId), "dead-process", 1_500)).toBe(true);
    clock.now += 60_000;
    const [report] = await host.tick();
    expect(report!.reminders).toHaveLength(1);
    // Refused while the lease lives: not delivered yet.
    expect((await events(host, sessionId)).filter((e) => e.type === "message.received")).toHaveLength(1);

    const delivered = await eventually(async () => {
      const received = (await events(host, sessionId)).filter((e) => e.type === "message.received" && e.data["text"] === "/reply hello later");
      return received.length > 0 ? received : undefined;
    }, 15_000, "the reminder's delivery");
    expect(delivered).toHaveLength(1);
    await eventually(async () => ((await events(host, sessionId)).at(-1)?.type === "session.waiting" ? true : undefined), 10_000, "the reminder's turn");
    expect((await events(host, sessionId)).filter((e) => e.type === "message.received" && e.data["text"] === "/reply hello later")).toHaveLength(1);
  } finally {
    await host.close();
  }
}, 40_000);
