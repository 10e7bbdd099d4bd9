/**
 * Eval runs across restarts and shutdowns (runs are stored in the agent's storage), and the case
 * time limit priority of docs/guide/http-api.md "Limits": the case's own, the run's (CLI
 * `--timeout-ms`), the config's, then 180 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { defineEval, defineEvalConfig } from "../src/entries/evals.ts";
import type { EvalConfig, EvalDefinition, EvalRunSnapshot } from "../src/entries/evals.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, postJson, project, quietLogger, severable } from "./_harness.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-evals-restart-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0).reverse()) await host.close();
});

/** A test that never ends by itself. */
const forever = (): Promise<never> => new Promise(() => {});

const evals: Record<string, EvalDefinition> = {
  quick: defineEval({ tags: ["quick"], test: async (t) => void (await t.send("hi")) }),
  slow: defineEval({ tags: ["slow"], test: async (t) => void (await t.send("/sleep 30000")) }),
};

function open(storage: StorageDriver, extra: { evals?: Record<string, EvalDefinition>; evalConfig?: EvalConfig } = {}): AgentHost {
  const host = createHost({
    agents: [{ slug: "hello", project: project({ evals, ...extra }), storage }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    mode: "single",
  });
  hosts.push(host);
  return host;
}

async function start(host: AgentHost, body: unknown): Promise<EvalRunSnapshot> {
  const response = await host.request("/v1/dev/evals/runs", postJson(body));
  expect(response.status).toBe(202);
  return (await response.json()) as EvalRunSnapshot;
}

async function read(host: AgentHost, runId: string): Promise<EvalRunSnapshot> {
  const response = await host.request(`/v1/dev/evals/runs/${runId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as EvalRunSnapshot;
}

const settled = (host: AgentHost, runId: string): Promise<EvalRunSnapshot> =>
  eventually(async () => {
    const run = await read(host, runId);
    return run.status === "running" ? undefined : run;
  }, 10_000);

const underWay = (host: AgentHost, runId: string): Promise<string> =>
  eventually(async () => (await read(host, runId)).cases[0]?.sessionId ?? undefined, 5000, "the case's session");

describe("persistence", () => {
  it("a finished run survives a restart on the same storage root", async () => {
    const root = join(scratch, "finished");
    const first = open(createSqliteStorage({ path: join(root, "state.db") }));
    const run = await settled(first, (await start(first, { tags: ["quick"] })).runId);
    expect(run).toMatchObject({ status: "completed", passed: 1 });
    await first.close();

    const second = open(createSqliteStorage({ path: join(root, "state.db") }));
    expect(await read(second, run.runId)).toEqual(run);
    const list = (await (await second.request("/v1/dev/evals/runs")).json()) as { runs: EvalRunSnapshot[]; activeRunId?: string };
    expect(list).toEqual({ runs: [run] });
  });

  it("a run that was running when the host went away is marked failed on the next start", async () => {
    const storage = createMemoryStorage();
    const view = severable(storage);
    const crashed = open(view.driver);
    const { runId } = await start(crashed, { tags: ["slow"] });
    const sessionId = await underWay(crashed, runId);
    await eventually(async () => ((await storage.get(`eval-runs/${runId}`))?.includes(sessionId) ? true : undefined), 5000, "the stored session id");

    // A second host on the same storage is what a restart after a crash looks like; the crashed
    // one neither writes nor hears anything from here on.
    view.sever();
    const restarted = open(storage);
    const run = await read(restarted, runId);
    expect(run).toMatchObject({ runId, status: "failed", total: 1, passed: 0, failed: 0 });
    expect(run.cases).toEqual([{ id: "slow", status: "cancelled", durationMs: 0, sessionId, failures: [] }]);
    expect(run.errors).toEqual([{ message: "the host restarted before the run finished", at: expect.any(String) }]);
    expect(run.finishedAt).toEqual(expect.any(String));
    const list = (await (await restarted.request("/v1/dev/evals/runs")).json()) as { runs: EvalRunSnapshot[]; activeRunId?: string };
    expect(list.activeRunId).toBeUndefined();
    // The restarted host may run again, and cancel of the dead run says it is not running.
    const cancel = await restarted.request(`/v1/dev/evals/runs/${runId}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(409);
    expect((await start(restarted, { tags: ["quick"] })).status).toBe("running");
  });

  it("closing the host ends a running run as failed and stops its turn", async () => {
    const storage = createMemoryStorage();
    const host = open(storage);
    const { runId } = await start(host, { tags: ["slow"] });
    const sessionId = await underWay(host, runId);
    await host.close();

    const after = open(storage);
    const run = await read(after, runId);
    expect(run).toMatchObject({ status: "failed", errors: [{ message: "the host closed before the run finished" }] });
    expect(run.cases[0]).toMatchObject({ id: "slow", status: "cancelled", sessionId });
    const events = (await (await after.request(`/v1/session/${sessionId}/events`)).text()).trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(events.find((e) => e.type === "turn.failed")?.data).toEqual({ message: "turn interrupted" });
  });
});

