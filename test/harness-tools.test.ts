/**
 * The harness tools in scripted turns on the local runtime: each tool's effect on the
 * session workspace, the event pairing, path escapes refused, and the allowlist rules.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { type HostUnderTest, allEvents, describeHost, eventually, helloOptions, project, quietLogger } from "./_harness.ts";
import { recordingModel, results, settled, toolLine, turn } from "./_workspace.ts";

const base = "/hello";
const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-harness-"));
afterAll(() => rmSync(stateRoot, { recursive: true, force: true }));
const workspaceOf = (sessionId: string): string => join(stateRoot, "workspaces", sessionId);

describeHost(
  "harness tools",
  () => helloOptions({ agents: [{ slug: "hello", project: project(), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }], dev: true }),
  (target) => {
    it("edit, read, shell (stdin, exit codes, timeout), grep, glob and ls work in the session workspace", async () => {
      const script = [
        toolLine("edit", { path: "notes/a.txt", newText: "alpha\nbeta\ngamma\n" }),
        toolLine("edit", { path: "notes/a.txt", oldText: "beta", newText: "BETA" }),
        toolLine("read", { path: "notes/a.txt", offset: 2, limit: 1 }),
        toolLine("read", { path: "notes/a.txt" }),
        toolLine("shell", { command: "cat > from-stdin.txt; wc -l < notes/a.txt", stdin: "piped" }),
        toolLine("grep", { pattern: "BET.", glob: "**/*.txt" }),
        toolLine("glob", { pattern: "**/*.txt" }),
        toolLine("ls", { path: "notes" }),
        toolLine("shell", { command: "echo partial; sleep 5", timeoutMs: 300 }),
        toolLine("shell", { command: "echo nope >&2; exit 3" }),
        toolLine("edit", { path: "notes/a.txt", oldText: "missing", newText: "x" }),
        "/reply finished",
      ].join("\n");
      const { sessionId, events } = await turn(target(), base, script);
      const out = results(events);
      expect(out.map((r) => r["toolName"])).toEqual(["edit", "edit", "read", "read", "shell", "grep", "glob", "ls", "shell", "shell", "edit"]);
      expect(out[0]).toMatchObject({ isError: false, output: "created notes/a.txt (17 bytes)" });
      expect(out[1]).toMatchObject({ isError: false, output: "edited notes/a.txt" });
      expect(out[2]).toMatchObject({ isError: false, output: "BETA\n[lines 2-2 of 3; read on with offset 3]" });
      expect(out[3]).toMatchObject({ isError: false, output: "alpha\nBETA\ngamma\n" });
      expect(out[4]).toMatchObject({ isError: false, output: { exitCode: 0, stdout: "3\n", stderr: "" } });
      expect(out[5]).toMatchObject({ isError: false, output: "notes/a.txt:2:BETA" });
      expect(out[6]).toMatchObject({ isError: false, output: "from-stdin.txt\nnotes/a.txt" });
      expect(out[7]).toMatchObject({ isError: false, output: "a.txt" });
      expect(out[8]).toMatchObject({ isError: true, output: { stdout: "partial\n", error: "the command timed out after 300 ms and was killed" } });
      expect(out[9]).toMatchObject({ isError: true, output: { exitCode: 3, stderr: "nope\n" } });
      expect(out[10]).toMatchObject({ isError: true, output: "oldText was not found in notes/a.txt" });
      expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("finished");

      // The workspace holds what the tools wrote.
      const dir = workspaceOf(sessionId);
      expect(readFileSync(join(dir, "notes/a.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
      expect(readFileSync(join(dir, "from-stdin.txt"), "utf8")).toBe("piped");
      // A workspace without skills or agent tools still gets AGENTS.md from the instructions.
      expect(readFileSync(join(dir, "AGENTS.md"), "utf8")).toContain("You are a test agent.");

      // Each harness call is paired by toolCallId, as any tool is.
      const requested = events.filter((e) => e.type === "actions.requested").flatMap((e) => e.data["actions"] as Array<{ toolCallId: string; toolName: string }>);
      expect(requested.map((a) => a.toolCallId)).toEqual(out.map((r) => r["toolCallId"]));
      expect(new Set(requested.map((a) => a.toolCallId)).size).toBe(out.length);
    });

    it("refuses paths that leave the workspace, lexically or through symlinks", async () => {
      const outside = mkdtempSync(join(tmpdir(), "agent-serve-outside-"));
      writeFileSync(join(outside, "secret.txt"), "top secret");
      try {
        const script = [
          toolLine("read", { path: "../../etc/passwd" }),
          toolLine("read", { path: "/etc/passwd" }),
          toolLine("edit", { path: "../escaped.txt", newText: "x" }),
          toolLine("shell", { command: `ln -s ${outside} out && ln -s ${join(outside, "secret.txt")} secret-link && ln -s ${join(outside, "new.txt")} dangling` }),
          toolLine("read", { path: "out/secret.txt" }),
          toolLine("read", { path: "secret-link" }),
          toolLine("edit", { path: "out/planted.txt", newText: "x" }),
          toolLine("edit", { path: "dangling", newText: "x" }),
          toolLine("ls", { path: "out" }),
          toolLine("grep", { pattern: "secret", path: "out" }),
          toolLine("grep", { pattern: "top secret" }),
          toolLine("glob", { pattern: "../*" }),
          toolLine("glob", { pattern: "**/secret*" }),
          "/reply ok",
        ].join("\n");
        const { sessionId, events } = await turn(target(), base, script);
        const out = results(events);
        expect(out).toHaveLength(13);
        for (const index of [0, 1, 2, 4, 5, 6, 7, 8, 9]) {
          expect(out[index]!["isError"], JSON.stringify(out[index])).toBe(true);
          expect(String(out[index]!["output"])).toMatch(/escapes the workspace/);
        }
        expect(out[3]).toMatchObject({ isError: false });
        // A workspace-wide search does not follow links out of the workspace.
        expect(out[10]).toMatchObject({ isError: false, output: expect.stringMatching(/^no matches/) });
        expect(out[11]).toMatchObject({ isError: true, output: "glob: the pattern must not contain .. segments" });
        expect(out[12]).toMatchObject({ isError: false, output: "no files match" });
        expect(existsSync(join(outside, "planted.txt"))).toBe(false);
        expect(existsSync(join(outside, "new.txt"))).toBe(false);
        expect(existsSync(join(stateRoot, "workspaces", "escaped.txt"))).toBe(false);
        expect(existsSync(join(workspaceOf(sessionId), "out"))).toBe(true);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });

    it("rejects model input that does not fit a harness tool", async () => {
      const script = [toolLine("read", {}), toolLine("shell", { command: "true", timeoutMs: -1 }), toolLine("grep", { pattern: "(" }), toolLine("edit", { path: "x", oldText: "", newText: "y" }), "/reply ok"].join("\n");
      const { events } = await turn(target(), base, script);
      const out = results(events);
      expect(out[0]).toMatchObject({ isError: true, output: "read: path must be a string" });
      expect(out[1]).toMatchObject({ isError: true, output: "shell: timeoutMs must be an integer of at least 1" });
      expect(out[2]).toMatchObject({ isError: true, output: expect.stringMatching(/^grep: invalid regular expression/) });
      expect(out[3]).toMatchObject({ isError: true, output: "edit: oldText must not be empty (omit it to write the whole file)" });
    });
  },
);

