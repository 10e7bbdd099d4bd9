import { describe, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { allEvents, describeHost, eventually, helloOptions, postJson, project, quietLogger, type HostUnderTest } from "./_harness.ts";

const base = "/hello";

async function create(target: HostUnderTest, message: string) {
  const response = await target.fetch(`${base}/v1/session`, postJson({ message }));
  expect(response.status).toBe(200);
  return (await response.json()) as { sessionId: string; continuationToken: string };
}

async function waitFor(target: HostUnderTest, sessionId: string, type: string, count = 1) {
  return eventually(async () => {
    const events = await allEvents(target, base, sessionId);
    return events.filter((e) => e.type === type).length >= count ? events : undefined;
  }, 8000, `${count} ${type}`);
}

describeHost("admission: preempt", () => helloOptions(), (target) => {
  it("interrupts the running turn, waits for it to settle, then runs the new message", async () => {
    const { sessionId, continuationToken } = await create(target(), "/sleep 5000\nslow");
    await waitFor(target(), sessionId, "step.started");
    const response = await target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "fast" }));
    expect(response.status).toBe(200);
    const events = await waitFor(target(), sessionId, "session.waiting");
    const [firstTurn, secondTurn] = events.filter((e) => e.type === "turn.started").map((e) => e.turnId);
    const failed = events.find((e) => e.type === "turn.failed")!;
    expect(failed.turnId).toBe(firstTurn);
    expect(failed.data).toEqual({ message: "turn interrupted" });
    const received = events.filter((e) => e.type === "message.received");
    // The new message is accepted only after the interrupted turn settled, and no waiting in between.
    expect(received[1]!.index).toBeGreaterThan(failed.index);
    expect(events.filter((e) => e.type === "session.waiting")).toHaveLength(1);
    expect(events.find((e) => e.type === "message.completed" && e.turnId === secondTurn)!.data["text"]).toBe("echo: fast");
  });

  it("answers 409 session_busy to a follow-up racing another preemption", async () => {
    const { sessionId, continuationToken } = await create(target(), "/sleep 5000\nslow");
    await waitFor(target(), sessionId, "step.started");
    const responses = await Promise.all(
      ["x", "y", "z"].map((message) => target().fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: `/sleep 100\n${message}` }))),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    const refused = (await Promise.all(responses.filter((r) => r.status === 409).map((r) => r.json()))) as Array<{ error: string }>;
    // In-process the three land while the first preemption is in progress: all see session_busy.
    // Over HTTP a late one may arrive after it finished, when its token is already stale.
    const allowed = target().kind === "in-process" ? ["session_busy"] : ["session_busy", "stale_continuation_token"];
    expect(refused.every((body) => allowed.includes(body.error))).toBe(true);
    if (target().kind === "in-process") expect(refused.map((body) => body.error)).toEqual(["session_busy", "session_busy"]);
    const events = await waitFor(target(), sessionId, "session.waiting");
    expect(events.filter((e) => e.type === "message.received")).toHaveLength(2);
    expect(events.filter((e) => e.type === "turn.completed")).toHaveLength(1);
  });
});

describe("admission: coalesce", () => {
  it("queues follow-ups while a turn runs and drains them into one turn", async () => {
    // dev: the loopback test caller may read sessions the channel principal owns.
    const host = createHost(helloOptions({ dev: true }));
    try {
      // Long enough that both follow-ups land while it runs, on a loaded machine too.
      const first = await host.send("/sleep 2000\nfirst", { channel: "chat", continuationToken: "thread-1" });
      expect(first.created).toBe(true);
      expect(first.continuationToken).toBe("thread-1");
      const second = await host.send("second", { channel: "chat", continuationToken: "thread-1", admission: "coalesce" });
      const third = await host.send("third", { channel: "chat", continuationToken: "thread-1", admission: "coalesce" });
      expect(second).toEqual({ sessionId: first.sessionId, continuationToken: "thread-1", created: false });
      expect(third.sessionId).toBe(first.sessionId);
      const target: HostUnderTest = { kind: "in-process", host, fetch: (path, init) => host.request(path, init) };
      const events = await waitFor(target, first.sessionId, "session.waiting");
      expect(events.filter((e) => e.type === "turn.started")).toHaveLength(2);
      const completed = events.filter((e) => e.type === "message.completed").map((e) => e.data["text"]);
      expect(completed).toEqual(["echo: first", "echo: second\nthird"]);
      const received = events.filter((e) => e.type === "message.received");
      expect(received[1]!.turnId).toBe(received[2]!.turnId);
      expect(events.filter((e) => e.type === "turn.failed")).toHaveLength(0);
    } finally {
      await host.close();
    }
  });

  it("stop closes pending coalesced messages without running them", async () => {
    const host = createHost(helloOptions({ dev: true }));
    const target: HostUnderTest = { kind: "in-process", host, fetch: (path, init) => host.request(path, init) };
    try {
      // Stop needs the owner (as a follow-up does): the session belongs to the loopback caller.
      const auth = { authenticator: "localDevStrict", principalId: "local", principalType: "local" } as const;
      const first = await host.send("/sleep 5000\nfirst", { channel: "chat", continuationToken: "t", auth });
      await waitFor(target, first.sessionId, "step.started");
      await host.send("later", { channel: "chat", continuationToken: "t", admission: "coalesce", auth });
      const stop = await host.request(`${base}/v1/session/${first.sessionId}/stop`, { method: "POST" });
      expect(await stop.json()).toEqual({ ok: true, stopped: true });
      const events = await waitFor(target, first.sessionId, "session.waiting");
      const received = events.filter((e) => e.type === "message.received");
      expect(received.map((e) => e.data["text"])).toEqual(["/sleep 5000\nfirst", "later"]);
      const failed = events.filter((e) => e.type === "turn.failed");
      expect(failed.map((e) => e.turnId).sort()).toEqual(received.map((e) => e.turnId).sort());
      expect(failed.every((e) => e.data["message"] === "turn interrupted")).toBe(true);
      expect(events.filter((e) => e.type === "turn.started")).toHaveLength(1);
      expect(events.at(-1)!.type).toBe("session.waiting");
    } finally {
      await host.close();
    }
  });
});

