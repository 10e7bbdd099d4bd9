/**
 * Eval runs against the scripted model, in-process and over a real loopback server: the `t` API
 * (reply, succeeded, calledTool with a server tool, notCalledTool, matchers), the eval routes
 * (202, 404, 409 while running, cancel 200/404/409, filters OR/AND), snapshots and concurrency.
 */
import * as v from "valibot";
import { beforeEach, expect, it } from "vitest";
import { defineEval, defineEvalConfig, includes, matches, satisfies } from "../src/entries/evals.ts";
import type { EvalDefinition, EvalRunSnapshot } from "../src/entries/evals.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/entries/tools.ts";
import { type HostUnderTest, allEvents, describeHost, eventually, helloOptions, postJson, project } from "./_harness.ts";

const base = "/hello";

/** What the `lookup` tool saw of its sessions. */
let purposes: Array<string | undefined> = [];
/** Cases of the `pool` eval running right now, and the most at once. */
let concurrency = { now: 0, max: 0 };
beforeEach(() => {
  purposes = [];
  concurrency = { now: 0, max: 0 };
});

const tools: Record<string, ToolDefinition> = {
  lookup: defineTool({
    description: "Looks an order up",
    inputSchema: v.object({ orderId: v.string(), qty: v.number() }),
    execute(input, ctx) {
      purposes.push(ctx.session?.purpose);
      return { orderId: input.orderId, status: "shipped" };
    },
  }),
};

const evals: Record<string, EvalDefinition> = {
  greet: defineEval({
    tags: ["smoke"],
    description: "echoes a greeting",
    async test(t) {
      const reply = await t.send("hello there");
      t.succeeded();
      await t.check(reply, includes("echo: hello there"));
      await t.check(t.reply, includes(/HELLO/i));
      await t.check({ reply }, matches(v.object({ reply: v.string() })));
      await t.check(reply, satisfies((text: string) => text.length < 100, "a short reply"));
      t.notCalledTool("lookup");
    },
  }),
  orders: defineEval({
    tags: ["tools"],
    cases: [
      {
        id: "lookup",
        description: "looks up A1",
        async test(t) {
          await t.send('/tool lookup {"orderId":"A1","qty":2}');
          t.succeeded();
          t.calledTool("lookup");
          t.calledTool("lookup", { input: { orderId: "A1" } });
          t.notCalledTool("refund");
          await t.check(t.reply, includes("done"));
        },
      },
      {
        id: "misses",
        async test(t) {
          await t.send('/tool lookup {"orderId":"A1","qty":2}');
          t.calledTool("lookup", { input: { orderId: "B2" } });
          t.calledTool("refund");
          t.notCalledTool("lookup");
          void t.check("abc", includes("z"));
          void t.check({ n: "x" }, matches(v.object({ n: v.number() })));
          void t.check(5, satisfies((n: number) => n < 3, "below three"));
        },
      },
    ],
  }),
  conversation: defineEval({
    tags: ["smoke", "tools"],
    async test(t) {
      await t.send("first");
      const first = t.sessionId;
      const second = await t.send("/reply second answer");
      if (t.sessionId !== first) t.fail(`the second send started another session: ${t.sessionId} after ${first}`);
      await t.check(second, includes("second answer"));
      await t.check(t.reply, satisfies((reply: string) => reply === "second answer", "exactly the second answer"));
    },
  }),
  "failed-turn": defineEval({
    async test(t) {
      const reply = await t.send("/fail the model is down");
      t.succeeded();
      await t.check(reply, satisfies((text: string) => text === "", "empty"));
    },
  }),
  throws: defineEval({
    async test(t) {
      t.succeeded();
      throw new Error("the test itself broke");
    },
  }),
};

/** Runs only when asked for by tag: a case that runs until stopped. */
const slow: Record<string, EvalDefinition> = {
  slow: defineEval({
    tags: ["slow"],
    async test(t) {
      await t.send("/sleep 30000");
    },
  }),
};

const pool: Record<string, EvalDefinition> = {
  pool: defineEval({
    tags: ["pool"],
    cases: ["a", "b", "c", "d", "e"].map((id) => ({
      id,
      async test(t) {
        concurrency.now++;
        concurrency.max = Math.max(concurrency.max, concurrency.now);
        try {
          await t.send("/sleep 40");
        } finally {
          concurrency.now--;
        }
        t.succeeded();
      },
    })),
  }),
};

const options = () =>
  helloOptions({
    agents: [
      {
        slug: "hello",
        project: project({ tools, evals: { ...evals, ...slow, ...pool }, evalConfig: defineEvalConfig({ maxConcurrency: 2 }) }),
        storage: createMemoryStorage(),
      },
    ],
  });

async function startRun(target: HostUnderTest, body: unknown): Promise<Response> {
  return target.fetch(`${base}/v1/dev/evals/runs`, postJson(body));
}

