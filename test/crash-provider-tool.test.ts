/**
 * A real serving process on the AI SDK provider path, killed during a tool call and while a call
 * is parked for approval (docs/design/faults.md): recovery gives every open call an error result
 * (`host restarted`), so the next turn reaches the model with a whole history and succeeds; a
 * parked call instead stays parked and, once approved, its turn reaches the model with the tool's
 * result (docs/design/tools.md "Approvals"). The model is a local OpenAI-compatible server that
 * refuses a history with an unanswered call.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { serve, type Server } from "srvx";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string }>;
}

let fake: Server;
const requests: ChatMessage[][] = [];
const write = tempProjects("crash-provider");
const running: CliProcess[] = killAfterEach();

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const toolCall = (id: string, name: string): string[] => [
  chunk({ role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "{}" } }] }),
  chunk({}, "tool_calls"),
];
const text = (words: string): string[] => [chunk({ content: words }), chunk({}, "stop")];

beforeAll(async () => {
  fake = serve({
    hostname: "127.0.0.1",
    port: 0,
    silent: true,
    gracefulShutdown: false,
    async fetch(request) {
      const { messages } = (await request.json()) as { messages: ChatMessage[] };
      requests.push(messages);
      // A provider refuses a history with a call that has no result, as OpenAI does.
      const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id));
      const open = messages.flatMap((m) => m.tool_calls ?? []).filter((call) => !answered.has(call.id));
      if (open.length > 0) {
        return Response.json({ error: { message: `tool_call_ids without response: ${open.map((c) => c.id).join(",")}` } }, { status: 400 });
      }
      const last = messages.at(-1)!;
      const frames =
        last.role === "user" && String(last.content).includes("slow please")
          ? toolCall(`call_slow_${requests.length}`, "slow")
          : last.role === "user" && String(last.content).includes("danger please")
            ? toolCall(`call_danger_${requests.length}`, "danger")
            : text(last.role === "tool" ? "the tool answered" : "fine again");
      return new Response(frames.join("") + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
    },
  });
  await fake.ready();
});
afterAll(async () => {
  await fake.close(true);
});

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const projectFiles = {
  "bot/agent.ts": `export default { model: "openai-compatible/fake-1" };\n`,
  "bot/tools/slow.ts": `export default { description: "Takes a while", execute: () => new Promise((resolve) => setTimeout(() => resolve("slow done"), 60000)) };\n`,
  "bot/tools/danger.ts": `export default { description: "Needs a human", needsApproval: true, execute: () => "done" };\n`,
};

test("SIGKILL while a call is parked for approval: approved after the restart, the turn reaches the model with the result", async () => {
  const dir = write(projectFiles);
  const env = cliEnv(`${dir}/.config`, {
    AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY: "test-key",
    AGENT_SERVE_OPENAI_BASE_URL: new URL("/v1", fake.url).toString(),
  });
  const args = [dir, "--port", "0", "--mode", "single", "--state-root", `${dir}/.state`];
  const first = await startServe(args, env);
  running.push(first);
  const created = await fetch(`${first.url}/v1/session`, post({ message: "danger please" }));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const parked = await eventually(async () => {
    const all = await fetchEvents(first.url, sessionId);
    return all.some((e) => e.type === "action.approval_requested") ? all : undefined;
  }, 10_000, "a parked call");
  const callId = parked.find((e) => e.type === "action.approval_requested")!.data["callId"] as string;
  first.child.kill("SIGKILL");
  expect((await finished(first)).signal).toBe("SIGKILL");

  const second = await startServe(args, env);
  running.push(second);
  expect(await fetchEvents(second.url, sessionId)).toEqual(parked);
  const listed = (await (await fetch(`${second.url}/v1/session/${sessionId}/approvals`)).json()) as { approvals: Array<{ callId: string }> };
  expect(listed.approvals.map((a) => a.callId)).toEqual([callId]);
  const before = requests.length;
  expect((await fetch(`${second.url}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "approve" }))).status).toBe(200);
  const after = await eventually(async () => {
    const all = await fetchEvents(second.url, sessionId);
    return all.at(-1)?.type === "session.waiting" ? all : undefined;
  }, 10_000, "the resumed turn");
  const tail = after.slice(parked.length);
  expect(tail.map((e) => e.type)).toContain("turn.completed");
  expect(tail.map((e) => e.type)).not.toContain("turn.failed");
  expect(tail.find((e) => e.type === "message.completed")?.data).toMatchObject({ text: "the tool answered" });
  // The provider (which refuses unanswered calls) got the call answered with the tool's result.
  const history = requests.slice(before).at(0)!;
  const results = history.filter((m) => m.role === "tool");
  expect(results.map((m) => [m.tool_call_id, String(m.content)])).toEqual([[callId, "done"]]);
  second.child.kill("SIGTERM");
  await finished(second);
}, 60_000);

test.each([["during a tool call", "slow please", "action.result"]])("SIGKILL %s: the next turn with the AI SDK provider succeeds", async (_title, message, waitFor) => {
  const dir = write(projectFiles);
  const env = cliEnv(`${dir}/.config`, {
    AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY: "test-key",
    AGENT_SERVE_OPENAI_BASE_URL: new URL("/v1", fake.url).toString(),
  });
  const args = [dir, "--port", "0", "--mode", "single", "--state-root", `${dir}/.state`];
  const first = await startServe(args, env);
  running.push(first);
  const created = await fetch(`${first.url}/v1/session`, post({ message }));
  expect(created.status).toBe(200);
  const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
  const started = waitFor === "action.result" ? "actions.requested" : waitFor;
  await eventually(async () => ((await fetchEvents(first.url, sessionId)).some((e) => e.type === started) ? true : undefined), 10_000, started);

  first.child.kill("SIGKILL");
  expect((await finished(first)).signal).toBe("SIGKILL");

  const second = await startServe(args, env);
  running.push(second);
  const recovered = await fetchEvents(second.url, sessionId);
  expect(recovered.at(-1)?.type).toBe("session.waiting");
  expect(recovered.filter((e) => e.type === "turn.failed").map((e) => e.data)).toEqual([{ message: "host restarted" }]);

  const before = requests.length;
  const followUp = await fetch(`${second.url}/v1/session/${sessionId}`, post({ continuationToken, message: "are you there?" }));
  expect(followUp.status).toBe(200);
  const after = await eventually(async () => {
    const all = await fetchEvents(second.url, sessionId);
    return all.length > recovered.length && all.at(-1)?.type === "session.waiting" ? all : undefined;
  }, 10_000, "the next turn");
  const turn = after.slice(recovered.length);
  expect(turn.map((e) => e.type)).toContain("turn.completed");
  expect(turn.find((e) => e.type === "message.completed")?.data).toMatchObject({ text: "fine again" });
  // The model saw the cut call closed with the restart as its error result.
  const history = requests.slice(before).at(0)!;
  const closed = history.filter((m) => m.role === "tool");
  expect(closed).toHaveLength(1);
  expect(String(closed[0]!.content)).toContain("host restarted");
  second.child.kill("SIGTERM");
  await finished(second);
}, 60_000);