/** A host whose agent runs at most one turn at a time. */
function cappedHost() {
  const host = createHost({
    agents: [{ slug: "hello", project: project({ agent: { concurrency: { maxRunningTurns: 1 } } }), storage: createMemoryStorage() }],
    logger: quietLogger,
    drainTimeoutMs: 50,
  });
  const target: HostUnderTest = { kind: "in-process", host, fetch: (path, init) => host.request(path, init) };
  return { host, target };
}

describe("admission: maxRunningTurns", () => {
  it("queues turns FIFO past the cap with turn.queued positions and queued in the list", async () => {
    const { host, target } = cappedHost();
    try {
      // a runs on while b and c queue behind it and the list is read, on a loaded machine too.
      const a = await create(target, "/sleep 2000\na");
      const b = await create(target, "/sleep 50\nb");
      const c = await create(target, "c");
      const list = (await (await host.request(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; queued: boolean; status: string }> };
      const byId = new Map(list.sessions.map((s) => [s.sessionId, s]));
      expect(byId.get(a.sessionId)).toMatchObject({ queued: false, status: "running" });
      expect(byId.get(b.sessionId)).toMatchObject({ queued: true, status: "queued" });
      expect(byId.get(c.sessionId)).toMatchObject({ queued: true, status: "queued" });

      const eventsB = await waitFor(target, b.sessionId, "session.waiting");
      const eventsC = await waitFor(target, c.sessionId, "session.waiting");
      const eventsA = await waitFor(target, a.sessionId, "session.waiting");
      expect(eventsA.some((e) => e.type === "turn.queued")).toBe(false);
      expect(eventsB.find((e) => e.type === "turn.queued")!.data).toEqual({ position: 1 });
      expect(eventsC.find((e) => e.type === "turn.queued")!.data).toEqual({ position: 2 });
      const started = (events: typeof eventsA) => Date.parse(events.find((e) => e.type === "turn.started")!.at);
      const ended = (events: typeof eventsA) => Date.parse(events.find((e) => e.type === "turn.completed")!.at);
      expect(started(eventsB)).toBeGreaterThanOrEqual(ended(eventsA));
      expect(started(eventsC)).toBeGreaterThanOrEqual(ended(eventsB));
    } finally {
      await host.close();
    }
  });

  it("a preempted queued turn leaves the queue with turn interrupted", async () => {
    const { host, target } = cappedHost();
    try {
      // a runs on until b has been queued and stopped, on a loaded machine too.
      const a = await create(target, "/sleep 2000\na");
      const b = await create(target, "b1");
      await waitFor(target, b.sessionId, "turn.queued");
      const stop = await host.request(`${base}/v1/session/${b.sessionId}/stop`, { method: "POST" });
      expect(await stop.json()).toEqual({ ok: true, stopped: true });
      const eventsB = await waitFor(target, b.sessionId, "session.waiting");
      expect(eventsB.map((e) => e.type)).toEqual(["session.started", "message.received", "turn.queued", "turn.failed", "session.waiting"]);
      await waitFor(target, a.sessionId, "session.waiting");
    } finally {
      await host.close();
    }
  });
});
