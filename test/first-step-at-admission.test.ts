/**
 * A turn that starts when its message is accepted records its first step's `step.started` in the
 * message's commit, where this process's agent loop runs it; every step still has exactly one
 * start, in order. Turns that wait for a slot, and cloud sessions (whose runner records its own
 * steps), record it as before (docs/design/speed.md "The first step starts with its message").
 */
import { expect, test } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { CommitBatch, StorageDriver } from "../src/base/storage/types.ts";
import type { ToolDefinition } from "../src/base/definitions/tools.ts";
import { createHost } from "../src/index.ts";
import { eventsWhen, expectContiguous, postJson, project, quietLogger, type HostUnderTest } from "./_harness.ts";

const base = "/hello";

/** The event types of each commit, in the order they were sent. */
function recordingStore(inner: StorageDriver): { driver: StorageDriver; commits: string[][] } {
  const commits: string[][] = [];
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "commit") return value;
      return (batch: CommitBatch) => {
        const types = (batch.appends ?? []).filter((append) => append.log.endsWith("/events")).flatMap((append) => append.lines.map((line) => (JSON.parse(line) as { type: string }).type));
        if (types.length > 0) commits.push(types);
        return target.commit(batch);
      };
    },
  });
  return { driver, commits };
}

const add: ToolDefinition<{ a: number; b: number }> = {
  description: "Adds two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }) => ({ sum: a + b }),
};

function start(agent: Partial<Parameters<typeof project>[0]> = {}): { target: HostUnderTest; commits: string[][] } {
  const store = recordingStore(createMemoryStorage());
  const host = createHost({ agents: [{ slug: "hello", project: project({ tools: { add: add as ToolDefinition }, ...agent }), storage: store.driver }], logger: quietLogger, drainTimeoutMs: 50 });
  return { target: { kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) }, commits: store.commits };
}

async function create(target: HostUnderTest, message: string): Promise<string> {
  const created = await target.fetch(`${base}/v1/session`, postJson({ message }));
  expect(created.status).toBe(200);
  return ((await created.json()) as { sessionId: string }).sessionId;
}

const rests = (events: Array<{ type: string }>) => events.at(-1)?.type === "session.waiting";

test("the create's commit carries the first step's start; each step of a turn with a tool call starts once, in order", async () => {
  const { target, commits } = start();
  try {
    const sessionId = await create(target, '/tool add {"a":2,"b":3}\n/reply done');
    const events = await eventsWhen(target, base, sessionId, rests);
    expectContiguous(events);
    expect(commits[0]).toEqual(["session.started", "message.received", "turn.started", "step.started"]);
    const steps = events.filter((event) => event.type === "step.started").map((event) => (event.data as { stepIndex: number }).stepIndex);
    expect(steps).toEqual([0, 1]);
    const types = events.map((event) => event.type);
    expect(types.indexOf("turn.started")).toBe(types.indexOf("step.started") - 1);
    expect(events.find((event) => event.type === "action.result")?.data).toMatchObject({ toolName: "add", output: { sum: 5 }, isError: false });
    expect(events.filter((event) => event.type === "message.completed").at(-1)?.data).toMatchObject({ text: "done" });
  } finally {
    await target.host.close();
  }
});

test("a turn that waits for a slot records its first step when it starts, in a commit of its own", async () => {
  const { target, commits } = start({ agent: { concurrency: { maxRunningTurns: 1 } } });
  try {
    const first = await create(target, "/sleep 300\n/reply slow");
    // The only slot is taken: this one waits (`turn.queued`) and records its step when it runs.
    const second = await create(target, "/reply queued");
    const waited = await eventsWhen(target, base, second, rests);
    expectContiguous(waited);
    const waitedTypes = waited.map((event) => event.type);
    expect(waitedTypes).toContain("turn.queued");
    expect(waitedTypes.filter((type) => type === "step.started")).toHaveLength(1);
    expect(commits.find((types) => types.includes("turn.queued"))).not.toContain("step.started");
    expect(commits.some((types) => types.length === 1 && types[0] === "step.started")).toBe(true);
    const ran = await eventsWhen(target, base, first, rests);
    expect(ran.filter((event) => event.type === "step.started")).toHaveLength(1);
  } finally {
    await target.host.close();
  }
});

test("a cloud session's message is not committed with a step: its runner records its own", async () => {
  // No runner is configured, so the turn fails before any step; nothing may claim one started.
  const { target, commits } = start({ agent: { runtime: "cloud", cloud: {} } });
  try {
    const sessionId = await create(target, "/reply hi");
    const events = await eventsWhen(target, base, sessionId, rests);
    expect(commits[0]).toEqual(["session.started", "message.received", "turn.started"]);
    expect(events.map((event) => event.type)).not.toContain("step.started");
    expect(events.map((event) => event.type)).toContain("turn.failed");
  } finally {
    await target.host.close();
  }
});
