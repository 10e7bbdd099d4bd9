/**
 * Deploy-safe sessions (docs/design/deploy-safe-sessions.md): every `turn.started` records the
 * version of the agent definition that ran it, stable for the same definition and changed when a
 * tool changes; a call parked for approval before a deploy meets the new definition when its
 * turn resumes: a call whose tool is gone or whose input the new schema refuses ends with an
 * `action.result` error saying the definition changed, and never runs; one that still fits waits
 * for its decision and runs on the new version. In-process hosts over one store, the earlier one
 * cut off as a crashed process is; the real restart is test/deploy-safe-serve.test.ts.
 */
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApprovalStore } from "../src/engine/approvals/approval-store.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import { agentVersion } from "../src/host/agent-version.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { type TestEvent, eventually, helloOptions, postJson, project, quietLogger, severable } from "./_harness.ts";

const base = "/hello";
let runs: string[] = [];
beforeEach(() => {
  runs = [];
});

/** `danger` as first deployed: `{what}`, always gated. */
const dangerV1 = (): ToolDefinition =>
  defineTool({
    description: "Deletes things",
    inputSchema: v.object({ what: v.string() }),
    needsApproval: true,
    execute(input) {
      runs.push(`v1:${input.what}`);
      return `deleted ${input.what}`;
    },
  });

/** `danger` redeployed with a schema old calls no longer fit: `{target}`. */
const dangerRenamedField = (): ToolDefinition =>
  defineTool({
    description: "Deletes things",
    inputSchema: v.object({ target: v.string() }),
    needsApproval: true,
    execute(input) {
      runs.push(`v2:${input.target}`);
      return `deleted ${input.target}`;
    },
  });

/** `danger` redeployed with a compatible schema (an optional field added) and a new body. */
const dangerCompatible = (needsApproval: boolean): ToolDefinition =>
  defineTool({
    description: "Deletes things, carefully",
    inputSchema: v.object({ what: v.string(), dryRun: v.optional(v.boolean()) }),
    needsApproval,
    execute(input) {
      runs.push(`v2:${input.what}`);
      return `deleted ${input.what} (v2)`;
    },
  });

const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close().catch(() => {})));
});

function start(storage: StorageDriver, tools: Record<string, ToolDefinition>, extra: Partial<AgentHostOptions> = {}): AgentHost {
  const host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }], logger: quietLogger, ...extra }));
  hosts.push(host);
  return host;
}

function client(host: AgentHost) {
  const c = {
    async create(message: string): Promise<{ sessionId: string; continuationToken: string }> {
      const response = await host.request(`${base}/v1/session`, postJson({ message }));
      expect(response.status).toBe(200);
      return (await response.json()) as { sessionId: string; continuationToken: string };
    },
    async follow(sessionId: string, continuationToken: string, message: string): Promise<void> {
      const response = await host.request(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message }));
      expect(response.status).toBe(200);
    },
    async events(sessionId: string): Promise<TestEvent[]> {
      const response = await host.request(`${base}/v1/session/${sessionId}/events`);
      expect(response.status).toBe(200);
      return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    },
    async pending(sessionId: string): Promise<string[]> {
      const response = await host.request(`${base}/v1/session/${sessionId}/approvals`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { approvals: Array<{ callId: string }> }).approvals.map((a) => a.callId);
    },
    resolve: (sessionId: string, callId: string, decision: string): Promise<Response> =>
      host.request(`${base}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision })),
    until: (sessionId: string, done: (events: TestEvent[]) => boolean, what: string): Promise<TestEvent[]> =>
      eventually(async () => {
        const all = await c.events(sessionId);
        return done(all) ? all : undefined;
      }, 10_000, what),
    async parked(sessionId: string): Promise<string> {
      const events = await c.until(sessionId, (all) => all.some((e) => e.type === "action.approval_requested"), "a parked call");
      return events.find((e) => e.type === "action.approval_requested")!.data["callId"] as string;
    },
    /** Waits for the `n`th `session.waiting`. */
    settled: (sessionId: string, n = 1): Promise<TestEvent[]> =>
      c.until(sessionId, (all) => all.filter((e) => e.type === "session.waiting").length >= n, `session.waiting #${n}`),
  };
  return c;
}

const toolLine = (name: string, input: unknown): string => `/tool ${name} ${JSON.stringify(input)}`;
const versions = (events: TestEvent[]): unknown[] => events.filter((e) => e.type === "turn.started").map((e) => e.data["agentVersion"]);

