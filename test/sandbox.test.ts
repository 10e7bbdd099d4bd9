/**
 * `local.sandbox: true`: shell commands and agent-tool scripts run under bubblewrap,
 * confined to the workspace; without a working sandbox they are refused, never run unsandboxed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import { probeSandbox } from "../loader/workspace/sandbox.ts";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { type HostUnderTest, eventually, project, quietLogger } from "./_harness.ts";
import { results, toolLine, turn } from "./_workspace.ts";

const base = "/box";
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

const sandboxed: Partial<ProjectDefinition> = {
  agent: { local: { sandbox: true } },
  tools: { whoami_agent: defineTool({ description: "Reports its view", execution: "agent", script: `cat >/dev/null; echo "[$(ls / | sed 's/.*/"&"/' | paste -sd, -)]"` }) },
};

async function withHost<T>(sandboxCommand: string, work: (target: HostUnderTest, stateRoot: string) => Promise<T>): Promise<T> {
  const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-box-"));
  cleanup.push(stateRoot);
  const host = createHost({
    agents: [{ slug: "box", project: project(sandboxed), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot, sandboxCommand }) }],
    logger: quietLogger,
    drainTimeoutMs: 50,
  });
  try {
    return await work({ kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) }, stateRoot);
  } finally {
    await host.close();
  }
}

const probe = await probeSandbox("bwrap");
const reason = probe.ok ? "" : probe.reason;

describe("local.sandbox with bubblewrap", () => {
  it.skipIf(!probe.ok)(`confines shell commands and agent tools to the workspace${probe.ok ? "" : ` (skipped: bubblewrap is not usable here: ${reason})`}`, async () => {
    await withHost("bwrap", async (target, stateRoot) => {
      process.env["AGENT_SERVE_TEST_SECRET"] = "leaked";
      const secret = join(stateRoot, "secret.txt");
      writeFileSync(secret, "host secret");
      const outside = join(tmpdir(), `agent-serve-box-escape-${process.pid}`);
      const script = [
        toolLine("shell", { command: "echo inside > made.txt && cat made.txt && pwd" }),
        toolLine("shell", { command: `cat ${secret}` }),
        toolLine("shell", { command: `touch ${outside}` }),
        toolLine("shell", { command: "touch /usr/planted" }),
        toolLine("shell", { command: "echo $HOME; echo ${AGENT_SERVE_TEST_SECRET:-unset}" }),
        toolLine("whoami_agent", {}),
        "/reply ok",
      ].join("\n");
      const { sessionId, events } = await turn(target, base, script);
      const out = results(events);
      const dir = join(stateRoot, "workspaces", sessionId);
      expect(out[0]).toMatchObject({ isError: false, output: { exitCode: 0, stdout: `inside\n${dir}\n` } });
      expect(existsSync(join(dir, "made.txt"))).toBe(true);
      // The state root around the workspace is not visible, /tmp is private, the system is read-only.
      expect(out[1]).toMatchObject({ isError: true, output: { stderr: expect.stringMatching(/No such file or directory/) } });
      expect(out[2]).toMatchObject({ isError: false });
      expect(existsSync(outside)).toBe(false);
      expect(out[3]).toMatchObject({ isError: true, output: { stderr: expect.stringMatching(/Read-only file system/) } });
      // A clean environment: HOME is the workspace and no host variable leaks in.
      expect(out[4]).toMatchObject({ isError: false, output: { stdout: `${dir}\nunset\n` } });
      // Agent-tool scripts run in the same sandbox: the host's home and state root are absent.
      expect(out[5]).toMatchObject({ toolName: "whoami_agent", isError: false });
      const root = out[5]!["output"] as string[];
      expect(root).toContain("usr");
      expect(root).not.toContain("root");
      expect(root).not.toContain("home");
    }).finally(() => delete process.env["AGENT_SERVE_TEST_SECRET"]);
  });
});

describe("local.sandbox timeouts", () => {
  it.skipIf(!probe.ok)(`a timed-out sandboxed command is killed, sandbox and all${probe.ok ? "" : ` (skipped: bubblewrap is not usable here: ${reason})`}`, async () => {
    await withHost("bwrap", async (target) => {
      const token = `${31 + (process.pid % 1000) / 1000}`;
      const { events } = await turn(target, base, [toolLine("shell", { command: `echo started; sleep ${token}`, timeoutMs: 300 }), "/reply ok"].join("\n"));
      expect(results(events)[0]).toMatchObject({ isError: true, output: { stdout: "started\n", error: "the command timed out after 300 ms and was killed" } });
      await eventually(async () => (spawnSync("pgrep", ["-f", `sleep ${token}`]).status === 1 ? true : undefined), 5000, "the sandboxed sleep to exit");
    });
  });
});

describe("local.sandbox without a sandbox", () => {
  it("refuses shell commands and agent tools with a clear message and runs nothing", async () => {
    await withHost("/nonexistent/bwrap", async (target, stateRoot) => {
      const { sessionId, events } = await turn(target, base, [toolLine("shell", { command: "touch ran.txt" }), toolLine("whoami_agent", {}), "/reply ok"].join("\n"));
      const out = results(events);
      expect(out[0]).toMatchObject({ toolName: "shell", isError: true, output: expect.stringMatching(/^local\.sandbox is on, but no sandbox is available \(\/nonexistent\/bwrap is not installed\); the command was not run/) });
      expect(out[1]).toMatchObject({ toolName: "whoami_agent", isError: true });
      expect(JSON.stringify(out[1]!["output"])).toMatch(/no sandbox is available/);
      expect(existsSync(join(stateRoot, "workspaces", sessionId, "ran.txt"))).toBe(false);
      // The turn itself goes on and completes: the model reads why its commands did not run.
      expect(events.some((e) => e.type === "turn.completed")).toBe(true);
    });
  });
});