async function finished(target: HostUnderTest, runId: string): Promise<EvalRunSnapshot> {
  return eventually(
    async () => {
      const run = (await (await target.fetch(`${base}/v1/dev/evals/runs/${runId}`)).json()) as EvalRunSnapshot;
      return run.status === "running" ? undefined : run;
    },
    10_000,
    `eval run ${runId} to finish`,
  );
}

async function runToEnd(target: HostUnderTest, body: unknown): Promise<EvalRunSnapshot> {
  const response = await startRun(target, body);
  expect(response.status).toBe(202);
  const started = (await response.json()) as EvalRunSnapshot;
  return finished(target, started.runId);
}

describeHost("evals", options, (get) => {
  it("lists the eval cases and the config", async () => {
    const response = await get().fetch(`${base}/v1/dev/evals`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { evals: Array<{ id: string; tags: string[]; description: string | null }>; config: unknown };
    expect(body.config).toEqual({ maxConcurrency: 2, timeoutMs: 180_000, maxPlaygroundRuns: 50, durableRuns: true });
    expect(body.evals.map((e) => e.id)).toEqual([
      "conversation",
      "failed-turn",
      "greet",
      "orders/lookup",
      "orders/misses",
      "pool/a",
      "pool/b",
      "pool/c",
      "pool/d",
      "pool/e",
      "slow",
      "throws",
    ]);
    expect(body.evals.find((e) => e.id === "greet")).toEqual({ id: "greet", tags: ["smoke"], description: "echoes a greeting" });
    expect(body.evals.find((e) => e.id === "orders/lookup")).toEqual({ id: "orders/lookup", tags: ["tools"], description: "looks up A1" });
  });

  it("a passing run: 202 with a running snapshot, then completed with every case passed", async () => {
    const response = await startRun(get(), { filterIds: ["greet", "orders/lookup", "conversation"] });
    expect(response.status).toBe(202);
    const started = (await response.json()) as EvalRunSnapshot;
    expect(started).toMatchObject({ status: "running", total: 3, passed: 0, failed: 0, errors: [] });
    expect(started.runId).toMatch(/^eval_[A-Za-z0-9]+$/);
    expect(new Date(started.startedAt).toISOString()).toBe(started.startedAt);
    expect(started.cases.map((c) => c.id)).toEqual(["conversation", "greet", "orders/lookup"]);
    expect(started.finishedAt).toBeUndefined();

    const run = await finished(get(), started.runId);
    expect(run).toMatchObject({ runId: started.runId, status: "completed", total: 3, passed: 3, failed: 0, errors: [] });
    expect(run.finishedAt! >= run.startedAt).toBe(true);
    for (const item of run.cases) {
      expect(item).toMatchObject({ status: "passed", failures: [] });
      expect(item.sessionId).toMatch(/^ses_/);
      expect(item.durationMs).toBeGreaterThanOrEqual(0);
    }
    // Eval traffic is marked as such: tools see purpose "eval".
    expect(purposes).toEqual(["eval"]);
    // The conversation continued one session: two messages, two turns.
    const conversation = run.cases.find((c) => c.id === "conversation")!;
    const events = await allEvents(get(), base, conversation.sessionId!);
    expect(events.filter((e) => e.type === "message.received").map((e) => e.data.text)).toEqual(["first", "/reply second answer"]);
    expect(events.find((e) => e.type === "session.started")?.data).toMatchObject({ title: "eval conversation" });
  });

  it("failed assertions are recorded per case without stopping the case", async () => {
    const run = await runToEnd(get(), { filterIds: ["orders/misses", "failed-turn", "throws"] });
    expect(run).toMatchObject({ status: "completed", total: 3, passed: 0, failed: 3, errors: [] });
    const byId = Object.fromEntries(run.cases.map((c) => [c.id, c]));
    expect(byId["orders/misses"]?.failures).toEqual([
      { assertion: "calledTool", message: `lookup was called, but no call's input contains {"orderId":"B2"} (inputs: {"orderId":"A1","qty":2})` },
      { assertion: "calledTool", message: "expected a call to refund; tools called: lookup" },
      { assertion: "notCalledTool", message: "expected no call to lookup, but it was called 1 time" },
      { assertion: "check", message: 'expected "abc" to match includes("z")' },
      { assertion: "check", message: '{"n":"x"} does not match the schema at n: Invalid type: Expected number but received "x"' },
      { assertion: "check", message: "expected 5 to be below three" },
    ]);
    expect(byId["failed-turn"]?.failures).toEqual([{ assertion: "succeeded", message: "the last turn failed: the model is down" }]);
    expect(byId["throws"]).toMatchObject({
      status: "failed",
      sessionId: null,
      failures: [
        { assertion: "succeeded", message: "no turn to judge: call t.send first" },
        { assertion: "error", message: "the test itself broke" },
      ],
    });
  });

  it("filters: OR within filterIds and within tags, AND across them; 404 when nothing matches", async () => {
    const ids = async (body: unknown): Promise<string[]> => {
      const run = await runToEnd(get(), body);
      return run.cases.map((c) => c.id);
    };
    expect(await ids({ tags: ["smoke"] })).toEqual(["conversation", "greet"]);
    expect(await ids({ tags: ["smoke", "tools"] })).toEqual(["conversation", "greet", "orders/lookup", "orders/misses"]);
    expect(await ids({ filterIds: ["orders"] })).toEqual(["orders/lookup", "orders/misses"]);
    expect(await ids({ filterIds: ["orders", "greet"], tags: ["smoke"] })).toEqual(["greet"]);

    const none = await startRun(get(), { filterIds: ["greet"], tags: ["tools"] });
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ ok: false, error: "no_matching_evals" });
    const unknown = await startRun(get(), { filterIds: ["nope"] });
    expect(unknown.status).toBe(404);

    const invalid = await startRun(get(), { filterIds: "greet" });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ ok: false, error: "invalid_request" });
    expect((await startRun(get(), { filter: ["greet"] })).status).toBe(400);
    expect((await startRun(get(), { timeoutMs: 0 })).status).toBe(400);
  });

  it("one run at a time: 409 while running; cancel answers 200 and stops the case's turn", async () => {
    const started = (await (await startRun(get(), { tags: ["slow"] })).json()) as EvalRunSnapshot;
    // The case is under way once its session exists.
    const sessionId = await eventually(async () => {
      const run = (await (await get().fetch(`${base}/v1/dev/evals/runs/${started.runId}`)).json()) as EvalRunSnapshot;
      return run.cases[0]?.sessionId ?? undefined;
    });
    const busy = await startRun(get(), { filterIds: ["greet"] });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ ok: false, error: "eval_run_in_progress" });

    const list = (await (await get().fetch(`${base}/v1/dev/evals/runs`)).json()) as { runs: EvalRunSnapshot[]; activeRunId?: string };
    expect(list.activeRunId).toBe(started.runId);
    expect(list.runs[0]).toMatchObject({ runId: started.runId, status: "running" });
    expect(list.runs[0]?.cases[0]).toMatchObject({ id: "slow", status: "running", sessionId });

    const cancelled = await get().fetch(`${base}/v1/dev/evals/runs/${started.runId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    const snapshot = (await cancelled.json()) as EvalRunSnapshot;
    expect(snapshot).toMatchObject({ runId: started.runId, status: "cancelled", total: 1, passed: 0, failed: 0, errors: [] });
    expect(snapshot.cases).toEqual([{ id: "slow", status: "cancelled", durationMs: expect.any(Number), sessionId, failures: [] }]);
    expect(typeof snapshot.finishedAt).toBe("string");
    const events = await allEvents(get(), base, sessionId);
    expect(events.find((e) => e.type === "turn.failed")?.data).toEqual({ message: "turn interrupted" });
    expect(events.at(-1)?.type).toBe("session.waiting");

    const again = await get().fetch(`${base}/v1/dev/evals/runs/${started.runId}/cancel`, { method: "POST" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ ok: false, error: "eval_run_not_running" });
    const after = (await (await get().fetch(`${base}/v1/dev/evals/runs`)).json()) as { runs: EvalRunSnapshot[]; activeRunId?: string };
    expect(after.activeRunId).toBeUndefined();
    expect(after.runs[0]).toMatchObject({ runId: started.runId, status: "cancelled" });
    // A new run may start now.
    expect((await startRun(get(), { filterIds: ["greet"] })).status).toBe(202);
  });

  it("unknown runs: 404 eval_run_not_found for GET and cancel", async () => {
    for (const runId of ["eval_doesnotexist", "not-a-run-id", "eval_%2e%2e"]) {
      const read = await get().fetch(`${base}/v1/dev/evals/runs/${runId}`);
      expect(read.status).toBe(404);
      expect(await read.json()).toMatchObject({ ok: false, error: "eval_run_not_found" });
      const cancel = await get().fetch(`${base}/v1/dev/evals/runs/${runId}/cancel`, { method: "POST" });
      expect(cancel.status).toBe(404);
      expect(await cancel.json()).toMatchObject({ ok: false, error: "eval_run_not_found" });
    }
  });

  it("runs list newest first", async () => {
    const first = await runToEnd(get(), { filterIds: ["greet"] });
    const second = await runToEnd(get(), { filterIds: ["failed-turn"] });
    const list = (await (await get().fetch(`${base}/v1/dev/evals/runs`)).json()) as { runs: EvalRunSnapshot[]; activeRunId?: string };
    expect(list.runs.map((r) => r.runId)).toEqual([second.runId, first.runId]);
    expect(list.runs[1]).toEqual(first);
    expect("activeRunId" in list).toBe(false);
  });

  it("runs at most maxConcurrency cases at once", async () => {
    const run = await runToEnd(get(), { tags: ["pool"] });
    expect(run).toMatchObject({ status: "completed", total: 5, passed: 5 });
    expect(concurrency.max).toBe(2);
  });

  it("eval routes run the agent's auth chain", async () => {
    if (get().kind !== "in-process") return;
    const response = await get().fetch(`${base}/v1/dev/evals`, { ip: "203.0.113.9" });
    expect(response.status).toBe(401);
  });
});
