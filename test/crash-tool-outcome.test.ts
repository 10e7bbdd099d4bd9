/**
 * A real serving process SIGKILLed while a tool body runs (docs/design/tools.md "Side effects and
 * crashes"): recovery records the running call as `outcome_unknown` on the stream and for the
 * model, records the calls after it as never run, and runs none of them again; an idempotent
 * tool's cut call tells the model it may call again. The model is a local OpenAI-compatible server.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
}

let fake: Server;
const requests: ChatMessage[][] = [];
const write = tempProjects("crash-tool-outcome");
const running: CliProcess[] = killAfterEach();

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const toolCalls = (names: string[]): string[] => [
  chunk({ role: "assistant", tool_calls: names.map((name, index) => ({ index, id: `call_${name}_${requests.length}`, type: "function", function: { name, arguments: "{}" } })) }),
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
      const last = messages.at(-1)!;
      const frames =
        last.role === "user" && String(last.content).includes("pay please")
          ? toolCalls(["pay", "note"])
          : last.role === "user" && String(last.content).includes("look please")
            ? toolCalls(["lookup"])
            : text("fine again");
      return new Response(frames.join("") + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
    },
  });
  await fake.ready();
});
afterAll(async () => {
  await fake.close(true);
});

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** A tool that records each run of its body in the project directory, then hangs. */
const sideEffect = (name: string, extra = ""): string =>
  `import { appendFileSync } from "node:fs";
export default { description: "${name}",${extra} execute: () => {
  appendFileSync(new URL("../../${name}.runs", import.meta.url), "ran\\n");
  return new Promise((resolve) => setTimeout(() => resolve("${name} done"), 60000));
} };\n`;

const projectFiles = {
  "bot/agent.ts": `export default { model: "openai-compatible/fake-1" };\n`,
  "bot/tools/pay.ts": sideEffect("pay"),
  "bot/tools/note.ts": sideEffect("note"),
  "bot/tools/lookup.ts": sideEffect("lookup", " idempotent: true,"),
};

const runs = (dir: string, name: string): number =>
  existsSync(join(dir, `${name}.runs`)) ? readFileSync(join(dir, `${name}.runs`), "utf8").split("\n").filter(Boolean).length : 0;

async function crashDuring(message: string, tool: string) {
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
  // The body has run (its side effect is done) and hangs: the crash cuts it short.
  await eventually(async () => (runs(dir, tool) === 1 ? true : undefined), 10_000, `${tool} running`);
  first.child.kill("SIGKILL");
  expect((await finished(first)).signal).toBe("SIGKILL");
  const second = await startServe(args, env);
  running.push(second);
  const recovered = await fetchEvents(second.url, sessionId);
  return { dir, second, sessionId, continuationToken, recovered };
}

test("SIGKILL while a non-idempotent tool runs: outcome_unknown, the next call never ran, nothing runs twice", async () => {
  const { dir, second, sessionId, continuationToken, recovered } = await crashDuring("pay please", "pay");
  const results = recovered.filter((e) => e.type === "action.result").map((e) => e.data);
  expect(results).toEqual([
    expect.objectContaining({ toolName: "pay", isError: true, outcome: "outcome_unknown", idempotent: false }),
    expect.objectContaining({ toolName: "note", isError: true }),
  ]);
  expect(results[1]).not.toHaveProperty("outcome");
  expect(String(results[0]!["output"])).toMatch(/^outcome_unknown: .*not run again/);
  expect(String(results[1]!["output"])).toContain("never ran");
  // The result is recorded before the turn fails, on the stream as in storage.
  expect(recovered.slice(-3).map((e) => e.type)).toEqual(["action.result", "turn.failed", "session.waiting"]);

  const before = requests.length;
  const followUp = await fetch(`${second.url}/v1/session/${sessionId}`, post({ continuationToken, message: "did it pay?" }));
  expect(followUp.status).toBe(200);
  await eventually(async () => {
    const all = await fetchEvents(second.url, sessionId);
    return all.length > recovered.length && all.at(-1)?.type === "session.waiting" ? all : undefined;
  }, 10_000, "the next turn");
  // The model read the outcome as the call's result.
  const history = requests.slice(before).at(0)!;
  const tool = history.filter((m) => m.role === "tool").map((m) => String(m.content));
  expect(tool).toHaveLength(2);
  expect(tool[0]).toContain("outcome_unknown");
  expect(tool[1]).toContain("never ran");
  // Neither body ran again: pay once (before the crash), note never.
  expect(runs(dir, "pay")).toBe(1);
  expect(runs(dir, "note")).toBe(0);
  second.child.kill("SIGTERM");
  await finished(second);
}, 60_000);

test("SIGKILL while an idempotent tool runs: outcome_unknown tells the model calling again is safe", async () => {
  const { dir, second, recovered } = await crashDuring("look please", "lookup");
  const result = recovered.find((e) => e.type === "action.result")?.data;
  expect(result).toMatchObject({ toolName: "lookup", outcome: "outcome_unknown", idempotent: true, isError: true });
  expect(String(result?.["output"])).toContain("calling it again is safe");
  expect(runs(dir, "lookup")).toBe(1);
  second.child.kill("SIGTERM");
  await finished(second);
}, 60_000);
