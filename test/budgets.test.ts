/**
 * Hard budgets (docs/guide/budgets.md) over real loopback servers, the scripted model behind a
 * wrapper that fixes each call's usage: every scope and limit, the turn ending completed with what
 * it produced, `budget.exceeded` (and its webhook), the 429 on the next send, the per-day window's
 * reset, the cost route and `agent-serve cost`, subagents counting toward their turn, and turns
 * of one principal in two hosts on one store racing the same daily limit.
 */
import { rmSync, mkdtempSync } from "node:fs";
import { type AddressInfo } from "node:net";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { loadProject } from "../loader/load-project.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { validateAgentConfig } from "../loader/validate-config.ts";
import type { BudgetsConfig } from "../src/base/definitions/budgets.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { LanguageModelPort, ModelSpec, ModelStepRequest, Usage } from "../src/base/ports/model.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { agentBudgetKey, principalBudgetKey, sessionBudgetKey } from "../src/base/storage/keys.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { resolveBudgets } from "../src/engine/budgets/config.ts";
import { type ScopeRef, admit, settle } from "../src/engine/budgets/ledger.ts";
import { HOLD_TTL_MS, estimateInputTokens } from "../src/engine/budgets/turn-meter.ts";
import { POST, defineChannel } from "../src/entries/channels.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { SessionCostResponse } from "../src/entries/events.ts";
import { createScriptedModel } from "../src/testing.ts";
import { type TestEvent, eventually, postJson, project, quietLogger } from "./_harness.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { sharedStore } from "./_shared-store.ts";
import { toolLine, writeProject } from "./_workspace.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the model boundary saw: calls started, and the most running at once. */
interface ModelTrace {
  calls: Usage[];
  running: number;
  maxRunning: number;
}

/**
 * The scripted model with each call's usage fixed by `usage` (the model boundary is the one place
 * tests substitute).
 */
function fixedUsageModel(id: string, trace: ModelTrace, usage: (request: ModelStepRequest) => Usage, delayMs = 0): LanguageModelPort {
  const inner = createScriptedModel();
  return {
    id,
    async *stream(request: ModelStepRequest) {
      const spent = usage(request);
      trace.calls.push(spent);
      trace.running++;
      trace.maxRunning = Math.max(trace.maxRunning, trace.running);
      try {
        // A provider takes a while to answer: long enough for other turns' calls to overlap.
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        for await (const part of inner.stream(request)) {
          yield part.type === "finish" ? { ...part, usage: spent } : part;
        }
      } finally {
        trace.running--;
      }
    },
  };
}