describe("case time limits", () => {
  const limited: Record<string, EvalDefinition> = {
    own: defineEval({ cases: [{ id: "case", timeoutMs: 50, test: forever }] }),
    inherited: defineEval({ timeoutMs: 60, test: forever }),
    plain: defineEval({ test: forever }),
    turn: defineEval({ timeoutMs: 80, test: async (t) => void (await t.send("/sleep 30000")) }),
  };
  const limits = (run: EvalRunSnapshot): Record<string, string | undefined> =>
    Object.fromEntries(run.cases.map((c) => [c.id, c.failures.find((f) => f.assertion === "timeout")?.message]));

  it("the case's own limit wins, then the run's, then the config's", async () => {
    const host = open(createMemoryStorage(), { evals: limited, evalConfig: defineEvalConfig({ timeoutMs: 120, maxConcurrency: 10 }) });
    const withRunLimit = await settled(host, (await start(host, { filterIds: ["own", "inherited", "plain"], timeoutMs: 90 })).runId);
    expect(limits(withRunLimit)).toEqual({
      "own/case": "the case did not finish within 50 ms",
      inherited: "the case did not finish within 60 ms",
      plain: "the case did not finish within 90 ms",
    });
    expect(withRunLimit).toMatchObject({ status: "completed", failed: 3, passed: 0 });
    for (const item of withRunLimit.cases) expect(item.status).toBe("failed");

    const configOnly = await settled(host, (await start(host, { filterIds: ["plain"] })).runId);
    expect(limits(configOnly)).toEqual({ plain: "the case did not finish within 120 ms" });
    expect(configOnly.cases[0]!.durationMs).toBeGreaterThanOrEqual(110);
  });

  it("without any limit a case gets 180 s", async () => {
    const host = open(createMemoryStorage(), { evals: limited });
    const body = (await (await host.request("/v1/dev/evals")).json()) as { config: { timeoutMs: number; maxConcurrency: number } };
    expect(body.config).toMatchObject({ timeoutMs: 180_000, maxConcurrency: 4 });
  });

  it("a timed-out case's running turn is stopped", async () => {
    const host = open(createMemoryStorage(), { evals: limited });
    const run = await settled(host, (await start(host, { filterIds: ["turn"] })).runId);
    expect(run.cases[0]).toMatchObject({ status: "failed", failures: [{ assertion: "timeout", message: "the case did not finish within 80 ms" }] });
    expect(run.cases[0]!.durationMs).toBeLessThan(5000);
    const sessionId = run.cases[0]!.sessionId!;
    const events = (await (await host.request(`/v1/session/${sessionId}/events`)).text()).trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(events.find((e) => e.type === "turn.failed")?.data).toEqual({ message: "turn interrupted" });
    expect(events.at(-1)?.type).toBe("session.waiting");
  });
});
