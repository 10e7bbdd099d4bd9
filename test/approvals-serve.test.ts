/**
 * Parked approvals survive a real restart (docs/design/tools.md "Approvals"): `agent-serve serve`
 * on the default sqlite store parks an approval-gated call (scripted model, `/tool`), is killed
 * (SIGKILL) or stopped cleanly (SIGTERM), starts again on the same state root, lists the call,
 * and approving it completes the turn with the tool's result in the stream and a whole model
 * history in storage. And two processes on one state root: parked on one, approved on the other.
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { ConversationMessage } from "../src/base/ports/model.ts";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents, readEvents } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";

const write = tempProjects("approvals-serve");
const running: CliProcess[] = killAfterEach();

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function approvals(base: string, sessionId: string): Promise<Array<{ callId: string; toolName: string; input: unknown }>> {
  const response = await fetch(`${base}/v1/session/${sessionId}/approvals`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { approvals: Array<{ callId: string; toolName: string; input: unknown }> }).approvals;
}

async function status(base: string, sessionId: string): Promise<string | undefined> {
  const { sessions } = (await (await fetch(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
  return sessions.find((s) => s.sessionId === sessionId)?.status;
}

test.each([["SIGKILL"], ["SIGTERM"]] as const)("a call parked before %s is listed after the restart, and approving it completes the turn", async (signal) => {
  const dir = write({
    "bot/agent.ts": `export default { name: "Gate" };\n`,
    "bot/tools/danger.ts":
      `export default { description: "Deletes things", needsApproval: true, execute: (input) => "deleted " + input.what };\n`,
  });
  const stateRoot = join(dir, ".state");
  const env = cliEnv(join(dir, ".config"));
  const args = [dir, "--port", "0", "--mode", "single", "--state-root", stateRoot];

  const first = await startServe(args, env);
  running.push(first);
  const created = await fetch(`${first.url}/v1/session`, post({ message: `/tool danger {"what":"prod"}\n/reply all clean` }));
  expect(created.status).toBe(200);
  const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
  const parked = await eventually(async () => {
    const all = await fetchEvents(first.url, sessionId);
    return all.some((e) => e.type === "action.approval_requested") ? all : undefined;
  }, 10_000, "a parked call");
  const callId = parked.find((e) => e.type === "action.approval_requested")!.data["callId"] as string;

  first.child.kill(signal);
  const exit = await finished(first);
  if (signal === "SIGKILL") expect(exit.signal).toBe("SIGKILL");
  else expect(exit.code).toBe(0);

  const second = await startServe(args, env);
  running.push(second);
  // Nothing was appended or failed: the turn is parked, as it was before the restart.
  expect(await fetchEvents(second.url, sessionId)).toEqual(parked);
  expect(await approvals(second.url, sessionId)).toEqual([expect.objectContaining({ callId, toolName: "danger", input: { what: "prod" } })]);
  expect(await status(second.url, sessionId)).toBe("running");

  const stream = await fetch(`${second.url}/v1/session/${sessionId}/stream?startIndex=${parked.length}`);
  expect(stream.status).toBe(200);
  const resolved = await fetch(`${second.url}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "approve" }));
  expect(resolved.status).toBe(200);
  expect(await resolved.json()).toEqual({ ok: true, sessionId, callId, decision: "approve" });
  const tail = await readEvents(stream, (event) => event.type === "session.waiting", 10_000);
  expect(tail[0]!.index).toBe(parked.length);
  expect(tail.map((e) => e.type).filter((t) => t.startsWith("action") || t.startsWith("turn") || t.startsWith("session"))).toEqual([
    "action.approval_resolved",
    "action.result",
    "turn.completed",
    "session.waiting",
  ]);
  expect(tail.find((e) => e.type === "action.result")!.data).toEqual({ toolCallId: callId, toolName: "danger", output: "deleted prod", isError: false });
  expect(tail.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe("all clean");
  expect(await approvals(second.url, sessionId)).toEqual([]);
  expect((await fetch(`${second.url}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "approve" }))).status).toBe(409);

  // The session goes on.
  const followUp = await fetch(`${second.url}/v1/session/${sessionId}`, post({ continuationToken, message: "/reply next" }));
  expect(followUp.status).toBe(200);
  await eventually(async () => ((await fetchEvents(second.url, sessionId)).filter((e) => e.type === "session.waiting").length === 2 ? true : undefined), 10_000, "the follow-up");
  second.child.kill("SIGTERM");
  expect((await finished(second)).code).toBe(0);

  // The model history answers the parked call with the tool's real result, once.
  const storage = createSqliteStorage({ path: join(stateRoot, "state.db"), readOnly: true });
  try {
    const history: ConversationMessage[] = [];
    for await (const batch of storage.read(`sessions/${sessionId}/conversation`)) for (const line of batch) history.push(JSON.parse(line) as ConversationMessage);
    const calls = history.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "tool-call") : []));
    const results = history.flatMap((m) => (m.role === "tool" ? m.content : []));
    expect(calls.map((c) => c.toolCallId)).toEqual([callId]);
    expect(results).toEqual([{ type: "tool-result", toolCallId: callId, toolName: "danger", output: { type: "text", value: "deleted prod" } }]);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
  } finally {
    await storage.close();
  }
}, 60_000);

test("two serve processes on one state root: a call parked on B is listed and approved on A, and B's turn continues", async () => {
  const dir = write({
    "bot/agent.ts": `export default { name: "Gate" };\n`,
    "bot/tools/danger.ts":
      `export default { description: "Deletes things", needsApproval: true, execute: (input) => "deleted " + input.what };\n`,
  });
  const env = cliEnv(join(dir, ".config"));
  const args = [dir, "--port", "0", "--mode", "single", "--state-root", join(dir, ".state"), "--no-schedules"];
  const a = await startServe(args, env);
  running.push(a);
  const b = await startServe(args, env);
  running.push(b);

  const created = await fetch(`${b.url}/v1/session`, post({ message: `/tool danger {"what":"shared"}` }));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const parked = await eventually(async () => {
    const all = await fetchEvents(b.url, sessionId);
    return all.some((e) => e.type === "action.approval_requested") ? all : undefined;
  }, 10_000, "a parked call on B");
  const callId = parked.find((e) => e.type === "action.approval_requested")!.data["callId"] as string;
  expect((await approvals(a.url, sessionId)).map((x) => x.callId)).toEqual([callId]);

  const stream = await fetch(`${b.url}/v1/session/${sessionId}/stream?startIndex=${parked.length}`);
  const resolved = await fetch(`${a.url}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "approve" }));
  expect(resolved.status).toBe(200);
  expect((await fetch(`${b.url}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "deny" }))).status).toBe(409);
  // B runs the turn: it hears of A's decision through the shared store.
  const tail = await readEvents(stream, (event) => event.type === "session.waiting", 10_000);
  expect(tail.find((e) => e.type === "action.approval_resolved")!.data).toEqual({ callId, decision: "approve" });
  expect(tail.find((e) => e.type === "action.result")!.data).toMatchObject({ output: "deleted shared", isError: false });
  expect(tail.map((e) => e.type)).toContain("turn.completed");
  expect(await fetchEvents(a.url, sessionId)).toEqual([...parked, ...tail]);
  for (const proc of [a, b]) proc.child.kill("SIGTERM");
  for (const proc of [a, b]) expect((await finished(proc)).code).toBe(0);
}, 60_000);
