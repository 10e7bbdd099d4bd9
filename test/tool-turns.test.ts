/**
 * Tool calls inside model turns (scripted `/tool` lines), in-process and over a real loopback
 * server: event pairing, the execution context, error results, validation, agent tools on the
 * local runtime, and multi-step order.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterAll, beforeEach, expect, it } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/entries/tools.ts";
import { type TestEvent, allEvents, describeHost, eventually, helloOptions, postJson, project } from "./_harness.ts";

const base = "/hello";
const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-tool-turns-"));
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));

/** What tool bodies did, in order. */
let runs: string[] = [];
beforeEach(() => {
  runs = [];
});

const tools: Record<string, ToolDefinition> = {
  probe: defineTool({
    description: "Reports its execution context",
    execute(_input, ctx) {
      const session = ctx.session!;
      let mutation = "allowed";
      try {
        (session as { id: string }).id = "ses_hijacked";
      } catch {
        mutation = "refused";
      }
      return {
        toolCallId: ctx.toolCallId,
        session,
        frozen: Object.isFrozen(session) && Object.isFrozen(session.auth),
        mutation,
        workspaceDir: ctx.workspaceDir,
        stateRoot: ctx.stateRoot,
        aborted: ctx.signal.aborted,
      };
    },
  }),
  step: defineTool({
    description: "Records its tag",
    inputSchema: v.object({ tag: v.string() }),
    execute(input, ctx) {
      runs.push(input.tag);
      return { tag: input.tag, toolCallId: ctx.toolCallId };
    },
  }),
  relay: defineTool({
    description: "Starts a session on another channel and looks sessions up",
    inputSchema: v.object({ message: v.string(), thread: v.string() }),
    async execute(input, ctx) {
      const sent = await ctx.send("chat", input.message, { continuationToken: input.thread });
      const own = ctx.session!.id;
      return {
        sent,
        found: await ctx.getSession("chat", sent.sessionId),
        wrongChannel: await ctx.getSession("http", sent.sessionId),
        self: await ctx.getSession("http", own),
        selfOnChat: await ctx.getSession("chat", own),
        unknown: await ctx.getSession("chat", "ses_doesnotexist"),
      };
    },
  }),
  tagger: defineTool({
    description: "Tags an artifact for this session",
    inputSchema: v.object({ key: v.string() }),
    async execute(input, ctx) {
      const record = await ctx.artifacts.tag({ kind: "note", key: input.key, title: "A note", data: { n: 1 }, contents: "note body" });
      const listed = await ctx.artifacts.list({ sessionId: ctx.session!.id });
      return { id: record.id, sessionId: record.sessionId, turnId: record.turnId ?? null, source: record.source, listed: listed.map((r) => r.id) };
    },
  }),
  boom: defineTool({
    description: "Throws",
    execute() {
      runs.push("boom");
      throw new Error("kaput");
    },
  }),
  weather: defineTool({
    description: "Weather for a city",
    inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(1)), days: v.optional(v.pipe(v.string(), v.transform(Number)), "3") }),
    execute(input) {
      runs.push(`weather:${input.city}:${typeof input.days}`);
      return { city: input.city, days: input.days };
    },
  }),
  plant: defineTool({
    description: "Writes seed.txt into the session workspace",
    inputSchema: v.object({ text: v.string() }),
    execute(input, ctx) {
      writeFileSync(join(ctx.workspaceDir!, "seed.txt"), input.text);
      return "planted";
    },
  }),
  agent_echo: defineTool({
    description: "Echoes its stdin and working directory",
    execution: "agent",
    inputSchema: v.object({ n: v.pipe(v.string(), v.transform(Number)) }),
    script: `input=$(cat); printf '{"cwd":"%s","stdin":%s}' "$(pwd -P)" "$input"`,
  }),
  agent_read: defineTool({ description: "Reads seed.txt from the workspace", execution: "agent", script: "cat seed.txt" }),
  agent_fail: defineTool({ description: "Fails", execution: "agent", script: "cat >/dev/null; echo oops >&2; exit 3" }),
};

const toolLine = (name: string, input: unknown): string => `/tool ${name} ${JSON.stringify(input)}`;

