/**
 * Subagents (`bot/subagents/<id>/`) and the `task` tool: loading and its diagnostics,
 * a nested model loop with the subagent's own instructions, model and toolset, and the
 * `subagent.called` / `subagent.completed` events on the parent's stream.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createHost } from "../src/host/host.ts";
import type { ModelSpec } from "../src/base/ports/model.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { createScriptedModel } from "../src/testing.ts";
import type { HostUnderTest } from "./_harness.ts";
import { quietLogger } from "./_harness.ts";
import { results, toolLine, turn, writeProject } from "./_workspace.ts";

const base = "/sub";
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

const agentTs = (config: string): string => `import { defineAgent } from "agent-serve";\nexport default defineAgent(${config});\n`;

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "parent", type: "module" }),
  "bot/agent.ts": agentTs(`{ model: "scripted" }`),
  "bot/instructions.md": "You are the parent.\n",
  "bot/subagents/researcher/agent.ts": agentTs(`{ description: "Finds things in the workspace", tools: ["read", "grep"] }`),
  "bot/subagents/researcher/instructions.md": "You research.\n",
  "bot/subagents/builder/agent.ts": agentTs(`{ description: "Builds things", model: "openai/gpt-test", instructions: "You build." }`),
};

describe("subagents", () => {
  async function start(): Promise<{ target: HostUnderTest; stateRoot: string; resolved: string[]; systems: string[]; close: () => Promise<void> }> {
    const root = writeProject(FILES);
    const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-sub-state-"));
    cleanup.push(root, stateRoot);
    const loaded = await loadProject(root);
    expect(loaded.diagnostics).toEqual([]);
    const resolved: string[] = [];
    const systems: string[] = [];
    const host = createHost({
      agents: [{ slug: "sub", project: loaded, storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }],
      logger: quietLogger,
      drainTimeoutMs: 50,
      models: {
        resolve: (spec: ModelSpec) => {
          resolved.push(spec.id);
          const inner = createScriptedModel();
          return { id: spec.id, stream: (request) => (systems.push(request.system), inner.stream(request)) };
        },
      },
    });
    return { target: { kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) }, stateRoot, resolved, systems, close: () => host.close() };
  }

  it("task runs the subagent's own loop with its instructions and toolset, and records subagent.called / subagent.completed", async () => {
    const { target, stateRoot, resolved, systems, close } = await start();
    try {
      const inner = [toolLine("read", { path: "notes.md" }), toolLine("shell", { command: "touch from-researcher" }), toolLine("task", { subagent: "builder", prompt: "nested" }), "/reply found: the notes"].join("\n");
      const script = [
        toolLine("edit", { path: "notes.md", newText: "the notes\n" }),
        toolLine("task", { subagent: "researcher", prompt: inner }),
        toolLine("task", { subagent: "builder", prompt: `${toolLine("shell", { command: "touch from-builder" })}\n/reply built` }),
        toolLine("task", { subagent: "nobody", prompt: "hi" }),
        "/reply delegated",
      ].join("\n");
      const { sessionId, events } = await turn(target, base, script);
      const turnId = events.find((e) => e.type === "turn.started")!.turnId;
      const sub = events.filter((e) => e.type === "subagent.called" || e.type === "subagent.completed");
      expect(sub.map((e) => [e.type, e.data["subagent"]])).toEqual([
        ["subagent.called", "researcher"],
        ["subagent.completed", "researcher"],
        ["subagent.called", "builder"],
        ["subagent.completed", "builder"],
      ]);
      expect(sub.every((e) => e.turnId === turnId)).toBe(true);
      expect(sub[0]!.data).toEqual({ subagent: "researcher", prompt: inner });
      expect(sub[1]!.data).toMatchObject({ subagent: "researcher", isError: false, result: "found: the notes" });
      expect(sub[1]!.data["usage"]).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
      expect(sub[3]!.data).toMatchObject({ subagent: "builder", isError: false, result: "built" });
      // Subagents spend tokens of their own, on their own model; the cost report lists them and counts them in.
      const cost = (await (await target.fetch(`${base}/v1/session/${sessionId}/cost`)).json()) as {
        totals: { inputTokens: number; outputTokens: number };
        turns: Array<{ usage: { inputTokens: number; outputTokens: number } }>;
        subagents: Array<{ turnId: string; subagent: string; model: string; usage: { inputTokens: number } }>;
      };
      expect(cost.subagents.map((run) => [run.subagent, run.turnId, run.model])).toEqual([
        ["researcher", turnId, "scripted"],
        ["builder", turnId, "openai/gpt-test"],
      ]);
      expect(cost.subagents[0]!.usage).toEqual(sub[1]!.data["usage"]);
      const spent = [...cost.turns, ...cost.subagents].reduce((sum, row) => sum + row.usage.inputTokens, 0);
      expect(cost.totals.inputTokens).toBe(spent);
      expect(cost.totals.inputTokens).toBeGreaterThan(cost.turns[0]!.usage.inputTokens);

      const out = results(events);
      expect(out.map((r) => [r["toolName"], r["isError"]])).toEqual([
        ["edit", false],
        ["task", false],
        ["task", false],
        ["task", true],
      ]);
      expect(out[1]!["output"]).toBe("found: the notes");
      expect(out[3]!["output"]).toBe("task: no subagent \"nobody\"; known: builder, researcher");

      // The researcher's allowlist has no shell, and subagents never start subagents.
      const dir = join(stateRoot, "workspaces", sessionId);
      expect(existsSync(join(dir, "from-researcher"))).toBe(false);
      expect(existsSync(join(dir, "from-builder"))).toBe(true);
      // The researcher inherits the parent's model; the builder resolves its own.
      expect(resolved).toEqual(["scripted", "openai/gpt-test"]);
      expect(systems).toContain("You research.");
      expect(systems).toContain("You build.");
      // The inner steps are not the parent's: only the parent's own messages are on the stream.
      expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("delegated");
      expect(events.filter((e) => e.type === "step.started")).toHaveLength(5);
    } finally {
      await close();
    }
  });

  it("a failing subagent completes with isError and the parent's turn goes on", async () => {
    const { target, close } = await start();
    try {
      const { events } = await turn(target, base, [toolLine("task", { subagent: "researcher", prompt: "/fail the index is gone" }), "/reply recovered"].join("\n"));
      const completed = events.find((e) => e.type === "subagent.completed")!;
      expect(completed.data).toEqual({ subagent: "researcher", isError: true, error: "the index is gone" });
      expect(results(events)[0]).toMatchObject({ toolName: "task", isError: true, output: "the subagent failed: the index is gone" });
      expect(events.some((e) => e.type === "turn.completed")).toBe(true);
    } finally {
      await close();
    }
  });

  it("loading: a description is required; agent.ts is required; capability folders are ignored with a warning", async () => {
    const root = writeProject({
      "bot/instructions.md": "x",
      "bot/subagents/nodesc/agent.ts": agentTs(`{ model: "scripted" }`),
      "bot/subagents/noagent/instructions.md": "x",
      "bot/subagents/badmodel/agent.ts": agentTs(`{ description: "d", model: "gpt-5-high" }`),
      "bot/subagents/ok/agent.ts": agentTs(`{ description: "fine" }`),
      "bot/subagents/ok/tools/x.ts": "export default {};\n",
    });
    cleanup.push(root);
    const loaded = await loadProject(root);
    const byCode = (code: string) => loaded.diagnostics.filter((d) => d.code === code);
    expect(byCode("missing_subagent_description")).toMatchObject([{ severity: "error", file: "bot/subagents/nodesc/agent.ts" }]);
    expect(byCode("missing_subagent_agent")).toMatchObject([{ severity: "error", file: "bot/subagents/noagent/" }]);
    expect(byCode("invalid_model")).toMatchObject([{ severity: "error", file: "bot/subagents/badmodel/agent.ts" }]);
    expect(byCode("subagent_capability_ignored")).toMatchObject([{ severity: "warning", file: "bot/subagents/ok/tools/" }]);
    expect(Object.keys(loaded.subagents ?? {})).toEqual(["ok"]);
    expect(loaded.subagents?.["ok"]).toEqual({ description: "fine", instructions: "" });
  });
});
