import { afterEach, describe, expect, it } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { ExperimentService } from "../src/features/experiments/service.ts";
import type { ExperimentDefinition } from "../src/base/definitions/experiments.ts";
import { createHost } from "../src/host/host.ts";
import { createScriptedModel } from "../src/engine/model/scripted.ts";
import type { ModelResolver } from "../src/base/ports/model.ts";
import { EventLog } from "../src/engine/sessions/event-log.ts";
import type { EventDraft } from "../src/base/events/vocabulary.ts";
import { SessionStore } from "../src/engine/sessions/session-store.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { type HostUnderTest, type TestEvent, allEvents, describeHost, eventually, postJson, project, quietLogger } from "./_harness.ts";

const base = "/hello";
/** The principal the default chain gives direct loopback callers. */
const LOCAL = { authenticator: "localDevStrict", principalId: "local", principalType: "local" } as const;
const AGENT_INSTRUCTIONS = "You are the agent's own prompt.";

/** What each model call saw: the resolved model id, its params and the system prompt. */
interface Seen {
  model: string;
  params: Record<string, string>;
  system: string;
}

/** A resolver that hands out the scripted model under any id and records every request. */
function recordingResolver(seen: Seen[]): ModelResolver {
  const scripted = createScriptedModel();
  return (spec) => ({
    id: spec.id,
    stream(request) {
      seen.push({ model: spec.id, params: request.params, system: request.system });
      return scripted.stream(request);
    },
  });
}

function options(experiments: ExperimentDefinition[], seen: Seen[], storage: StorageDriver = createMemoryStorage()): AgentHostOptions {
  return {
    agents: [
      {
        slug: "hello",
        project: project({ instructions: AGENT_INSTRUCTIONS, agent: { model: { id: "scripted", params: [{ id: "effort", value: "high" }] }, experiments } }),
        storage,
      },
    ],
    models: { resolve: recordingResolver(seen) },
    logger: quietLogger,
    drainTimeoutMs: 50,
  };
}

/** `tone` pins every new session to arm `a`; `b` is paused (weight 0). */
const pinned = (weights: [number, number] = [1, 0]): ExperimentDefinition[] => [
  {
    id: "tone",
    arms: [
      { id: "a", weight: weights[0], model: { id: "openai/arm-a", params: [{ id: "effort", value: "low" }] }, params: [{ id: "fast", value: "true" }], instructions: "ARM A prompt" },
      { id: "b", weight: weights[1], instructions: "ARM B prompt" },
    ],
  },
];

interface Created {
  sessionId: string;
  continuationToken: string;
}

async function create(target: HostUnderTest, message: string): Promise<Created> {
  const response = await target.fetch(`${base}/v1/session`, postJson({ message }));
  expect(response.status).toBe(200);
  return (await response.json()) as Created;
}

async function followUp(target: HostUnderTest, session: Created, message: string): Promise<Created> {
  const response = await target.fetch(`${base}/v1/session/${session.sessionId}`, postJson({ continuationToken: session.continuationToken, message }));
  expect(response.status).toBe(200);
  return (await response.json()) as Created;
}

async function waitIdle(target: HostUnderTest, sessionId: string, turns: number): Promise<TestEvent[]> {
  return eventually(async () => {
    const events = await allEvents(target, base, sessionId);
    return events.filter((e) => e.type === "session.waiting").length >= turns ? events : undefined;
  }, 5000, `${turns} session.waiting events`);
}

interface AbsBody {
  experiments: Array<{ id: string; arms: Array<Record<string, number | string>> }>;
  assignments: Array<{ sessionId: string; experimentId: string; armId: string }>;
  config: { maxPlaygroundSessions: number; durableSamples: boolean; durableSnapshots: boolean };
}

async function abs(target: HostUnderTest): Promise<AbsBody> {
  const response = await target.fetch(`${base}/v1/abs`);
  expect(response.status).toBe(200);
  return (await response.json()) as AbsBody;
}