const usageOf = (inputTokens: number, outputTokens: number): Usage => ({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** A custom channel whose sends run as the customer it names: one principal per customer. */
const desk = defineChannel({
  routes: [
    POST("/tickets", {
      bodySchema: v.object({ text: v.string(), customer: v.string() }),
      handler: async (_request, { body, send }) => ({
        sessionId: (await send(body.text, { auth: { authenticator: "desk", principalId: body.customer, principalType: "user" } })).sessionId,
      }),
    }),
  ],
});

/** A custom channel of threads: whoever posts, a thread is one session, continued by its key. */
const threads = defineChannel({
  routes: [
    POST("/threads", {
      bodySchema: v.object({ text: v.string(), customer: v.string(), thread: v.string() }),
      handler: async (_request, { body, send }) => ({
        sessionId: (
          await send(body.text, {
            auth: { authenticator: "threads", principalId: body.customer, principalType: "user" },
            continuationToken: `thread:${body.thread}`,
          })
        ).sessionId,
      }),
    }),
  ],
});

const tools = {
  note: defineTool({ description: "Takes a note", inputSchema: v.object({ n: v.number() }), execute: (input) => ({ noted: input.n }) }),
  wait: defineTool({
    description: "Waits",
    inputSchema: v.object({ ms: v.number() }),
    execute: (input) => new Promise((resolve) => setTimeout(() => resolve("waited"), input.ms)),
  }),
};

interface Served {
  url: string;
  trace: ModelTrace;
  close(): Promise<void>;
}

const open: Served[] = [];
afterEach(async () => {
  for (const served of open.splice(0)) await served.close();
});
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(options: {
  budgets: BudgetsConfig;
  usage?: (request: ModelStepRequest) => Usage;
  model?: ProjectDefinition["agent"]["model"];
  prices?: ProjectDefinition["agent"]["prices"];
  storage?: StorageDriver;
  now?: () => number;
  trace?: ModelTrace;
  loaded?: ProjectDefinition;
  stateRoot?: string;
  delayMs?: number;
  webhooks?: ProjectDefinition["agent"]["webhooks"];
  channels?: ProjectDefinition["channels"];
}): Promise<Served> {
  const trace = options.trace ?? { calls: [], running: 0, maxRunning: 0 };
  const base = options.loaded ?? project({ tools, ...(options.channels ? { channels: options.channels } : {}) });
  const definition: ProjectDefinition = {
    ...base,
    agent: {
      ...base.agent,
      budgets: options.budgets,
      ...(options.model ? { model: options.model } : {}),
      ...(options.prices ? { prices: options.prices } : {}),
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    },
  };
  const host = createHost({
    agents: [
      {
        slug: "hello",
        project: definition,
        storage: options.storage ?? createMemoryStorage(),
        ...(options.stateRoot ? { runtime: createLocalRuntime({ stateRoot: options.stateRoot }) } : {}),
      },
    ],
    logger: quietLogger,
    drainTimeoutMs: 50,
    ...(options.now ? { now: options.now } : {}),
    models: { resolve: (spec: ModelSpec) => fixedUsageModel(spec.id, trace, options.usage ?? (() => usageOf(60, 40)), options.delayMs) },
  });
  const server: NodeServer = await serveNode(host, { port: 0, silent: true });
  const served = {
    url: `${server.url}/hello`,
    trace,
    async close() {
      await host.close();
      await server.close(true);
    },
  };
  open.push(served);
  return served;
}

async function create(served: Served, message: string): Promise<{ sessionId: string; continuationToken: string }> {
  const response = await fetch(`${served.url}/v1/session`, postJson({ message }));
  expect(response.status).toBe(200);
  return (await response.json()) as { sessionId: string; continuationToken: string };
}

async function events(served: Served, sessionId: string): Promise<TestEvent[]> {
  const response = await fetch(`${served.url}/v1/session/${sessionId}/events`);
  expect(response.status).toBe(200);
  return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
}

/** The session's events once `count` turns have ended and it is idle. */
function settledTurns(served: Served, sessionId: string, count = 1): Promise<TestEvent[]> {
  return eventually(
    async () => {
      const all = await events(served, sessionId);
      const ended = all.filter((e) => e.type === "turn.completed" || e.type === "turn.failed").length;
      return ended >= count && all.at(-1)?.type === "session.waiting" ? all : undefined;
    },
    15_000,
    `session ${sessionId} to settle`,
  );
}

async function cost(served: Served, sessionId: string): Promise<SessionCostResponse> {
  const response = await fetch(`${served.url}/v1/session/${sessionId}/cost`);
  expect(response.status).toBe(200);
  return (await response.json()) as SessionCostResponse;
}

const script = (...lines: string[]): string => lines.join("\n");
const notes = (count: number): string[] => Array.from({ length: count }, (_, n) => toolLine("note", { n }));
const exceededOf = (all: TestEvent[]) => all.filter((e) => e.type === "budget.exceeded").map((e) => e.data);

describe("budgets: configuration", () => {
  it("keeps scopes with limits and names the first mistake", () => {
    expect(resolveBudgets(undefined)).toBeUndefined();
    expect(resolveBudgets({ turn: {}, session: { tokens: 5, costUsd: undefined } })).toEqual({ session: { tokens: 5 } });
    expect(() => resolveBudgets({ perDay: { tokens: 1 } })).toThrow(/budgets.perDay is not a scope/);
    expect(() => resolveBudgets({ turn: { token: 1 } })).toThrow(/budgets.turn.token is not a limit/);
    expect(() => resolveBudgets({ session: { seconds: -1 } })).toThrow(/at least 0/);
    expect(() => resolveBudgets({ session: { costUsd: "1" } })).toThrow(/finite number/);
    expect(() => resolveBudgets([])).toThrow(/must be an object/);
    // The loader reports the same as a diagnostic of bot/agent.ts.
    const diagnostics = validateAgentConfig({ budgets: { turn: { tokens: Number.NaN } } }, "bot/agent.ts");
    expect(diagnostics).toEqual([expect.objectContaining({ severity: "error", code: "invalid_agent_config", message: expect.stringContaining("budgets.turn.tokens") })]);
    expect(validateAgentConfig({ budgets: { agentPerDay: { costUsd: 10 } } }, "bot/agent.ts")).toEqual([]);
  });

  it("refuses to build a host over an invalid budget", () => {
    expect(() =>
      createHost({ agents: [{ slug: "hello", project: project({ agent: { budgets: { turn: { tokens: -5 } } } }) }], logger: quietLogger }),
    ).toThrow(/budgets.turn.tokens/);
  });
});

describe("budgets: scopes", () => {
  it("turn tokens: the call that crosses the limit is the last, the turn completes with what it produced, the next turn starts afresh", async () => {
    const served = await serve({ budgets: { turn: { tokens: 250 } } });
    const { sessionId, continuationToken } = await create(served, script(...notes(5), "/reply all noted"));
    const all = await settledTurns(served, sessionId);
    // 100 tokens a call: 0 and 100 and 200 are under 250, so three calls run; 300 stops the fourth.
    expect(served.trace.calls).toHaveLength(3);
    expect(exceededOf(all)).toEqual([{ scope: "turn", limit: "tokens", used: 300, max: 250 }]);
    expect(all.filter((e) => e.type === "action.result")).toHaveLength(3);
    expect(all.some((e) => e.type === "turn.failed")).toBe(false);
    const completed = all.find((e) => e.type === "turn.completed")!;
    expect(completed.data).toMatchObject({ usage: { inputTokens: 180, outputTokens: 120 }, model: "scripted" });
    // budget.exceeded comes before the turn's end.
    expect(all.findIndex((e) => e.type === "budget.exceeded")).toBeLessThan(all.indexOf(completed));

    // The turn scope never refuses a send: the next turn has its own 250.
    const next = await fetch(`${served.url}/v1/session/${sessionId}`, postJson({ message: "/reply again", continuationToken }));
    expect(next.status).toBe(200);
    const after = await settledTurns(served, sessionId, 2);
    expect(after.filter((e) => e.type === "turn.completed")).toHaveLength(2);
    expect(served.trace.calls).toHaveLength(4);
    const report = await cost(served, sessionId);
    const lastTurn = after.findLast((e) => e.type === "turn.started")!.turnId;
    expect(report.budgets).toEqual({
      turn: { limits: { tokens: 250 }, used: { tokens: 100, costUsd: 0, toolCalls: 0, seconds: expect.any(Number) }, inFlight: { tokens: 0, costUsd: 0 }, exceeded: [], turnId: lastTurn },
    });
  });

  it("session toolCalls: the crossing is recorded once, further sends answer 429 budget_exceeded and change nothing", async () => {
    const served = await serve({ budgets: { session: { toolCalls: 2 } } });
    const { sessionId, continuationToken } = await create(served, script(...notes(4), "/reply done"));
    const all = await settledTurns(served, sessionId);
    expect(served.trace.calls).toHaveLength(2);
    expect(exceededOf(all)).toEqual([{ scope: "session", limit: "toolCalls", used: 2, max: 2 }]);
    expect(all.filter((e) => e.type === "action.result")).toHaveLength(2);
    expect(all.filter((e) => e.type === "turn.completed")).toHaveLength(1);

    const refused = await fetch(`${served.url}/v1/session/${sessionId}`, postJson({ message: "/reply more", continuationToken }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(await refused.json()).toEqual({
      ok: false,
      error: "budget_exceeded",
      message: "the session budget's toolCalls limit is used up (2 of 2)",
      scope: "session",
      limit: "toolCalls",
      used: 2,
      max: 2,
    });
    expect(await events(served, sessionId)).toHaveLength(all.length);
    expect(served.trace.calls).toHaveLength(2);
    // Another session of the same principal has a session budget of its own.
    const other = await create(served, "/reply fresh");
    expect((await settledTurns(served, other.sessionId)).some((e) => e.type === "turn.completed")).toBe(true);

    const report = await cost(served, sessionId);
    expect(report.budgets?.session).toMatchObject({ limits: { toolCalls: 2 }, used: { toolCalls: 2, tokens: 200 }, exceeded: ["toolCalls"] });
    expect(report.totals).toMatchObject({ inputTokens: 120, outputTokens: 80 });

    // `agent-serve cost` shows the same under the per-turn table.
    const { dir, env } = scratchDir("budgets-cost");
    dirs.push(dir);
    const printed = await run(["cost", sessionId, "--url", served.url], { env });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/BUDGET\s+LIMIT\s+USED/);
    expect(printed.stdout).toMatch(/session\s+toolCalls\s+2 \/ 2\s+used up/);
  });

  it("principalPerDay costUsd: priced by the agent's prices, refused until the next UTC day, then open again", async () => {
    let offset = 0;
    // Noon UTC of a fixed day, so the window cannot roll over during the test.
    const start = Date.UTC(2030, 0, 15, 12);
    const realStart = Date.now();
    const now = (): number => start + (Date.now() - realStart) + offset;
    // $1000 per million tokens both ways: 100 tokens cost $0.1.
    const served = await serve({
      budgets: { principalPerDay: { costUsd: 0.25 } },
      model: "openai-compatible/metered",
      prices: { "openai-compatible/metered": { input: 1000, output: 1000 } },
      now,
      channels: { desk },
    });
    const first = await create(served, script(...notes(5), "/reply done"));
    const all = await settledTurns(served, first.sessionId);
    expect(served.trace.calls).toHaveLength(3);
    expect(exceededOf(all)).toEqual([{ scope: "principalPerDay", limit: "costUsd", used: 0.3, max: 0.25, resetsAt: "2030-01-16T00:00:00.000Z" }]);

    // A new session of the same principal is refused too, with the window's reset.
    const refused = await fetch(`${served.url}/v1/session`, postJson({ message: "/reply hi" }));
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: false, error: "budget_exceeded", scope: "principalPerDay", limit: "costUsd", used: 0.3, max: 0.25, resetsAt: "2030-01-16T00:00:00.000Z" });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(11 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(12 * 3600);
    // Another principal has a day of its own; the same one through the channel is refused too.
    const same = await fetch(`${served.url}/v1/channels/desk/tickets`, postJson({ text: "/reply on it", customer: "local" }));
    expect(same.status).toBe(429);
    const ticket = await fetch(`${served.url}/v1/channels/desk/tickets`, postJson({ text: "/reply on it", customer: "customer-42" }));
    expect(ticket.status).toBe(200);
    // Its turn runs (its log is the customer's to read): the model is called once more.
    await eventually(async () => (served.trace.calls.length === 4 ? true : undefined), 10_000, "the customer's turn");
    const report = await cost(served, first.sessionId);
    expect(report.budgets?.principalPerDay).toMatchObject({
      limits: { costUsd: 0.25 },
      used: { costUsd: 0.3, tokens: 300 },
      exceeded: ["costUsd"],
      window: { day: "2030-01-15", resetsAt: "2030-01-16T00:00:00.000Z" },
    });

    // The next UTC day is a new window.
    offset = DAY_MS;
    const next = await fetch(`${served.url}/v1/session/${first.sessionId}`, postJson({ message: "/reply a new day", continuationToken: first.continuationToken }));
    expect(next.status).toBe(200);
    const after = await settledTurns(served, first.sessionId, 2);
    expect(after.at(-2)).toMatchObject({ type: "turn.completed" });
    expect(served.trace.calls).toHaveLength(5);
    expect((await cost(served, first.sessionId)).budgets?.principalPerDay).toMatchObject({ used: { costUsd: 0.1 }, exceeded: [], window: { day: "2030-01-16" } });
  });

  it("agentPerDay seconds: a turn's running time counts, a tool running past the limit is cut off, and sends are refused once it is used up", async () => {
    const served = await serve({ budgets: { agentPerDay: { seconds: 0.2 } } });
    const { sessionId } = await create(served, script(toolLine("wait", { ms: 3000 }), toolLine("wait", { ms: 10 }), "/reply late"));
    const all = await settledTurns(served, sessionId);
    // The tool (which ignores its abort signal) is cut off when the 0.2 s run out; the next call is refused.
    expect(served.trace.calls).toHaveLength(1);
    const [exceeded] = exceededOf(all);
    expect(exceeded).toMatchObject({ scope: "agentPerDay", limit: "seconds", max: 0.2, resetsAt: expect.any(String) });
    expect(exceeded!["used"]).toBeGreaterThanOrEqual(0.2);
    // Far less than the tool's 3 s: the time stopped counting where the turn was cut.
    expect(exceeded!["used"]).toBeLessThan(1.5);
    expect(all.filter((e) => e.type === "action.result").map((e) => e.data)).toEqual([
      expect.objectContaining({ toolName: "wait", isError: true, output: expect.stringMatching(/^budget exceeded: the agentPerDay budget's seconds limit is used up/) }),
    ]);
    expect(all.filter((e) => e.type === "turn.completed")).toHaveLength(1);
    expect((await cost(served, sessionId)).budgets?.agentPerDay?.used.seconds).toBeLessThan(1.5);
    const again = await fetch(`${served.url}/v1/session`, postJson({ message: "/reply hi" }));
    expect(again.status).toBe(429);
    expect(await again.json()).toMatchObject({ error: "budget_exceeded", scope: "agentPerDay", limit: "seconds" });
  });

  it("turn seconds: a model call running past the limit is cut off, and the turn completes", async () => {
    const served = await serve({ budgets: { turn: { seconds: 0.2 } } });
    const { sessionId } = await create(served, script("/sleep 3000", "/reply too late"));
    const all = await settledTurns(served, sessionId);
    expect(served.trace.calls).toHaveLength(1);
    expect(all.some((e) => e.type === "turn.failed")).toBe(false);
    const [exceeded] = exceededOf(all);
    expect(exceeded).toMatchObject({ scope: "turn", limit: "seconds", max: 0.2 });
    expect(exceeded!["used"]).toBeGreaterThanOrEqual(0.2);
    expect(exceeded!["used"]).toBeLessThan(1.5);
    // Nothing of the cut call's answer is kept; the turn ended long before the 3 s sleep did.
    expect(all.some((e) => e.type === "message.appended" || e.type === "step.completed")).toBe(false);
    const started = all.find((e) => e.type === "turn.started")!;
    const completed = all.find((e) => e.type === "turn.completed")!;
    expect(Date.parse(completed.at as string) - Date.parse(started.at as string)).toBeLessThan(2500);
  });

  it("a limit of 0 refuses from the first send", async () => {
    const served = await serve({ budgets: { agentPerDay: { tokens: 0 } } });
    const refused = await fetch(`${served.url}/v1/session`, postJson({ message: "/reply hi" }));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: "budget_exceeded", scope: "agentPerDay", limit: "tokens", used: 0, max: 0 });
    expect(served.trace.calls).toHaveLength(0);
  });
});

describe("budgets: channel sends into another principal's session", () => {
  it("are checked against the session owner's budget, which their turns spend", async () => {
    const start = Date.UTC(2030, 0, 15, 12);
    const realStart = Date.now();
    const storage = createMemoryStorage();
    const served = await serve({ budgets: { principalPerDay: { tokens: 250 } }, storage, now: () => start + (Date.now() - realStart), channels: { threads } });
    const post = (thread: string, customer: string, text: string) => fetch(`${served.url}/v1/channels/threads/threads`, postJson({ text, customer, thread }));
    const dayOf = async (principal: string): Promise<number> => {
      const raw = await storage.get(principalBudgetKey(principal, "2030-01-15"));
      return raw === undefined ? 0 : (JSON.parse(raw) as { used: { tokens: number } }).used.tokens;
    };

    // The loopback caller's own thread (so this test may read it) uses up its day: 100 tokens a
    // call, the third call crosses 250.
    const first = await post("a", "local", script(...notes(5), "/reply done"));
    expect(first.status).toBe(200);
    const { sessionId: localThread } = (await first.json()) as { sessionId: string };
    await settledTurns(served, localThread);
    expect(served.trace.calls).toHaveLength(3);

    // Bob, whose day is untouched, posting into that thread: its turn would spend its owner's day.
    const intoLocal = await post("a", "bob", "/reply hi");
    expect(intoLocal.status).toBe(429);
    expect(await intoLocal.json()).toMatchObject({ error: "budget_exceeded", scope: "principalPerDay", limit: "tokens", used: 300, max: 250 });
    expect((await events(served, localThread)).filter((e) => e.type === "turn.started")).toHaveLength(1);

    // Bob's own thread runs on his day, and so does a post into it from the used-up principal.
    const bobs = await post("b", "bob", "/reply mine");
    expect(bobs.status).toBe(200);
    const { sessionId: bobThread } = (await bobs.json()) as { sessionId: string };
    await eventually(async () => ((await dayOf("bob")) === 100 ? true : undefined), 10_000, "bob's first turn");
    const intoBob = await post("b", "local", "/reply from local");
    expect(intoBob.status).toBe(200);
    expect(((await intoBob.json()) as { sessionId: string }).sessionId).toBe(bobThread);
    // Charged where it was checked: Bob's day has both turns, the other day is as it was.
    await eventually(async () => ((await dayOf("bob")) === 200 ? true : undefined), 10_000, "the post into bob's thread");
    expect(served.trace.calls).toHaveLength(5);
    expect(await dayOf("local")).toBe(300);
    expect((await cost(served, localThread)).budgets?.principalPerDay).toMatchObject({ used: { tokens: 300 }, exceeded: ["tokens"] });
  });
});

describe("budgets: past days", () => {
  it("records of days before the last three are removed with the day's first turn", async () => {
    const storage = createMemoryStorage();
    const used = JSON.stringify({ used: { tokens: 5, costUsd: 0, toolCalls: 0, seconds: 0 }, holds: {} });
    const days = ["2030-01-10", "2030-01-12", "2030-01-13", "2030-01-14"];
    for (const day of days) {
      await storage.set(principalBudgetKey("local", day), used);
      await storage.set(principalBudgetKey("someone else", day), used);
      await storage.set(agentBudgetKey(day), used);
    }
    await storage.set(sessionBudgetKey("kept-session"), used);
    const start = Date.UTC(2030, 0, 15, 12);
    const realStart = Date.now();
    const served = await serve({ budgets: { principalPerDay: { tokens: 100_000 }, agentPerDay: { tokens: 100_000 } }, storage, now: () => start + (Date.now() - realStart) });
    const before = await storage.list("budgets/");
    // Nothing goes before a turn starts.
    expect(before).toHaveLength(days.length * 3 + 1);
    const { sessionId } = await create(served, "/reply hi");
    await settledTurns(served, sessionId);
    const after = await eventually(async () => {
      const keys = await storage.list("budgets/");
      return keys.some((key) => key.includes("2030-01-12")) ? undefined : keys;
    }, 10_000, "the old days' records to go");
    // The 13th and 14th stay with today's; the 10th and 12th are gone for every principal.
    expect(after.filter((key) => /2030-01-1[02]$/.test(key))).toEqual([]);
    for (const day of ["2030-01-13", "2030-01-14", "2030-01-15"]) {
      expect(after).toEqual(expect.arrayContaining([principalBudgetKey("local", day), agentBudgetKey(day)]));
    }
    expect(after).toContain(principalBudgetKey("someone else", "2030-01-13"));
    expect(after).toContain(sessionBudgetKey("kept-session"));
  });
});

describe("budgets: holds", () => {
  it("a call near the limit waits for the holds of calls in flight, and a crashed holder's hold lapses", async () => {
    const storage = createMemoryStorage();
    let clock = Date.UTC(2030, 0, 15, 12);
    const now = (): number => clock;
    const refs: ScopeRef[] = [{ scope: "agentPerDay", key: "budgets/agent/2030-01-15", limits: { tokens: 1000 }, resetsAt: "2030-01-16T00:00:00.000Z" }];
    const hold = (tokens: number) => ({ tokens, costUsd: 0, until: clock + HOLD_TTL_MS });
    expect(await admit(storage, refs, "a", hold(600), 0, now)).toEqual({ status: "admitted" });
    // 600 held + 600 would pass 1000: wait. A call that fits runs alongside.
    expect(await admit(storage, refs, "b", hold(600), 0, now)).toEqual({ status: "wait" });
    expect(await admit(storage, refs, "c", hold(300), 0, now)).toEqual({ status: "admitted" });
    expect(await settle(storage, refs, "c", { tokens: 250, costUsd: 0, toolCalls: 1, seconds: 0 }, now)).toEqual([]);
    // "a" never settles (its process crashed): past the hold's lifetime, "b" runs alone.
    expect(await admit(storage, refs, "b", hold(600), 0, now)).toEqual({ status: "wait" });
    clock += HOLD_TTL_MS + 1;
    expect(await admit(storage, refs, "b", { ...hold(600) }, 0, now)).toEqual({ status: "admitted" });
    expect(await settle(storage, refs, "b", { tokens: 800, costUsd: 0, toolCalls: 0, seconds: 0 }, now)).toEqual([
      { scope: "agentPerDay", limit: "tokens", used: 1050, max: 1000, resetsAt: "2030-01-16T00:00:00.000Z" },
    ]);
    expect(await admit(storage, refs, "d", hold(1), 0, now)).toMatchObject({ status: "exceeded", exceeded: { limit: "tokens", used: 1050 } });
    const stored = JSON.parse((await storage.get("budgets/agent/2030-01-15"))!) as { used: { tokens: number; toolCalls: number }; holds: Record<string, unknown> };
    expect(stored.used).toMatchObject({ tokens: 1050, toolCalls: 1 });
    expect(stored.holds).toEqual({});
  });
});

describe("budgets: webhooks", () => {
  it("budget.exceeded can be posted to a lifecycle webhook", async () => {
    const received: Array<Record<string, unknown>> = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const secret = `whsec_${Buffer.from("budget-test-secret-key-0123456789").toString("base64")}`;
      const served = await serve({
        budgets: { turn: { toolCalls: 1 } },
        webhooks: [{ url: `http://127.0.0.1:${port}/hooks`, events: ["budget.exceeded"], secret, allowPrivateTarget: true }],
      });
      const { sessionId } = await create(served, script(...notes(3), "/reply done"));
      await settledTurns(served, sessionId);
      const delivered = await eventually(async () => (received.length > 0 ? received : undefined), 10_000, "the webhook delivery");
      expect(delivered).toEqual([
        expect.objectContaining({ type: "budget.exceeded", data: expect.objectContaining({ sessionId, data: { scope: "turn", limit: "toolCalls", used: 1, max: 1 } }) }),
      ]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe("budgets: concurrency", () => {
  it("turns of one principal in two hosts on one store race the same daily limit: never more than one call over", async () => {
    // A store across a network: reads and commits take a little while, so turns interleave.
    // One store; each host reaches it over its own connection.
    const store = sharedStore(createMemoryStorage());
    const trace: ModelTrace = { calls: [], running: 0, maxRunning: 0 };
    const limit = 3000;
    // Each call uses what the gate estimates for its input plus 40 of the 50 output tokens it may
    // produce: holds cover calls, so calls run side by side while they fit.
    const usage = (request: ModelStepRequest): Usage => usageOf(estimateInputTokens(request), 40);
    const options = {
      budgets: { principalPerDay: { tokens: limit } },
      model: { id: "scripted", params: [{ id: "maxOutputTokens", value: "50" }] },
      storage: store,
      trace,
      usage,
      delayMs: 20,
    };
    const hosts = [await serve({ ...options, storage: withLatency(store) }), await serve({ ...options, storage: withLatency(store) })];
    const sessions = await Promise.all(Array.from({ length: 6 }, (_, n) => create(hosts[n % 2]!, script(...notes(12), "/reply done")).then((s) => ({ ...s, host: hosts[n % 2]! }))));
    const logs = await Promise.all(sessions.map((s) => settledTurns(s.host, s.sessionId)));

    const spent = trace.calls.map((call) => call.inputTokens + call.outputTokens);
    const total = spent.reduce((sum, n) => sum + n, 0);
    const largest = Math.max(...spent);
    // The limit was reached, and without the largest single call the total is under it.
    expect(total).toBeGreaterThanOrEqual(limit);
    expect(total - largest).toBeLessThan(limit);
    // Calls did run side by side (the race is real), across both hosts.
    expect(trace.maxRunning).toBeGreaterThan(1);
    // Every turn ended completed, not failed; each refused one recorded why.
    for (const all of logs) {
      expect(all.some((e) => e.type === "turn.failed")).toBe(false);
      expect(all.filter((e) => e.type === "turn.completed")).toHaveLength(1);
    }
    expect(logs.filter((all) => exceededOf(all).length > 0).length).toBeGreaterThan(0);
    // The stored count is exactly what the model reported.
    const report = await cost(sessions[0]!.host, sessions[0]!.sessionId);
    expect(report.budgets?.principalPerDay).toMatchObject({ used: { tokens: total }, inFlight: { tokens: 0 }, exceeded: ["tokens"] });
  }, 30_000);
});

describe("budgets: concurrency of tool calls and seconds", () => {
  /** Six turns, three in each of two hosts on one store (with a network's latency), all at once. */
  async function race(budgets: BudgetsConfig, message: string): Promise<{ hosts: Served[]; sessions: Array<{ sessionId: string; host: Served }>; logs: TestEvent[][] }> {
    // One store; each host reaches it over its own connection.
    const store = sharedStore(createMemoryStorage());
    const trace: ModelTrace = { calls: [], running: 0, maxRunning: 0 };
    const options = { budgets, storage: store, trace, delayMs: 20 };
    const hosts = [await serve({ ...options, storage: withLatency(store) }), await serve({ ...options, storage: withLatency(store) })];
    const sessions = await Promise.all(Array.from({ length: 6 }, (_, n) => create(hosts[n % 2]!, message).then((s) => ({ ...s, host: hosts[n % 2]! }))));
    const logs = await Promise.all(sessions.map((s) => settledTurns(s.host, s.sessionId)));
    for (const all of logs) {
      expect(all.filter((e) => e.type === "turn.failed").map((e) => e.data)).toEqual([]);
      expect(all.filter((e) => e.type === "turn.completed")).toHaveLength(1);
    }
    return { hosts, sessions, logs };
  }

  const results = (logs: TestEvent[][]) => logs.flatMap((all) => all.filter((e) => e.type === "action.result").map((e) => e.data as { isError: boolean; output: unknown }));

  it("toolCalls: turns of one principal in two hosts racing a daily limit never run a call over it", async () => {
    const limit = 10;
    const { sessions, logs } = await race({ principalPerDay: { toolCalls: limit } }, script(...notes(12), "/reply done"));
    const ran = results(logs).filter((r) => !r.isError);
    const refused = results(logs).filter((r) => r.isError);
    // Exactly the limit ran, though the six turns asked for 72; the rest were refused by name.
    expect(ran).toHaveLength(limit);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.output).toMatch(/^budget exceeded: the principalPerDay budget's toolCalls limit is used up \(10 of 10\)/);
    // More than one turn ran tools: the race was real.
    expect(logs.filter((all) => all.some((e) => e.type === "action.result" && !(e.data as { isError: boolean }).isError)).length).toBeGreaterThan(1);
    const report = await cost(sessions[0]!.host, sessions[0]!.sessionId);
    expect(report.budgets?.principalPerDay).toMatchObject({ used: { toolCalls: limit }, exceeded: ["toolCalls"] });
  }, 30_000);

  it("seconds: turns of one principal in two hosts racing a daily limit are cut off, never a call past it", async () => {
    const limit = 2;
    const callSeconds = 3;
    // Each tool takes 3 s and ignores its abort signal: counted from start to end, six turns
    // running side by side would pass the limit by far more than one call.
    const { sessions, logs } = await race(
      { principalPerDay: { seconds: limit } },
      script(...Array.from({ length: 3 }, () => toolLine("wait", { ms: callSeconds * 1000 })), "/reply done"),
    );
    const report = await cost(sessions[0]!.host, sessions[0]!.sessionId);
    const used = report.budgets!.principalPerDay!.used.seconds;
    expect(used).toBeGreaterThanOrEqual(limit);
    // Over by less than one call, though six ran at once: only how late the last leases'
    // renewals came (timers on a busy machine) passes the limit, typically by a few hundredths.
    expect(used - limit).toBeLessThan(callSeconds);
    expect(report.budgets?.principalPerDay?.exceeded).toEqual(["seconds"]);
    // Turns ran side by side: more than one was cut off in a tool.
    const cut = logs.filter((all) => all.some((e) => e.type === "action.result" && /seconds limit/.test(String((e.data as { output: unknown }).output))));
    expect(cut.length).toBeGreaterThan(1);
    for (const all of logs) expect(exceededOf(all).every((data) => data["limit"] === "seconds")).toBe(true);
  }, 30_000);
});

/**
 * `inner` with every read and commit delayed by 0 to 3 ms, as a store across a network is. Commits
 * of one connection still apply in the order they were made, as the storage port promises one caller
 * (docs/design/storage.md): a session's event log sends its batches without waiting for the last.
 */
function withLatency(inner: StorageDriver): StorageDriver {
  const delay = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)));
  let commits: Promise<unknown> = Promise.resolve();
  return new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property === "get") {
        return async (...args: unknown[]) => {
          await delay();
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        };
      }
      if (property === "commit") {
        return (...args: unknown[]) => {
          const done = commits.then(delay).then(() => (value as (...args: unknown[]) => unknown).apply(target, args));
          commits = done.catch(() => {});
          return done;
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe("budgets: subagents", () => {
  const agentTs = (config: string): string => `import { defineAgent } from "agent-serve";\nexport default defineAgent(${config});\n`;

  async function serveWithSubagent(budgets: BudgetsConfig): Promise<Served> {
    const root = writeProject({
      "package.json": JSON.stringify({ name: "parent", type: "module" }),
      "bot/agent.ts": agentTs(`{ model: "scripted" }`),
      "bot/instructions.md": "You are the parent.\n",
      "bot/subagents/helper/agent.ts": agentTs(`{ description: "Helps", tools: ["ls"], model: "openai/gpt-test" }`),
      "bot/subagents/helper/instructions.md": "You help.\n",
    });
    const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-budget-sub-"));
    dirs.push(root, stateRoot);
    const loaded = await loadProject(root);
    expect(loaded.diagnostics).toEqual([]);
    return serve({ budgets, loaded, stateRoot });
  }

  const delegate = (calls: number): string =>
    script(toolLine("task", { subagent: "helper", prompt: script(...Array.from({ length: calls }, () => toolLine("ls", { path: "." })), "/reply helped") }), "/reply finished");

  it("a subagent's calls, on its own model, count toward the turn that ran it", async () => {
    const served = await serveWithSubagent({ turn: { tokens: 100_000 }, session: { toolCalls: 100 } });
    const { sessionId } = await create(served, delegate(3));
    const all = await settledTurns(served, sessionId);
    expect(all.find((e) => e.type === "subagent.completed")?.data).toMatchObject({ isError: false, result: "helped", model: "openai/gpt-test" });
    // Parent: 2 calls; subagent: 3 tool steps and its answer.
    expect(served.trace.calls).toHaveLength(6);
    const report = await cost(served, sessionId);
    expect(report.budgets?.turn?.used).toMatchObject({ tokens: 600 });
    // The parent's task call and the subagent's three ls calls.
    expect(report.budgets?.session?.used).toMatchObject({ toolCalls: 4, tokens: 600 });
  });

  it("a subagent crossing the turn's limit stops it and then the turn, which completes", async () => {
    const served = await serveWithSubagent({ turn: { tokens: 250 } });
    const { sessionId } = await create(served, delegate(5));
    const all = await settledTurns(served, sessionId);
    // Parent 100, subagent 200 and 300: the third subagent call and the parent's next are refused.
    expect(served.trace.calls).toHaveLength(3);
    expect(exceededOf(all)).toEqual([{ scope: "turn", limit: "tokens", used: 300, max: 250 }]);
    expect(all.find((e) => e.type === "subagent.completed")?.data).toMatchObject({ isError: true, error: expect.stringContaining("budget exceeded") });
    expect(all.some((e) => e.type === "turn.failed")).toBe(false);
    expect(all.find((e) => e.type === "turn.completed")?.data).toMatchObject({ usage: { inputTokens: 60, outputTokens: 40 } });
  });
});