describeHost(
  "tool calls in turns",
  () =>
    helloOptions({
      agents: [{ slug: "hello", project: project({ tools }), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }],
      dev: true,
    }),
  (target) => {
    async function turn(message: string): Promise<{ sessionId: string; events: TestEvent[] }> {
      const response = await target().fetch(`${base}/v1/session`, postJson({ message }));
      expect(response.status).toBe(200);
      const { sessionId } = (await response.json()) as { sessionId: string };
      return { sessionId, events: await settled(sessionId) };
    }

    const settled = (sessionId: string): Promise<TestEvent[]> =>
      eventually(async () => {
        const all = await allEvents(target(), base, sessionId);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      }, 5000, `session.waiting on ${sessionId}`);

    const results = (events: TestEvent[]) => events.filter((e) => e.type === "action.result");
    const finalText = (events: TestEvent[]) => events.filter((e) => e.type === "message.completed").at(-1)!.data["text"];

    it("pairs actions.requested and action.result by toolCallId, which the tool sees as ctx.toolCallId", async () => {
      const { sessionId, events } = await turn(toolLine("probe", {}));
      const turnId = events.find((e) => e.type === "turn.started")!.turnId;
      const requested = events.filter((e) => e.type === "actions.requested");
      expect(requested).toHaveLength(1);
      const action = (requested[0]!.data["actions"] as Array<{ toolCallId: string; toolName: string; input: unknown }>)[0]!;
      expect(action).toEqual({ toolCallId: expect.any(String), toolName: "probe", input: {} });
      const [result] = results(events);
      expect(result!.data).toMatchObject({ toolCallId: action.toolCallId, toolName: "probe", isError: false });
      expect(requested[0]!.turnId).toBe(turnId);
      expect(result!.turnId).toBe(turnId);
      expect(result!.index).toBeGreaterThan(requested[0]!.index);

      const output = result!.data["output"] as Record<string, unknown>;
      expect(output["toolCallId"]).toBe(action.toolCallId);
      expect(output["session"]).toEqual({ id: sessionId, channel: "http", mode: "chat", auth: expect.objectContaining({ principalId: "local" }) });
      expect(output["frozen"]).toBe(true);
      expect(output["mutation"]).toBe("refused");
      expect(output["workspaceDir"]).toBe(join(stateRoot, "workspaces", sessionId));
      expect(output["stateRoot"]).toBe(stateRoot);
      expect(output["aborted"]).toBe(false);
      expect(finalText(events)).toBe("done");
      expect(events.some((e) => e.type === "turn.completed")).toBe(true);
    });

    it("runs several /tool lines as steps, in order, each result paired with its request", async () => {
      const { events } = await turn([toolLine("step", { tag: "a" }), toolLine("step", { tag: "b" }), toolLine("step", { tag: "c" })].join("\n"));
      expect(runs).toEqual(["a", "b", "c"]);
      const actionEvents = events.filter((e) => e.type === "actions.requested" || e.type === "action.result");
      expect(actionEvents.map((e) => e.type)).toEqual(["actions.requested", "action.result", "actions.requested", "action.result", "actions.requested", "action.result"]);
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const request = (actionEvents[2 * i]!.data["actions"] as Array<{ toolCallId: string; input: unknown }>)[0]!;
        const result = actionEvents[2 * i + 1]!.data;
        expect(request.input).toEqual({ tag: ["a", "b", "c"][i] });
        expect(result["toolCallId"]).toBe(request.toolCallId);
        expect(result["output"]).toEqual({ tag: ["a", "b", "c"][i], toolCallId: request.toolCallId });
        ids.add(request.toolCallId);
      }
      expect(ids.size).toBe(3);
      // One model step per tool call, then the answer.
      expect(events.filter((e) => e.type === "step.started")).toHaveLength(4);
      expect(events.filter((e) => e.type === "message.completed").map((e) => e.data["finishReason"])).toEqual(["tool_call", "tool_call", "tool_call", "stop"]);
      expect(finalText(events)).toBe("done");
      expect(new Set(events.filter((e) => e.turnId).map((e) => e.turnId)).size).toBe(1);
    });

    it("ctx.send starts a session on another channel; ctx.getSession finds sessions by channel", async () => {
      const { sessionId, events } = await turn(toolLine("relay", { message: "hello from a tool", thread: "thread-1" }));
      const output = results(events)[0]!.data["output"] as Record<string, Record<string, unknown> | null>;
      expect(results(events)[0]!.data["isError"]).toBe(false);
      const sent = output["sent"]!;
      expect(sent).toEqual({ sessionId: expect.stringMatching(/^ses_/), continuationToken: "thread-1", created: true });
      expect(sent["sessionId"]).not.toBe(sessionId);
      expect(output["found"]).toMatchObject({ sessionId: sent["sessionId"], channel: "chat", mode: "chat" });
      expect(output["wrongChannel"]).toBeNull();
      expect(output["self"]).toMatchObject({ sessionId, channel: "http", status: "running" });
      expect(output["selfOnChat"]).toBeNull();
      expect(output["unknown"]).toBeNull();

      const other = await settled(sent["sessionId"] as string);
      expect(other[0]).toMatchObject({ type: "session.started", data: { channel: "chat", mode: "chat" } });
      expect(other.find((e) => e.type === "message.received")!.data["text"]).toBe("hello from a tool");
      expect(finalText(other)).toBe("echo: hello from a tool");
      // The key keeps pointing at that session: a second send continues it.
      const again = await target().host.send("second", { channel: "chat", continuationToken: "thread-1" });
      expect(again).toMatchObject({ sessionId: sent["sessionId"], created: false });
    });

    it("ctx.artifacts is bound to the session and turn", async () => {
      const { sessionId, events } = await turn(toolLine("tagger", { key: "k1" }));
      const turnId = events.find((e) => e.type === "turn.started")!.turnId;
      const output = results(events)[0]!.data["output"] as Record<string, unknown>;
      expect(output).toMatchObject({ sessionId, turnId, source: "host" });
      expect(output["listed"]).toEqual([output["id"]]);
      const tagged = events.find((e) => e.type === "artifact.tagged")!;
      expect(tagged.turnId).toBe(turnId);
      expect(tagged.data["artifact"]).toMatchObject({ id: output["id"], kind: "note", key: "k1", source: "host" });
      // The tag lands between the call and its result.
      expect(tagged.index).toBeGreaterThan(events.find((e) => e.type === "actions.requested")!.index);
      expect(tagged.index).toBeLessThan(results(events)[0]!.index);
    });

    it("a throwing tool is an error result and the turn continues to done", async () => {
      const { events } = await turn(`${toolLine("boom", {})}\n${toolLine("step", { tag: "after" })}`);
      const [failed, next] = results(events);
      expect(failed!.data).toMatchObject({ toolName: "boom", isError: true, output: { content: [{ type: "text", text: "kaput" }] } });
      expect(next!.data).toMatchObject({ toolName: "step", isError: false });
      expect(runs).toEqual(["boom", "after"]);
      expect(finalText(events)).toBe("done");
      expect(events.map((e) => e.type).slice(-2)).toEqual(["turn.completed", "session.waiting"]);
      expect(events.some((e) => e.type === "turn.failed")).toBe(false);
    });

    it("model-supplied invalid input is an error result and the body does not run; valid input is transformed", async () => {
      const { events } = await turn(
        [toolLine("weather", { city: "" }), toolLine("weather", { town: "Oslo" }), toolLine("weather", { city: "Oslo", days: "4" }), toolLine("nosuch", {})].join("\n"),
      );
      const [empty, missing, valid, unknown] = results(events);
      expect(empty!.data).toMatchObject({ toolName: "weather", isError: true });
      expect(String(empty!.data["output"])).toMatch(/city/);
      expect(missing!.data).toMatchObject({ toolName: "weather", isError: true });
      expect(valid!.data).toMatchObject({ isError: false, output: { city: "Oslo", days: 4 } });
      // actions.requested records validated arguments (docs/guide/http-api.md "Events"); invalid ones as the model sent them.
      const requested = events.filter((e) => e.type === "actions.requested").map((e) => (e.data["actions"] as Array<{ input: unknown }>)[0]!.input);
      expect(requested).toEqual([{ city: "" }, { town: "Oslo" }, { city: "Oslo", days: 4 }, {}]);
      expect(unknown!.data).toMatchObject({ toolName: "nosuch", isError: true, output: "unknown tool: nosuch" });
      expect(runs).toEqual(["weather:Oslo:number"]);
      expect(finalText(events)).toBe("done");
      expect(events.some((e) => e.type === "turn.completed")).toBe(true);
    });

    it("agent tools run their script in the session workspace through the local runtime, input on stdin", async () => {
      const { sessionId, events } = await turn(
        [toolLine("agent_echo", { n: "5" }), toolLine("plant", { text: "seeded by a server tool" }), toolLine("agent_read", {}), toolLine("agent_fail", {}), toolLine("agent_echo", { n: 5 })].join("\n"),
      );
      const [echo, planted, read, failed, invalid] = results(events);
      const workspace = realpathSync(join(stateRoot, "workspaces", sessionId));
      // stdout that parses as JSON is the JSON result; the script got the validated, transformed input.
      expect(echo!.data).toMatchObject({ toolName: "agent_echo", isError: false, output: { cwd: workspace, stdin: { n: 5 } } });
      expect(planted!.data).toMatchObject({ isError: false, output: "planted" });
      expect(read!.data).toMatchObject({ toolName: "agent_read", isError: false, output: "seeded by a server tool" });
      expect(failed!.data).toMatchObject({ toolName: "agent_fail", isError: true });
      expect(JSON.stringify(failed!.data["output"])).toContain("the script exited with code 3: oops");
      expect(invalid!.data).toMatchObject({ toolName: "agent_echo", isError: true });
      expect(readFileSync(join(workspace, "seed.txt"), "utf8")).toBe("seeded by a server tool");
      expect(finalText(events)).toBe("done");
    });
  },
);