/** Parks `danger {what: "prod"}` on a host of the first version, then cuts that host off. */
async function parkOnV1(storage: StorageDriver, also: Record<string, ToolDefinition> = {}, line = toolLine("danger", { what: "prod" })) {
  const first = severable(storage);
  const v1 = client(start(first.driver, { danger: dangerV1(), ...also }));
  const { sessionId, continuationToken } = await v1.create(`${line}\n/reply carried on`);
  const callId = await v1.parked(sessionId);
  const parked = await v1.events(sessionId);
  first.sever();
  return { sessionId, continuationToken, callId, parked };
}

describe("the agent version in turn.started", () => {
  it("is a content hash: the same for an equal definition, another when a tool's schema, gate or description changes", async () => {
    const of = (tools: Record<string, ToolDefinition>, instructions = "You are a test agent.") => agentVersion(project({ tools, instructions }));
    const first = await of({ danger: dangerV1() });
    expect(first).toMatch(/^av_[0-9a-f]{16}$/);
    // Built afresh (as a restart imports the files again): the same version.
    expect(await of({ danger: dangerV1() })).toBe(first);
    const changed = [
      await of({ danger: dangerRenamedField() }),
      await of({ danger: dangerCompatible(true) }),
      await of({ danger: { ...dangerV1(), needsApproval: false } }),
      await of({ danger: { ...dangerV1(), description: "Deletes other things" } }),
      await of({ danger: dangerV1(), extra: { description: "More", execute: () => "x" } }),
      await of({ danger: dangerV1() }, "Other instructions."),
    ];
    expect(new Set([first, ...changed]).size).toBe(changed.length + 1);
    // Where kv keeps its data is not the agent's behaviour (and a driver is a live object).
    const withKv = (calls: number) => agentVersion(project({ tools: { danger: dangerV1() }, agent: { kv: { driver: { name: "live", calls } as never } } }));
    expect(await withKv(1)).toBe(first);
    expect(await withKv(2)).toBe(first);
    // A schema that cannot describe itself is known by its validator's source.
    const custom = (check: string) => ({
      description: "Custom",
      inputSchema: { "~standard": { version: 1, vendor: "test", validate: new Function("value", check) as (value: unknown) => { value: unknown } } },
    });
    expect(await of({ custom: custom("return { value }") })).toBe(await of({ custom: custom("return { value }") }));
    expect(await of({ custom: custom("return { value }") })).not.toBe(await of({ custom: custom("return { issues: [] }") }));
  });

  it("every turn.started of a host records its version; a host on a changed definition records the new one", async () => {
    const storage = createMemoryStorage();
    const one = client(start(storage, { danger: dangerV1() }));
    const { sessionId, continuationToken } = await one.create("/reply one");
    await one.settled(sessionId);
    await one.follow(sessionId, continuationToken, "/reply two");
    const events = await one.settled(sessionId, 2);
    const expected = await agentVersion(project({ tools: { danger: dangerV1() } }));
    expect(versions(events)).toEqual([expected, expected]);
    // The serving version is in /v1/info, to check what a deploy is running.
    expect(((await (await hosts.at(-1)!.request(`${base}/v1/info`)).json()) as { agentVersion: string }).agentVersion).toBe(expected);
    await hosts.pop()!.close();

    // Same store, the tool redeployed: the session continues, its next turn on the new version.
    const next = client(start(storage, { danger: dangerRenamedField() }));
    const created = await next.create("/reply three");
    const renamed = await agentVersion(project({ tools: { danger: dangerRenamedField() } }));
    expect(versions(await next.settled(created.sessionId))).toEqual([renamed]);
    expect(renamed).not.toBe(expected);
  });
});