const usageOf = (events: TestEvent[]) =>
  events
    .filter((e) => e.type === "turn.completed")
    .map((e) => e.data["usage"] as { inputTokens: number; outputTokens: number })
    .reduce((sum, u) => ({ inputTokens: sum.inputTokens + u.inputTokens, outputTokens: sum.outputTokens + u.outputTokens }), { inputTokens: 0, outputTokens: 0 });

let seen: Seen[] = [];

describeHost("A/B experiments", () => {
  seen = [];
  return options(pinned(), seen);
}, (target) => {
  it("weights 1:0 always pick the first arm, recorded as ab.assigned right after session.started", async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, (_, i) => create(target(), `hi ${i}`)));
    for (const { sessionId } of sessions) {
      const events = await waitIdle(target(), sessionId, 1);
      expect(events.slice(0, 2).map((e) => e.type)).toEqual(["session.started", "ab.assigned"]);
      expect(events[1]!.data).toEqual({ experimentId: "tone", armId: "a" });
      expect(events.filter((e) => e.type === "ab.assigned")).toHaveLength(1);
    }
    const body = await abs(target());
    expect(body.assignments.filter((a) => a.armId === "a").map((a) => a.sessionId).sort()).toEqual(sessions.map((s) => s.sessionId).sort());
    expect(body.assignments.some((a) => a.armId === "b")).toBe(false);
  });

  it("the arm's model, merged params and instructions reach the model on every turn of the session", async () => {
    let session = await create(target(), "one");
    await waitIdle(target(), session.sessionId, 1);
    session = await followUp(target(), session, "two");
    await waitIdle(target(), session.sessionId, 2);
    session = await followUp(target(), session, "three");
    const events = await waitIdle(target(), session.sessionId, 3);
    expect(seen).toHaveLength(3);
    for (const request of seen) {
      expect(request).toEqual({ model: "openai/arm-a", params: { effort: "low", fast: "true" }, system: "ARM A prompt" });
    }
    // The turn records the arm's model, so cost reports price the model that actually ran.
    expect(events.filter((e) => e.type === "turn.completed").map((e) => e.data["model"])).toEqual(["openai/arm-a", "openai/arm-a", "openai/arm-a"]);
    expect(events.filter((e) => e.type === "ab.assigned")).toHaveLength(1);
  });

  it("eval traffic is not enrolled and runs on the agent's own model and instructions", async () => {
    const evalRun = await target().host.send("graded", { purpose: "eval", auth: LOCAL });
    const plain = await target().host.send("plain", { auth: LOCAL });
    const evalEvents = await waitIdle(target(), evalRun.sessionId, 1);
    const plainEvents = await waitIdle(target(), plain.sessionId, 1);
    expect(evalEvents.some((e) => e.type === "ab.assigned")).toBe(false);
    expect(plainEvents[1]).toMatchObject({ type: "ab.assigned", data: { experimentId: "tone", armId: "a" } });
    expect(seen).toContainEqual({ model: "scripted", params: { effort: "high" }, system: AGENT_INSTRUCTIONS });
    expect(seen).toContainEqual({ model: "openai/arm-a", params: { effort: "low", fast: "true" }, system: "ARM A prompt" });
    const body = await abs(target());
    expect(body.assignments.map((a) => a.sessionId)).toEqual([plain.sessionId]);
    expect(body.experiments[0]!.arms[0]).toMatchObject({ id: "a", sessions: 1, turns: 1 });
  });

  it("lists only the caller's own sessions but totals every enrolled session", async () => {
    const mine = await create(target(), "mine");
    // Owned by the channel's service principal, not by the loopback caller.
    const theirs = await target().host.send("theirs");
    await waitIdle(target(), mine.sessionId, 1);
    await eventually(async () => ((await abs(target())).experiments[0]!.arms[0]!["completedTurns"] === 2 ? true : undefined), 5000, "both turns");
    const body = await abs(target());
    expect(body.assignments.map((a) => a.sessionId)).toEqual([mine.sessionId]);
    expect(body.assignments.some((a) => a.sessionId === theirs.sessionId)).toBe(false);
    expect(body.experiments[0]!.arms[0]).toMatchObject({ id: "a", sessions: 2, turns: 2, completedTurns: 2 });
  });

  it("GET /v1/abs folds arm totals from the turns, with the config", async () => {
    let first = await create(target(), "hello there");
    await waitIdle(target(), first.sessionId, 1);
    first = await followUp(target(), first, "/fail model exploded");
    await waitIdle(target(), first.sessionId, 2);
    const second = await create(target(), "/reply short");
    await waitIdle(target(), second.sessionId, 1);

    const usage = usageOf([...(await allEvents(target(), base, first.sessionId)), ...(await allEvents(target(), base, second.sessionId))]);
    expect(usage.inputTokens).toBeGreaterThan(0);
    const body = await abs(target());
    expect(body.config).toEqual({ maxPlaygroundSessions: 200, durableSamples: true, durableSnapshots: false });
    expect(body.experiments).toEqual([
      {
        id: "tone",
        arms: [
          { id: "a", weight: 1, sessions: 2, turns: 3, completedTurns: 2, failedTurns: 1, ...usage },
          { id: "b", weight: 0, sessions: 0, turns: 0, completedTurns: 0, failedTurns: 0, inputTokens: 0, outputTokens: 0 },
        ],
      },
    ]);
    // Newest first.
    expect(body.assignments).toEqual([
      { sessionId: second.sessionId, experimentId: "tone", armId: "a" },
      { sessionId: first.sessionId, experimentId: "tone", armId: "a" },
    ]);
  });

  it("GET /v1/info lists the declared experiments", async () => {
    const response = await target().fetch(`${base}/v1/info`);
    const info = (await response.json()) as { abs: unknown };
    expect(info.abs).toEqual([
      {
        id: "tone",
        arms: [
          { id: "a", weight: 1, model: { id: "openai/arm-a", params: { effort: "low" } }, params: { fast: "true" }, replacesInstructions: true },
          { id: "b", weight: 0, model: null, params: {}, replacesInstructions: true },
        ],
      },
    ]);
  });
});

