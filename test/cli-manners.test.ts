/**
 * CLI manners: piping into a reader that stops early exits quietly, `--json` means
 * JSON errors on every command, NO_COLOR stops the spinner too, `init --help` lists every
 * template, and a bare `agent-serve` prints help and exits non-zero.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createProgress } from "../cli/progress.ts";
import { TEMPLATES } from "../cli/templates.ts";
import { BIN, REPO } from "./_cli.ts";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("manners");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("cli manners", () => {
  it("a bare agent-serve prints the help on stderr and exits 2", async () => {
    const result = await run([], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^agent-serve\n\nUsage:/);
    expect(result.stderr).toContain("Commands:");
    // Asking for help is not a mistake.
    expect((await run(["--help"], { env })).code).toBe(0);
  });

  it("init --help lists every template", async () => {
    const { stdout, code } = await run(["init", "--help"], { env });
    expect(code).toBe(0);
    expect(stdout).toContain(`--template <name>  Project template: ${Object.keys(TEMPLATES).join(", ")}`);
  });

  it("--json turns errors into {ok:false, error, message} on every command", async () => {
    const usage = await run(["serve", "--port", "99999", "--json"], { env });
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({ ok: false, error: "usage_error", message: '--port must be an integer from 0 to 65535 (got "99999")' });
    expect(usage.stderr).toBe("");
    const failed = await run(["init", "examples/hello", "--json"], { env });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ ok: false, error: "command_failed", message: expect.stringContaining("is not empty") });
    const chat = await run(["chat", "--url", "http://127.0.0.1:9/hello", "--json"], { env });
    expect(chat.code).toBe(1);
    expect(JSON.parse(chat.stdout)).toMatchObject({ ok: false, error: "command_failed" });
    const unknown = await run(["frobnicate", "--json"], { env });
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false, error: "usage_error", message: expect.stringContaining('unknown command "frobnicate"') });
  });

  it("NO_COLOR stops the spinner as well as colours", () => {
    let out = "";
    const progress = createProgress({ stdout: { write() {} }, stderr: { write: (s: string) => (out += s), isTTY: true }, env: { NO_COLOR: "1" }, cwd: "." });
    progress.start("loading");
    progress.done("loaded");
    expect(out).toBe("loading…\nloaded\n");
  });

  it("exits quietly when the reader of its output goes away (logs --json | head -1)", () => {
    const state = `${scratch}/pipe-state`;
    const long = "a".repeat(8_000);
    const sent = spawnSync(process.execPath, [BIN, "run", "examples/hello", "--message", `/reply ${long}`, "--state-root", state, "--json"], { cwd: REPO, env, encoding: "utf8" });
    expect(sent.status, sent.stderr).toBe(0);
    const { sessionId } = JSON.parse(sent.stdout) as { sessionId: string };
    // About a thousand delta events: more than a pipe buffer holds, so writes continue after head exits.
    const script = `'${process.execPath}' '${BIN}' logs ${sessionId} --dir examples/hello --state-root '${state}' --json | head -1; echo "status:\${PIPESTATUS[0]}" >&2`;
    const piped = spawnSync("bash", ["-c", script], { cwd: REPO, env, encoding: "utf8" });
    expect(JSON.parse(piped.stdout)).toMatchObject({ type: "session.started", sessionId });
    expect(piped.stderr).toBe("status:0\n");
  }, 90_000);
});