describe("a call parked before a deploy that changed its tool", () => {
  it("whose input the new schema refuses ends with an action.result error, never runs, and the session continues on the new version", async () => {
    const storage = createMemoryStorage();
    const { sessionId, continuationToken, callId, parked } = await parkOnV1(storage);
    const v1 = versions(parked)[0];

    const v2 = client(start(storage, { danger: dangerRenamedField() }));
    // Recovery resumes the parked turn on the new tools: the call is re-validated before anything runs.
    const events = await v2.settled(sessionId);
    const tail = events.slice(parked.length);
    const result = tail.find((e) => e.type === "action.result")!;
    expect(result.data).toEqual({ toolCallId: callId, toolName: "danger", isError: true, output: expect.stringContaining("definition changed") });
    expect(result.data["output"]).toMatch(/no longer validates against the new schema of danger/);
    expect(tail.map((e) => e.type)).not.toContain("action.approval_resolved");
    expect(tail.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("carried on");
    expect(tail.slice(-2).map((e) => e.type)).toEqual(["turn.completed", "session.waiting"]);
    expect(runs).toEqual([]);
    // The call is closed: nothing is listed, and a late decision is told so.
    expect(await v2.pending(sessionId)).toEqual([]);
    expect((await v2.resolve(sessionId, callId, "approve")).status).toBe(409);
    expect(runs).toEqual([]);

    // The next turn runs on the new version.
    await v2.follow(sessionId, continuationToken, toolLine("danger", { target: "staging" }));
    const callId2 = await eventually(async () => {
      const all = await v2.events(sessionId);
      return all.filter((e) => e.type === "action.approval_requested").at(1)?.data["callId"] as string | undefined;
    }, 10_000, "the second call parked");
    expect((await v2.resolve(sessionId, callId2, "approve")).status).toBe(200);
    const after = await v2.settled(sessionId, 2);
    expect(runs).toEqual(["v2:staging"]);
    const [first, second] = versions(after);
    expect(first).toBe(v1);
    expect(second).toBe(await agentVersion(project({ tools: { danger: dangerRenamedField() } })));
    expect(second).not.toBe(first);
  });

  it("whose tool is gone ends with an action.result error naming it", async () => {
    const storage = createMemoryStorage();
    const { sessionId, callId, parked } = await parkOnV1(storage);
    const v2 = client(start(storage, {}));
    const events = await v2.settled(sessionId);
    const result = events.slice(parked.length).find((e) => e.type === "action.result")!;
    expect(result.data).toEqual({
      toolCallId: callId,
      toolName: "danger",
      isError: true,
      output: "not run: the agent's definition changed while this call waited for approval, and the tool danger no longer exists",
    });
    expect(await v2.pending(sessionId)).toEqual([]);
    expect(runs).toEqual([]);
  });

  it("whose tool now runs as an agent tool (which takes no approval) does not run either", async () => {
    const storage = createMemoryStorage();
    const { sessionId, callId, parked } = await parkOnV1(storage);
    const v2 = client(start(storage, { danger: { description: "Deletes things in the workspace", execution: "agent", script: "echo deleted" } }));
    const result = (await v2.settled(sessionId)).slice(parked.length).find((e) => e.type === "action.result")!;
    expect(result.data).toEqual({
      toolCallId: callId,
      toolName: "danger",
      isError: true,
      output: "not run: the agent's definition changed while this call waited for approval, and danger now runs as an agent tool, which takes no approval",
    });
  });

  it("approved before the restart: the approval is recorded, the stale call still does not run; a denial reads as denied", async () => {
    for (const decision of ["approve", "deny"] as const) {
      runs = [];
      const storage = createMemoryStorage();
      const { sessionId, callId, parked } = await parkOnV1(storage);
      // Decided while no process runs the turn: the record holds the decision for the next start.
      expect(await new ApprovalStore(storage, Date.now).resolve(sessionId, callId, decision)).toBe("resolved");
      const v2 = client(start(storage, { danger: dangerRenamedField() }));
      const tail = (await v2.settled(sessionId)).slice(parked.length);
      expect(tail.filter((e) => e.type.startsWith("action.")).map((e) => [e.type, e.data])).toEqual([
        ["action.approval_resolved", { callId, decision }],
        [
          "action.result",
          {
            toolCallId: callId,
            toolName: "danger",
            isError: true,
            output: decision === "deny" ? "denied" : expect.stringContaining("the agent's definition changed while this call waited for approval"),
          },
        ],
      ]);
      expect(runs).toEqual([]);
    }
  });

  it("that still fits waits for its decision and runs the new body, even when the new tool no longer asks for approval", async () => {
    for (const gated of [true, false]) {
      runs = [];
      const storage = createMemoryStorage();
      const { sessionId, callId, parked } = await parkOnV1(storage);
      const v2 = client(start(storage, { danger: dangerCompatible(gated) }));
      // Resumed and waiting, not run: a human was asked.
      expect(await v2.pending(sessionId)).toEqual([callId]);
      expect(runs).toEqual([]);
      expect((await v2.resolve(sessionId, callId, "approve")).status).toBe(200);
      const tail = (await v2.settled(sessionId)).slice(parked.length);
      expect(tail.find((e) => e.type === "action.result")!.data).toEqual({ toolCallId: callId, toolName: "danger", output: "deleted prod (v2)", isError: false });
      expect(runs).toEqual(["v2:prod"]);
    }
  });
});