describeHost("A/B experiments without a declaration", () => {
  seen = [];
  return { ...options([], seen) };
}, (target) => {
  it("enrolls nobody and reports empty totals", async () => {
    const session = await create(target(), "hi");
    const events = await waitIdle(target(), session.sessionId, 1);
    expect(events.some((e) => e.type === "ab.assigned")).toBe(false);
    expect(seen[0]).toEqual({ model: "scripted", params: { effort: "high" }, system: AGENT_INSTRUCTIONS });
    expect(await abs(target())).toEqual({
      experiments: [],
      assignments: [],
      config: { maxPlaygroundSessions: 200, durableSamples: true, durableSnapshots: false },
    });
  });
});

// --- across restarts: two hosts over one storage, each behind a real loopback server ---

const running: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  for (const { host, server } of running.splice(0)) {
    await host.close();
    await server.close(true);
  }
});

async function startServer(hostOptions: AgentHostOptions): Promise<HostUnderTest> {
  const host = createHost(hostOptions);
  const server = await serveNode(host, { port: 0, silent: true });
  running.push({ host, server });
  return { kind: "http", host, fetch: (path, { ip: _ip, ...init } = {}) => fetch(`${server.url}${path}`, init) };
}

it("assignment is sticky across a restart even after its arm is paused, and totals rebuild from storage", async () => {
  // The storage outlives the first host: closing a host closes its storage, so wrap close.
  const storage = createMemoryStorage();
  const shared: StorageDriver = { ...storage, close: async () => {} };
  const firstSeen: Seen[] = [];
  const first = await startServer(options(pinned([1, 0]), firstSeen, shared));
  const session = await create(first, "before restart");
  await waitIdle(first, session.sessionId, 1);
  const before = await abs(first);
  const { host, server } = running.pop()!;
  await host.close();
  await server.close(true);

  // The new config pauses arm a and sends new sessions to b.
  const laterSeen: Seen[] = [];
  const second = await startServer(options(pinned([0, 1]), laterSeen, shared));
  // Totals of the old session are rebuilt from its stored events before any new turn.
  expect((await abs(second)).experiments[0]!.arms[0]).toEqual({ ...before.experiments[0]!.arms[0], weight: 0 });
  await followUp(second, session, "after restart");
  await waitIdle(second, session.sessionId, 2);
  const fresh = await create(second, "new session");
  const freshEvents = await waitIdle(second, fresh.sessionId, 1);
  expect(freshEvents[1]!.data).toEqual({ experimentId: "tone", armId: "b" });
  expect(laterSeen.map((s) => s.system)).toEqual(["ARM A prompt", "ARM B prompt"]);

  const after = await abs(second);
  const [armA, armB] = after.experiments[0]!.arms;
  expect(armA).toMatchObject({ id: "a", weight: 0, sessions: 1, turns: 2, completedTurns: 2, failedTurns: 0 });
  expect(armA!["inputTokens"]).toBe(usageOf(await allEvents(second, base, session.sessionId)).inputTokens);
  expect(armB).toMatchObject({ id: "b", weight: 1, sessions: 1, turns: 1, completedTurns: 1 });
  await storage.close();
});

