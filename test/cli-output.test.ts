/**
 * Output conventions: `help --all` and `help <cmd> --json`, colours only on a terminal and never
 * with NO_COLOR, spinner vs plain progress lines, and `call`'s exit codes against a small fake
 * tool route.
 */
import { rmSync } from "node:fs";
import { serve } from "srvx";
import type { Server } from "srvx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatRenderer } from "../cli/chat-renderer.ts";
import type { CliEvent } from "../cli/events.ts";
import type { CommandHelp } from "../cli/help.ts";
import { createProgress } from "../cli/progress.ts";
import { createStyle } from "../cli/style.ts";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-output");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const COMMANDS = ["serve", "dev", "runner", "docs", "playground", "run", "chat", "resume", "mcp", "sessions", "session", "logs", "cost", "trajectory", "call", "eval", "build", "deploy", "secrets", "rotate-token", "rotate-pod-credential", "stop", "deployments", "deployment", "slack", "github", "webhooks", "install-skills", "convert-automation", "init", "login", "logout", "whoami", "storage", "update", "info", "validate", "version", "help"];

describe("help", () => {
  it("--all prints every command's help", async () => {
    const result = await run(["help", "--all"], { env });
    expect(result.code).toBe(0);
    for (const name of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  \\$ agent-serve ${name}\\b`, "m"));
    expect(result.stdout).toContain("--follow");
    expect(result.stdout).toContain("--template <name>");
  });

  it("<cmd> --json lists arguments and flags; --json alone lists every command", async () => {
    const result = await run(["help", "logs", "--json"], { env });
    expect(result.code).toBe(0);
    const logs = JSON.parse(result.stdout) as CommandHelp;
    expect(logs).toMatchObject({ name: "logs", usage: "agent-serve logs <sessionId>", arguments: [{ name: "sessionId", required: true, variadic: false }] });
    const flags = Object.fromEntries(logs.options.map((o) => [o.flags, o.takesValue]));
    expect(flags).toMatchObject({ "--follow": false, "--from <index>": true, "--json": false, "--url <baseUrl>": true, "--bearer-token <secret>": true, "-h, --help": false });

    const all = JSON.parse((await run(["help", "--json"], { env })).stdout) as { commands: CommandHelp[] };
    expect(all.commands.map((c) => c.name)).toEqual(COMMANDS);
  });

  it("help <cmd> equals <cmd> --help; an unknown command is a usage error", async () => {
    const viaHelp = await run(["help", "cost"], { env });
    const viaFlag = await run(["cost", "--help"], { env });
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain("$ agent-serve cost <sessionId>");
    const unknown = await run(["help", "nope"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no command "nope"');
  });
});

describe("colours and progress", () => {
  it("colours only on a terminal, never with NO_COLOR", () => {
    expect(createStyle({ write() {}, isTTY: true }, {}).bold("x")).toBe("\u001B[1mx\u001B[22m");
    expect(createStyle({ write() {}, isTTY: true }, { NO_COLOR: "1" }).bold("x")).toBe("x");
    expect(createStyle({ write() {} }, {}).red("x")).toBe("x");
  });

  it("commands follow it: whoami on a terminal is bold, piped or NO_COLOR is plain", async () => {
    expect((await run(["whoami"], { env, tty: true })).stdout).toContain("\u001B[1mPROVIDER");
    expect((await run(["whoami"], { env })).stdout).not.toContain("\u001B[");
    expect((await run(["whoami"], { env: { ...env, NO_COLOR: "1" }, tty: true })).stdout).not.toContain("\u001B[");
  });

  it("a spinner on a terminal, plain lines otherwise, nothing when quiet", async () => {
    let tty = "";
    const spinner = createProgress({ stdout: { write() {} }, stderr: { write: (s: string) => (tty += s), isTTY: true }, env: {}, cwd: "." });
    spinner.start("loading");
    const frames = (): number => tty.split("\r\u001B[2K").filter((frame) => frame.endsWith(" loading")).length;
    // The spinner redraws on a timer: wait (bounded) for a second frame.
    const deadline = Date.now() + 5000;
    while (frames() < 2 && Date.now() < deadline) await new Promise<void>((resolve) => setTimeout(resolve, 20));
    spinner.done("loaded");
    expect(frames()).toBeGreaterThanOrEqual(2);
    expect(tty.endsWith("✔\u001B[39m loaded\n")).toBe(true);

    let plain = "";
    const lines = createProgress({ stdout: { write() {} }, stderr: { write: (s: string) => (plain += s) }, env: {}, cwd: "." });
    lines.start("loading");
    lines.done("loaded");
    expect(plain).toBe("loading…\nloaded\n");

    const quiet = await run(["sessions", "examples/hello", "--state-root", `${scratch}/state`, "--json"], { env });
    expect(quiet.stderr).toBe("");
    const loud = await run(["sessions", "examples/hello", "--state-root", `${scratch}/state`], { env });
    expect(loud.stderr).toBe("starting a local server for examples/hello…\n");
  });
});

describe("the chat renderer", () => {
  it("writes each delta as it arrives, reasoning dimmed, whole messages without deltas", () => {
    let out = "";
    const style = createStyle({ write() {}, isTTY: true }, {});
    const renderer = createChatRenderer({ write: (s: string) => (out += s) }, createStyle({ write() {} }, {}), { agentLabel: "bot" });
    const dimRenderer = createChatRenderer({ write: (s: string) => (out += s) }, style, { agentLabel: "bot" });
    let index = 0;
    const event = (type: string, data: Record<string, unknown>): CliEvent => ({ type, index: index++, sessionId: "ses_1", at: "", data });

    renderer.render(event("message.appended", { delta: "ec" }));
    expect(out).toBe("bot› ec");
    renderer.render(event("message.appended", { delta: "ho" }));
    expect(out).toBe("bot› echo");
    renderer.render(event("message.completed", { text: "echo", finishReason: "stop" }));
    expect(out).toBe("bot› echo\n");
    renderer.render(event("actions.requested", { actions: [{ toolCallId: "t1", toolName: "add", input: { a: 1 } }] }));
    renderer.render(event("message.completed", { text: "whole", finishReason: "stop" }));
    expect(out).toBe('bot› echo\n  ⚙ add {"a":1}\nbot› whole\n');
    out = "";
    renderer.render(event("artifact.tagged", { artifact: { id: "art_1", kind: "note", key: "k1", title: "A note", data: {}, source: "model" } }));
    expect(out).toBe("  ★ artifact note/k1 A note (art_1, by model)\n");

    out = "";
    dimRenderer.render(event("reasoning.appended", { delta: "hmm" }));
    dimRenderer.render(event("message.appended", { delta: "ok" }));
    dimRenderer.endLine();
    expect(out).toBe(`${style.dim("thinking: ")}${style.dim("hmm")}\n${style.bold("bot› ")}ok\n`);
  });
});

describe("call exit codes (fake tool route)", () => {
  let fake: Server;
  let url = "";
  beforeAll(async () => {
    const answers: Record<string, [number, unknown]> = {
      ok: [200, { ok: true, toolName: "ok", callId: "c1", isError: false, result: "fine", durationMs: 1 }],
      thrown: [200, { ok: true, toolName: "thrown", callId: "c2", isError: true, result: "it broke", durationMs: 1 }],
      notok: [200, { ok: false, error: "weird", message: "not ok at all" }],
      missing: [404, { ok: false, error: "tool_not_found", message: "no tool named \"missing\"", tools: ["ok"] }],
      crash: [500, { ok: false, error: "internal_error" }],
    };
    fake = serve({
      port: 0,
      hostname: "127.0.0.1",
      silent: true,
      gracefulShutdown: false,
      async fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === "/fake/v1/health") return Response.json({ ok: true, slug: "fake", name: "Fake" });
        const tool = /^\/fake\/v1\/tools\/(\w+)$/.exec(path)?.[1] ?? "";
        const body = (await request.json()) as { input: unknown; sessionId?: string };
        if (tool === "echo") return Response.json({ ok: true, toolName: "echo", callId: "c0", isError: false, result: body, durationMs: 0 });
        const [status, answer] = answers[tool] ?? [404, { ok: false, error: "not_found" }];
        return Response.json(answer, { status });
      },
    });
    await fake.ready();
    url = `${(fake.url ?? "").replace(/\/$/, "")}/fake`;
  });
  afterAll(() => fake.close(true));

  it("sends input and session; exit 0 on ok with isError false", async () => {
    const echo = await run(["call", "echo", "--input", '{"n":"0123"}', "--session", "ses_1", "--url", url, "--json"], { env });
    expect(echo.code).toBe(0);
    expect(JSON.parse(echo.stdout)).toMatchObject({ result: { input: { n: "0123" }, sessionId: "ses_1" } });
    expect(await run(["call", "ok", "--url", url], { env })).toMatchObject({ code: 0, stdout: "fine\n" });
  });

  it.each([
    ["thrown", "thrown returned an error: it broke"],
    ["notok", "call notok failed: not ok at all"],
    ["missing", 'answered 404 tool_not_found: no tool named "missing" (tools: ok)'],
    ["crash", "answered 500 internal_error"],
  ])("%s exits 1 and says why", async (tool, why) => {
    const result = await run(["call", tool, "--url", url], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(why);
  });

  it("--input that is not JSON is a usage error", async () => {
    const result = await run(["call", "ok", "--input", "{nope", "--url", url], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--input must be JSON");
  });
});