describe("grep with a catastrophic pattern", () => {
  it("is stopped at its time limit while the host keeps answering", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-serve-grep-"));
    const host = createHost(helloOptions({
      agents: [{ slug: "hello", project: project(), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot: root, grepTimeoutMs: 4000 }) }],
    }));
    const target: HostUnderTest = { kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) };
    try {
      const script = [toolLine("edit", { path: "big.txt", newText: `${"a".repeat(60)}!\n` }), toolLine("grep", { pattern: "^(a+)+$" }), "/reply ok"].join("\n");
      const response = await target.fetch(`${base}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: script }) });
      const { sessionId } = (await response.json()) as { sessionId: string };
      // Once grep runs, its worker backtracks while the event loop still serves requests promptly.
      await eventually(async () => {
        const all = await allEvents(target, base, sessionId);
        return all.some((e) => e.type === "actions.requested" && JSON.stringify(e.data).includes('"grep"')) ? true : undefined;
      });
      const started = Date.now();
      const health = await target.fetch("/v1/health");
      expect(health.status).toBe(200);
      // Well before grep's 4 s limit (a blocked event loop would answer only after it), with room for a loaded machine.
      expect(Date.now() - started).toBeLessThan(2000);
      const out = results(await settled(target, base, sessionId));
      expect(out[1]).toMatchObject({ toolName: "grep", isError: true, output: expect.stringMatching(/took longer than 4000 ms and was stopped/) });
    } finally {
      await host.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("tools allowlist", () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  async function run(agent: ProjectDefinition["agent"], message: string, extra: Partial<ProjectDefinition> = {}) {
    const root = mkdtempSync(join(tmpdir(), "agent-serve-allowlist-"));
    roots.push(root);
    const steps: Array<{ system: string; tools: string[] }> = [];
    const host = createHost({
      agents: [{ slug: "hello", project: project({ agent, ...extra }), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot: root }) }],
      logger: quietLogger,
      drainTimeoutMs: 50,
      models: { resolve: () => recordingModel(steps) },
    });
    const target: HostUnderTest = { kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) };
    try {
      const { events } = await turn(target, base, message);
      return { steps, events };
    } finally {
      await host.close();
    }
  }

  const agentTool = {
    probe_agent: defineTool({ description: "Prints hi", execution: "agent", script: "cat >/dev/null; echo '\"hi\"'" }),
    probe_server: defineTool({ description: "Server side", execute: () => "server" }),
  };

  it("unset offers every harness tool that applies; mcp and task need connections and subagents", async () => {
    const { steps } = await run({}, "/reply hi", { tools: agentTool });
    expect(steps[0]!.tools).toEqual(["probe_agent", "probe_server", "shell", "read", "edit", "grep", "glob", "ls"]);
    const withAll = await run({}, "/reply hi", {
      subagents: { helper: { description: "Helps", instructions: "Help." } },
      connections: { notes: { command: "true" } },
    });
    expect(withAll.steps[0]!.tools).toEqual(["shell", "read", "edit", "grep", "glob", "ls", "task", "mcp"]);
  });

  it("an empty list disables every harness tool (mcp is still added) and agent tools, which need shell", async () => {
    const { steps, events } = await run({ tools: [] }, [toolLine("shell", { command: "echo hi" }), toolLine("probe_agent", {}), toolLine("probe_server", {})].join("\n"), {
      tools: agentTool,
      connections: { notes: { command: "true" } },
    });
    expect(steps[0]!.tools).toEqual(["probe_server", "mcp"]);
    const out = results(events);
    expect(out[0]).toMatchObject({ toolName: "shell", isError: true, output: "unknown tool: shell" });
    expect(out[1]).toMatchObject({ toolName: "probe_agent", isError: true, output: "unknown tool: probe_agent" });
    expect(out[2]).toMatchObject({ toolName: "probe_server", isError: false, output: "server" });
  });

  it("a configured list offers exactly its tools; shell lets agent tools run", async () => {
    const { steps, events } = await run({ tools: ["shell", "read"] }, [toolLine("probe_agent", {}), toolLine("ls", {})].join("\n"), { tools: agentTool });
    expect(steps[0]!.tools).toEqual(["probe_agent", "probe_server", "shell", "read"]);
    const out = results(events);
    expect(out[0]).toMatchObject({ toolName: "probe_agent", isError: false, output: "hi" });
    expect(out[1]).toMatchObject({ toolName: "ls", isError: true, output: "unknown tool: ls" });
  });

  it("an unknown name fails the turn with a ConfigurationError before the model runs", async () => {
    const { steps, events } = await run({ tools: ["shell", "browser"] }, "/reply hi");
    expect(steps).toEqual([]);
    const failed = events.find((e) => e.type === "turn.failed");
    expect(failed?.data["message"]).toBe(
      'ConfigurationError: tools lists unknown harness tool "browser"; known names: shell, read, edit, grep, glob, ls, task, mcp',
    );
    expect(events.some((e) => e.type === "session.waiting")).toBe(true);
  });

  it("a cloud-runtime agent's turn on a host without runners fails with a clear message naming --runner", async () => {
    const { steps, events } = await run({ runtime: "cloud" }, "/reply hi");
    expect(steps).toEqual([]);
    expect(events.find((e) => e.type === "turn.failed")?.data["message"]).toMatch(/runs on the cloud runtime, and this host has no cloud runner: start agent-serve runner and serve with --runner/);
  });

  it("/v1/info reports the harness tools turns are offered", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-serve-allowlist-"));
    roots.push(root);
    const info = async (runtime: boolean, agent: ProjectDefinition["agent"]) => {
      const host = createHost({
        agents: [{ slug: "hello", project: project({ agent, connections: { notes: { command: "true" } } }), storage: createMemoryStorage(), ...(runtime ? { runtime: createLocalRuntime({ stateRoot: root }) } : {}) }],
        logger: quietLogger,
      });
      try {
        return ((await (await host.request("/hello/v1/info", {}, { ip: "127.0.0.1" })).json()) as { harness: unknown }).harness;
      } finally {
        await host.close();
      }
    };
    expect(await info(true, {})).toEqual({ runtime: "local", tools: ["shell", "read", "edit", "grep", "glob", "ls", "mcp"], sandbox: false });
    expect(await info(true, { tools: ["read"], local: { sandbox: true } })).toEqual({ runtime: "local", tools: ["read", "mcp"], sandbox: true });
    expect(await info(false, {})).toEqual({ runtime: "local", tools: [], sandbox: false });
    expect(await info(true, { runtime: "cloud" })).toEqual({ runtime: "cloud", tools: [], sandbox: false });
  });

  it("the skills index joins the system prompt when the model can read skill files", async () => {
    const skills = { deploy: { description: "Deploy checklist", markdown: "1. test" } };
    const readable = await run({ tools: ["read"] }, "/reply hi", { skills });
    expect(readable.steps[0]!.system).toContain("You are a test agent.");
    expect(readable.steps[0]!.system).toContain("- `deploy`: Deploy checklist");
    const blind = await run({ tools: ["grep"] }, "/reply hi", { skills });
    expect(blind.steps[0]!.system).toBe("You are a test agent.");
  });
});
