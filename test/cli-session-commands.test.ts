/**
 * `sessions`, `session`, `logs`, `cost`, `trajectory` and `call` against a spawned `serve` (a
 * project with server tools, temp state root), driven through `main` in-process with `--url`.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Trajectory } from "../cli/fold-trajectory.ts";
import { killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { run, scratchDir, start, toolsProject } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-sessions");
let server: CliProcess & { url: string };
let url = "";
let sessionId = "";
killAfterEach();

beforeAll(async () => {
  const project = toolsProject(join(scratch, "toolbox"));
  server = await startServe([project, "--port", "0", "--state-root", join(scratch, "state")], env);
  url = `${server.url}/toolbox`;
  // One session with a tool call, a failing tool call and a plain turn.
  const chat = await run(["chat", "--url", url], { env, stdin: '/tool add {"a":1,"b":2}\n/tool boom {}\nhello\n/exit\n' });
  expect(chat.code).toBe(0);
  sessionId = /session (ses_\w+)/.exec(chat.stdout)?.[1] ?? "";
  expect(sessionId).toMatch(/^ses_/);
});

afterAll(async () => {
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(scratch, { recursive: true, force: true });
});

interface Line {
  type: string;
  index: number;
  data: Record<string, unknown>;
}

describe("reading sessions", () => {
  test("sessions: a table, and --json with continuation tokens", async () => {
    const human = await run(["sessions", "--url", url], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^SESSION\s+STATUS\s+TURNS/m);
    expect(human.stdout).toMatch(new RegExp(`^${sessionId}\\s+idle\\s+3\\s`, "m"));

    const json = await run(["sessions", "--url", url, "--json"], { env });
    expect(json.code).toBe(0);
    const { sessions } = JSON.parse(json.stdout) as { sessions: Array<Record<string, unknown>> };
    expect(sessions).toEqual([expect.objectContaining({ sessionId, status: "idle", turnCount: 3, continuationToken: expect.stringMatching(/\S/) })]);
  });

  test("session: summary and the last N events", async () => {
    const human = await run(["session", sessionId, "--url", url, "--events", "5"], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/status\s+idle/);
    expect(human.stdout).toMatch(/turns\s+3/);
    expect(human.stdout).toContain("last 5 events:");
    expect(human.stdout).toContain("assistant: echo: hello");

    const json = await run(["session", sessionId, "--url", url, "--events", "4", "--json"], { env });
    const body = JSON.parse(json.stdout) as { session: { sessionId: string }; eventCount: number; events: Line[] };
    expect(body.session.sessionId).toBe(sessionId);
    expect(body.events).toHaveLength(4);
    expect(body.events.at(-1)).toMatchObject({ type: "session.waiting", index: body.eventCount - 1 });
  });

  test("logs: rendered for people; --json is the raw NDJSON; --from skips", async () => {
    const human = await run(["logs", sessionId, "--url", url], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("you: hello");
    expect(human.stdout).toContain("assistant: echo: hello");
    expect(human.stdout).toMatch(/action\.result\s+boom error: /);
    expect(human.stdout).not.toContain("message.appended");

    const raw = await run(["logs", sessionId, "--url", url, "--json", "--from", "5"], { env });
    const lines = raw.stdout.trim().split("\n").map((line) => JSON.parse(line) as Line);
    expect(lines[0]?.index).toBe(5);
    expect(lines.map((l) => l.index)).toEqual(lines.map((_, i) => i + 5));
    expect(lines.some((l) => l.type === "message.appended")).toBe(true);
  });

  test("logs --follow prints new events live until stopped", async () => {
    const { sessions } = (await (await fetch(`${url}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; continuationToken: string }> };
    const token = sessions.find((s) => s.sessionId === sessionId)?.continuationToken;
    const stop = new AbortController();
    const follow = start(["logs", sessionId, "--url", url, "--follow", "--from", "1"], { env, signal: stop.signal });
    await follow.waitFor(/you: hello/);
    expect(follow.stdout()).not.toMatch(/^\s*#0 /m);
    const sent = await fetch(`${url}/v1/session/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ continuationToken: token, message: "live one" }),
    });
    expect(sent.status).toBe(200);
    await follow.waitFor(/assistant: echo: live one/);
    stop.abort();
    expect(await follow.exited).toBe(0);
  });

  test("cost: per-turn table and --json report", async () => {
    const human = await run(["cost", sessionId, "--url", url], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^total\s+\d+\s+\d+/m);
    const json = await run(["cost", sessionId, "--url", url, "--json"], { env });
    const report = JSON.parse(json.stdout) as { sessionId: string; totals: { inputTokens: number }; turns: unknown[] };
    expect(report.sessionId).toBe(sessionId);
    expect(report.turns.length).toBeGreaterThanOrEqual(3);
    expect(report.totals.inputTokens).toBeGreaterThan(0);
  });

  test("trajectory: calls paired with results, durations and totals", async () => {
    const json = await run(["trajectory", sessionId, "--url", url, "--json"], { env });
    expect(json.code).toBe(0);
    const t = JSON.parse(json.stdout) as Trajectory;
    expect(t.calls.map((c) => [c.toolName, c.status])).toEqual([["add", "ok"], ["boom", "error"]]);
    expect(t.calls[0]).toMatchObject({ input: { a: 1, b: 2 }, output: { sum: 3 } });
    for (const call of t.calls) expect(call.durationMs).toBeGreaterThanOrEqual(0);
    expect(t.totals).toMatchObject({ calls: 2, ok: 1, errors: 1, pending: 0, byTool: { add: { calls: 1 }, boom: { errors: 1 } } });
    expect(t.totals.turns).toBeGreaterThanOrEqual(3);

    const human = await run(["trajectory", sessionId, "--url", url], { env });
    expect(human.stdout).toMatch(/1\s+add\s+ok\s+\d+ ms/);
    expect(human.stdout).toMatch(/2\s+boom\s+error/);
    expect(human.stdout).toContain("2 tool calls: 1 ok, 1 error, 0 pending");
  });

  test("an unknown session exits 1 and says so", async () => {
    for (const command of ["session", "logs", "cost", "trajectory"]) {
      const result = await run([command, "ses_doesnotexist", "--url", url], { env });
      expect(result.code, command).toBe(1);
      expect(result.stderr, command).toContain("no session ses_doesnotexist");
    }
  });
});

describe("call against the real tool route", () => {
  test("prints the result; --session records it in the session", async () => {
    const result = await run(["call", "add", "--input", '{"a":2,"b":5}', "--url", url], { env });
    expect(result).toMatchObject({ code: 0, stdout: `${JSON.stringify({ sum: 7 }, null, 2)}\n` });

    const json = await run(["call", "add", "--input", '{"a":1,"b":1}', "--session", sessionId, "--url", url, "--json"], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, toolName: "add", isError: false, result: { sum: 2 } });
    const t = JSON.parse((await run(["trajectory", sessionId, "--url", url, "--json"], { env })).stdout) as Trajectory;
    expect(t.calls.at(-1)).toMatchObject({ toolName: "add", turnId: expect.any(String), output: { sum: 2 }, status: "ok" });
  });

  test("a throwing tool, bad input and an unknown tool exit 1 with the reason", async () => {
    const thrown = await run(["call", "boom", "--url", url], { env });
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain("boom returned an error");
    expect(thrown.stderr).toContain("kaboom");

    const invalid = await run(["call", "add", "--input", '{"a":"x"}', "--url", url], { env });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("400 invalid_request");

    const unknown = await run(["call", "nope", "--url", url], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("404 tool_not_found");
    expect(unknown.stderr).toContain("tools: add, boom, danger");
  });
});

describe("removing a session", () => {
  test("session rm: DELETE through the CLI; the session, its log and its workspace are gone", async () => {
    const chat = await run(["chat", "--url", url], { env, stdin: "short-lived\n/exit\n" });
    expect(chat.code).toBe(0);
    const doomed = /session (ses_\w+)/.exec(chat.stdout)?.[1] ?? "";
    expect(doomed).toMatch(/^ses_/);
    const workspace = join(scratch, "state", "toolbox", "workspaces", doomed);
    expect(existsSync(workspace)).toBe(true);

    const removed = await run(["session", "rm", doomed, "--url", url], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`removed session ${doomed}\n`);
    expect(existsSync(workspace)).toBe(false);
    const again = await run(["session", "rm", doomed, "--url", url], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/404 session_not_found/);
    const listed = JSON.parse((await run(["sessions", "--url", url, "--json"], { env })).stdout) as { sessions: Array<{ sessionId: string }> };
    expect(listed.sessions.map((s) => s.sessionId)).not.toContain(doomed);
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
    const usage = await run(["session", "rm", "--url", url], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/session rm needs the session id/);
  });
});

describe("sessions a page at a time", () => {
  test("sessions: --limit and --cursor page, --all follows every cursor, a bad --limit is a usage error", async () => {
    const created: string[] = [];
    for (const message of ["two", "three"]) {
      const response = await fetch(`${url}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message }) });
      expect(response.status).toBe(200);
      created.push(((await response.json()) as { sessionId: string }).sessionId);
    }
    // Their turns over, the order stays put while the pages are walked.
    for (const id of created) {
      for (let i = 0; i < 200; i++) {
        const { session } = (await (await fetch(`${url}/v1/session/${id}`)).json()) as { session: { status: string } };
        if (session.status === "idle") break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    type Page = { sessions: Array<{ sessionId: string }>; nextCursor: string | null };
    const page = async (...args: string[]): Promise<Page> => {
      const result = await run(["sessions", "--url", url, "--json", ...args], { env });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Page;
    };
    const all = await page("--all", "--limit", "1");
    expect(all.nextCursor).toBeNull();
    expect(new Set(all.sessions.map((s) => s.sessionId))).toEqual(new Set([sessionId, ...created]));
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await page("--limit", "2", ...(cursor === null ? [] : ["--cursor", cursor]));
      expect(next.sessions.length).toBeLessThanOrEqual(2);
      walked.push(...next.sessions.map((s) => s.sessionId));
      cursor = next.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual(all.sessions.map((s) => s.sessionId));

    const human = await run(["sessions", "--url", url, "--limit", "1"], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/more: agent-serve sessions --cursor \S+ \(or --all\)/);
    expect((await run(["sessions", "--url", url, "--limit", "0"], { env })).code).not.toBe(0);
    const badCursor = await run(["sessions", "--url", url, "--cursor", "nope!"], { env });
    expect(badCursor.code).not.toBe(0);
    expect(badCursor.stderr).toMatch(/cursor/);
  });
});
