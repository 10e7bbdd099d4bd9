/**
 * `chat` and `resume`: piped stdin in-process (local ephemeral server and --url), approvals
 * answered inline, a stale continuation token, and a real terminal session in tmux.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { serveNode } from "../adapters/node.ts";
import type { NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { BIN, REPO } from "./_cli.ts";
import { run, scratchDir, start, toolsProject } from "./_cli-io.ts";
import { helloOptions } from "./_harness.ts";

const { dir: scratch, env } = scratchDir("cli-chat");
let n = 0;
const stateRoot = (): string => join(scratch, `state-${++n}`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("chat over a local ephemeral server", () => {
  it("prints the session id, streams replies, and resume continues the same session", async () => {
    const state = stateRoot();
    const first = await run(["chat", "examples/hello", "--state-root", state], { env, stdin: "hi there\n/reason pondering\n/exit\n" });
    expect(first.code).toBe(0);
    const sessionId = /^session (ses_\w+)$/m.exec(first.stdout)?.[1] ?? "";
    expect(sessionId).toMatch(/^ses_/);
    expect(first.stdout).toContain("hello› echo: hi there\n");
    expect(first.stdout).toContain("thinking: pondering\n");
    expect(first.stdout).toContain(`resume with: agent-serve resume ${sessionId} --dir examples/hello --state-root ${state}`);

    // Sessions persist between commands: the state root is the one `serve` would use.
    const resumed = await run(["resume", sessionId, "--dir", "examples/hello", "--state-root", state], { env, stdin: "again\n" });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`session ${sessionId} (resumed: 2 turns, idle)`);
    expect(resumed.stdout).toContain("you› hi there");
    expect(resumed.stdout).toContain("hello› echo: again\n");
    const listed = await run(["sessions", "examples/hello", "--state-root", state, "--json"], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject({ sessions: [{ sessionId, turnCount: 3 }] });
  });

  it("shows a failed turn and keeps going", async () => {
    const result = await run(["chat", "examples/hello", "--state-root", stateRoot()], { env, stdin: "/fail model exploded\nstill there?\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("turn failed: model exploded");
    expect(result.stdout).toContain("hello› echo: still there?");
  });

  it("asks before an approval-gated tool runs and posts the answer", async () => {
    const project = toolsProject(join(scratch, "toolbox"));
    const state = stateRoot();
    const chat = start(["chat", project, "--state-root", state], { env });
    chat.type("/tool danger {}");
    await chat.waitFor(/danger \{\} — approve\? \[y\/N\]/);
    chat.type("y");
    await chat.waitFor(/✔ approved[\s\S]*↳ danger: deleted/);
    chat.type("/tool danger {}");
    await chat.waitFor(/(approve\? \[y\/N\][\s\S]*){2}/);
    chat.type("no");
    await chat.waitFor(/✖ denied[\s\S]*↳ danger failed: .*denied/);
    chat.type("/tool add {\"a\":40,\"b\":2}");
    await chat.waitFor(/⚙ add \{"a":40,"b":2\}\n.*↳ add: \{"sum":42\}/);
    chat.end();
    expect(await chat.exited).toBe(0);

    // The trajectory pairs each call with its result and its approval decision.
    const sessionId = /session (ses_\w+)/.exec(chat.stdout())?.[1] ?? "";
    const trajectory = await run(["trajectory", sessionId, "--dir", project, "--state-root", state, "--json"], { env });
    const { calls } = JSON.parse(trajectory.stdout) as { calls: Array<Record<string, unknown>> };
    expect(calls.map((c) => [c.toolName, c.status, (c.approval as { decision?: string } | undefined)?.decision])).toEqual([
      ["danger", "ok", "approve"],
      ["danger", "error", "deny"],
      ["add", "ok", undefined],
    ]);
  });

  it("resume of an unknown session exits 1", async () => {
    const result = await run(["resume", "ses_unknown", "--dir", "examples/hello", "--state-root", stateRoot()], { env, stdin: "" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no session ses_unknown");
  });
});

describe("chat with --url", () => {
  let host: AgentHost | undefined;
  let server: NodeServer | undefined;
  afterEach(async () => {
    await host?.close();
    await server?.close(true);
  });

  it("takes the current token when someone else continued the session", async () => {
    host = createHost(helloOptions());
    server = await serveNode(host, { port: 0, silent: true });
    const url = `${server.url}/hello`;
    const chat = start(["chat", "--url", url], { env });
    chat.type("one");
    await chat.waitFor(/hello› echo: one\n/);
    const sessionId = /session (ses_\w+)/.exec(chat.stdout())?.[1];
    const { sessions } = (await (await fetch(`${url}/v1/sessions`)).json()) as { sessions: Array<{ continuationToken: string }> };
    const elsewhere = await fetch(`${url}/v1/session/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ continuationToken: sessions[0]?.continuationToken, message: "from elsewhere" }),
    });
    expect(elsewhere.status).toBe(200);
    chat.type("two");
    await chat.waitFor(/hello› echo: two\n/);
    chat.type("/exit");
    expect(await chat.exited).toBe(0);
    expect(chat.stdout()).toContain(`resume with: agent-serve resume ${sessionId} --url ${url}`);
  });

  it("a failed exchange is reported and the chat goes on", async () => {
    host = createHost(helloOptions());
    server = await serveNode(host, { port: 0, silent: true });
    const chat = start(["chat", "--url", `${server.url}/hello`], { env });
    chat.type("one");
    await chat.waitFor(/hello› echo: one\n/);
    await server.close(true);
    chat.type("two");
    chat.type("/exit");
    expect(await chat.exited).toBe(0);
    expect(chat.stderr()).toContain(`cannot reach ${server.url}/hello`);
  });
});

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

// CI installs tmux; elsewhere the title says why the test did not run.
describe(hasTmux ? "chat in a real terminal" : "chat in a real terminal (skipped: tmux is not installed)", () => {
  it.skipIf(!hasTmux)("tmux: type a message, see the streamed reply, Ctrl-C stops a turn, /exit quits", async () => {
    const socket = `agent-serve-test-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8", env, cwd: REPO });
    const screen = (): string => tmux("capture-pane", "-p", "-t", "chat").stdout;
    const until = async (pattern: RegExp, timeoutMs = 15_000): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(screen())) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} on the screen:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const command = `'${process.execPath}' '${BIN}' chat examples/hello --state-root '${stateRoot()}'; echo "EXIT:$?"; sleep 60`;
    try {
      expect(tmux("new-session", "-d", "-s", "chat", "-x", "120", "-y", "40", command).status).toBe(0);
      await until(/the session starts with your first message/);
      tmux("send-keys", "-t", "chat", "hello from tmux", "Enter");
      await until(/hello› echo: hello from tmux/);
      expect(screen()).toMatch(/^session ses_\w+$/m);
      // The typed line stays on screen after the prompt (readline echoes it).
      expect(screen()).toMatch(/you› hello from tmux/);

      // Type only once the next prompt is up: keys sent earlier land before it on a loaded machine.
      await until(/echo: hello from tmux\n[\s\S]*you›/);
      tmux("send-keys", "-t", "chat", "/sleep 20000", "Enter");
      await until(/you› \/sleep 20000\n/);
      tmux("send-keys", "-t", "chat", "C-c");
      await until(/\(stopped\)\n[\s\S]*you›/);
      tmux("send-keys", "-t", "chat", "/exit", "Enter");
      await until(/EXIT:0/);
    } finally {
      tmux("kill-server");
    }
  });

  it.skipIf(!hasTmux)("tmux: Ctrl-C at an approval prompt denies that call once, and the next line is a new message", async () => {
    const socket = `agent-serve-test-approve-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8", env, cwd: REPO });
    const screen = (): string => tmux("capture-pane", "-p", "-t", "chat").stdout;
    const until = async (pattern: RegExp, timeoutMs = 15_000): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(screen())) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} on the screen:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const project = toolsProject(join(scratch, "toolbox-tmux"));
    const command = `'${process.execPath}' '${BIN}' chat '${project}' --state-root '${stateRoot()}'; echo "EXIT:$?"; sleep 60`;
    try {
      expect(tmux("new-session", "-d", "-s", "chat", "-x", "120", "-y", "40", command).status).toBe(0);
      await until(/the session starts with your first message/);
      tmux("send-keys", "-t", "chat", "/tool danger {}", "Enter");
      await until(/approve\? \[y\/N\]\s*$/m);
      // Half an answer typed, then Ctrl-C: the call is denied, the half line is dropped.
      tmux("send-keys", "-t", "chat", "-l", "ye");
      tmux("send-keys", "-t", "chat", "C-c");
      await until(/\(Ctrl-C: denied\)[\s\S]*✖ denied[\s\S]*↳ danger failed: [\s\S]*you›\s*$/m);
      tmux("send-keys", "-t", "chat", "next line", "Enter");
      await until(/toolbox-tmux› echo: next line/);
      expect(screen()).toMatch(/^you› next line$/m);
      tmux("send-keys", "-t", "chat", "/exit", "Enter");
      await until(/EXIT:0/);
    } finally {
      tmux("kill-server");
    }
  });
});