// --- the lazy rebuild racing live events (core level, over the storage port) ---

describe("A/B totals rebuilt while turns keep landing", () => {
  /**
   * A driver whose log reads wait for `release()`. With `snapshot`, a read captures the log before
   * waiting (events appended meanwhile are not in it); without, it reads after the wait (they are).
   */
  function gatedReads(inner: StorageDriver, snapshot: boolean): { driver: StorageDriver; started: Promise<void>; release(): void } {
    let release!: () => void;
    let markStarted!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const driver: StorageDriver = {
      ...inner,
      read(log, from, to) {
        return (async function* () {
          markStarted();
          const batches: string[][] = [];
          if (snapshot) for await (const batch of inner.read(log, from, to)) batches.push(batch);
          await gate;
          if (!snapshot) for await (const batch of inner.read(log, from, to)) batches.push(batch);
          yield* batches;
        })();
      },
    };
    return { driver, started, release };
  }

  const turn = (turnId: string, outcome: "turn.completed" | "turn.failed", tokens = 0): EventDraft[] => [
    { type: "turn.started", turnId, data: {} },
    outcome === "turn.completed"
      ? { type: outcome, turnId, data: { usage: { inputTokens: tokens, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } } }
      : { type: outcome, turnId, data: { message: "boom" } },
  ];

  for (const snapshot of [true, false]) {
    it(`counts each turn once (${snapshot ? "events land after the read" : "events land before the read"})`, async () => {
      const storage = createMemoryStorage();
      const now = Date.now;
      // An earlier process enrolled the session and ran one turn.
      const earlier = new EventLog(storage, now);
      const store = new SessionStore(storage, now);
      const at = new Date().toISOString();
      await store.put({
        sessionId: "ses_rebuild",
        channel: "http",
        mode: "chat",
        owner: LOCAL,
        continuationToken: "http:x",
        status: "idle",
        turnCount: 1,
        createdAt: at,
        updatedAt: at,
        ab: [{ experimentId: "tone", armId: "a" }],
      });
      await earlier.append("ses_rebuild", [{ type: "session.started", data: {} } as EventDraft, ...turn("turn_1", "turn.completed", 10)]);

      const gated = gatedReads(storage, snapshot);
      const log = new EventLog(gated.driver, now);
      const service = new ExperimentService({ definitions: pinned(), log, store: new SessionStore(gated.driver, now) });
      const report = service.report();
      await gated.started;
      // This process runs two more turns while the stored log is being read.
      await log.append("ses_rebuild", [...turn("turn_2", "turn.completed", 100), ...turn("turn_3", "turn.failed")]);
      gated.release();
      const arm = (await report).experiments[0]!.arms[0];
      expect(arm).toEqual({ id: "a", weight: 1, sessions: 1, turns: 3, completedTurns: 2, failedTurns: 1, inputTokens: 110, outputTokens: 2 });

      // Later turns are counted live, without another read.
      await log.append("ses_rebuild", turn("turn_4", "turn.completed", 1000));
      expect((await service.report()).experiments[0]!.arms[0]).toMatchObject({ turns: 4, completedTurns: 3, inputTokens: 1110 });
    });
  }
});
