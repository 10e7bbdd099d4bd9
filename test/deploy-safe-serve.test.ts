/**
 * Deploy-safe sessions across real restarts of `agent-serve serve` on its default sqlite store
 * (docs/design/deploy-safe-sessions.md): the agent version in `turn.started` is the same after a
 * restart on the same files and changes when a tool file is rewritten; calls parked for approval
 * before the rewrite end with an `action.result` error saying the definition changed (the tool's
 * schema changed, or the tool is gone) instead of running, and the sessions carry on.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { type TestEvent, eventually, fetchEvents } from "./_harness.ts";
import { gatedTool } from "./_deploy-projects.ts";
import { tempProjects } from "./_temp-projects.ts";

const write = tempProjects("deploy-safe-serve");
const running: CliProcess[] = killAfterEach();

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function approvals(base: string, sessionId: string): Promise<string[]> {
  const response = await fetch(`${base}/v1/session/${sessionId}/approvals`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { approvals: Array<{ callId: string }> }).approvals.map((a) => a.callId);
}

const until = (base: string, sessionId: string, done: (events: TestEvent[]) => boolean, what: string): Promise<TestEvent[]> =>
  eventually(async () => {
    const events = await fetchEvents(base, sessionId);
    return done(events) ? events : undefined;
  }, 15_000, what);

const waiting = (n: number) => (events: TestEvent[]) => events.filter((e) => e.type === "session.waiting").length >= n;
const versions = (events: TestEvent[]): unknown[] => events.filter((e) => e.type === "turn.started").map((e) => e.data["agentVersion"]);

test("the version holds across a restart and changes with a rewritten tool; parked calls meet the new tools and end with a clear error", async () => {
  const dir = write({
    "bot/agent.ts": `export default { name: "Deploys" };\n`,
    "bot/tools/danger.ts": gatedTool("what", "deleted"),
    "bot/tools/wipe.ts": gatedTool("path", "wiped"),
  });
  const env = cliEnv(join(dir, ".config"));
  const args = [dir, "--port", "0", "--mode", "single", "--state-root", join(dir, ".state"), "--no-schedules"];

  // First run: a finished turn, and two calls parked for approval.
  const first = await startServe(args, env);
  running.push(first);
  const chat = (await (await fetch(`${first.url}/v1/session`, post({ message: "/reply one" }))).json()) as { sessionId: string; continuationToken: string };
  const [v1] = versions(await until(first.url, chat.sessionId, waiting(1), "the first turn"));
  expect(v1).toMatch(/^av_[0-9a-f]{16}$/);
  const serving = async (url: string): Promise<unknown> => ((await (await fetch(`${url}/v1/info`)).json()) as { agentVersion: unknown }).agentVersion;
  expect(await serving(first.url)).toBe(v1);
  const park = async (line: string): Promise<{ sessionId: string; callId: string; parked: TestEvent[] }> => {
    const { sessionId } = (await (await fetch(`${first.url}/v1/session`, post({ message: `${line}\n/reply carried on` }))).json()) as { sessionId: string };
    const parked = await until(first.url, sessionId, (all) => all.some((e) => e.type === "action.approval_requested"), "a parked call");
    return { sessionId, callId: parked.find((e) => e.type === "action.approval_requested")!.data["callId"] as string, parked };
  };
  const danger = await park(`/tool danger {"what":"prod"}`);
  const wipe = await park(`/tool wipe {"path":"/srv"}`);
  first.child.kill("SIGTERM");
  expect((await finished(first)).code).toBe(0);

  // Restarted on the same files: the same version, and the calls still parked.
  const second = await startServe(args, env);
  running.push(second);
  const followUp = await fetch(`${second.url}/v1/session/${chat.sessionId}`, post({ continuationToken: chat.continuationToken, message: "/reply two" }));
  expect(followUp.status).toBe(200);
  const { continuationToken } = (await followUp.json()) as { continuationToken: string };
  expect(versions(await until(second.url, chat.sessionId, waiting(2), "the second turn"))).toEqual([v1, v1]);
  expect(await fetchEvents(second.url, danger.sessionId)).toEqual(danger.parked);
  expect(await approvals(second.url, danger.sessionId)).toEqual([danger.callId]);
  second.child.kill("SIGTERM");
  expect((await finished(second)).code).toBe(0);

  // The deploy: danger's input field is renamed, wipe is removed.
  writeFileSync(join(dir, "bot/tools/danger.ts"), gatedTool("target", "deleted"));
  rmSync(join(dir, "bot/tools/wipe.ts"));
  const third = await startServe(args, env);
  running.push(third);

  for (const [call, reason] of [
    [danger, /its input no longer validates against the new schema of danger \(.*target must be a string/],
    [wipe, /the tool wipe no longer exists/],
  ] as const) {
    const events = await until(third.url, call.sessionId, waiting(1), "the resumed turn");
    const tail = events.slice(call.parked.length);
    const result = tail.find((e) => e.type === "action.result")!;
    expect(result.data).toMatchObject({ toolCallId: call.callId, isError: true });
    expect(result.data["output"]).toMatch(/^not run: the agent's definition changed while this call waited for approval/);
    expect(result.data["output"]).toMatch(reason);
    expect(tail.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("carried on");
    expect(tail.slice(-2).map((e) => e.type)).toEqual(["turn.completed", "session.waiting"]);
    // Nothing ran, nothing stays parked, and a late decision is refused.
    expect(tail.some((e) => e.type === "action.result" && typeof e.data["output"] === "string" && /^(deleted|wiped) /.test(e.data["output"]))).toBe(false);
    expect(await approvals(third.url, call.sessionId)).toEqual([]);
    expect((await fetch(`${third.url}/v1/session/${call.sessionId}/approvals/${call.callId}`, post({ decision: "approve" }))).status).toBe(409);
  }

  // The session that finished before the deploy continues on the new version.
  expect((await fetch(`${third.url}/v1/session/${chat.sessionId}`, post({ continuationToken, message: "/reply three" }))).status).toBe(200);
  const [, , v3] = versions(await until(third.url, chat.sessionId, waiting(3), "the third turn"));
  expect(v3).toMatch(/^av_[0-9a-f]{16}$/);
  expect(v3).not.toBe(v1);
  expect(await serving(third.url)).toBe(v3);
  third.child.kill("SIGTERM");
  expect((await finished(third)).code).toBe(0);
}, 90_000);
