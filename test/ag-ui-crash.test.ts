/**
 * The AG-UI path under a real crash (docs/guide/ag-ui.md "Reconnecting"): SIGKILL the serving
 * process while a run streams, on a sqlite state root; restart on the same root, and reconnect
 * with a fresh official `HttpAgent` on the thread. The `MESSAGES_SNAPSHOT` holds every message the
 * client saw before the kill, the cut turn ends as an error (never a success), and the thread goes
 * on with the next run.
 */
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Message } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { type CliProcess, cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import { eventually } from "./_harness.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-ag-ui-crash-"));
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The events of one raw run, read as they arrive until the connection ends (or is reset). */
async function streamRun(url: string, body: Record<string, unknown>, into: Array<Record<string, unknown>>): Promise<void> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith("data: ")) into.push(JSON.parse(block.slice("data: ".length)) as Record<string, unknown>);
      }
    }
  } catch {
    // The kill resets the connection; what arrived before it is what counts.
  }
}

async function runAgent(agent: HttpAgent): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
  for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return events;
}

const texts = (messages: Message[]): Array<[string, string]> =>
  messages.flatMap((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string" ? [[m.role, m.content] as [string, string]] : []);

test("SIGKILL mid-run on sqlite: the reconnect's MESSAGES_SNAPSHOT loses nothing and the cut run is no success", async () => {
  const stateRoot = join(scratch, "state");
  const args = ["examples/hello", "--port", "0", "--state-root", stateRoot];
  const first = await startServe(args, env);
  running.push(first);
  const url1 = `${first.url}/hello/v1/ag-ui`;

  const answered: Array<Record<string, unknown>> = [];
  const firstMessage = { id: "u1", role: "user", content: "/reply the first answer" };
  await streamRun(url1, { threadId: "crash-thread", runId: "r1", messages: [firstMessage] }, answered);
  expect(answered.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });

  const cut: Array<Record<string, unknown>> = [];
  // A tool step first, streamed to the client; then a step that sleeps past the kill.
  const secondMessage = { id: "u2", role: "user", content: '/tool ls {"path":"."}\n/sleep 30000\n/reply never finished' };
  const streaming = streamRun(url1, { threadId: "crash-thread", runId: "r2", messages: [firstMessage, secondMessage] }, cut);
  await eventually(async () => (cut.some((event) => event.type === "TOOL_CALL_RESULT") ? true : undefined), 15_000, "the run streaming");
  first.child.kill("SIGKILL");
  expect((await finished(first)).signal).toBe("SIGKILL");
  await streaming;
  expect(cut.some((event) => event.type === "RUN_FINISHED")).toBe(false);

  const second = await startServe(args, env);
  running.push(second);
  const url2 = `${second.url}/hello/v1/ag-ui`;
  const agent = new HttpAgent({ url: url2, threadId: "crash-thread" });
  const events = await eventually(async () => {
    const seen = await runAgent(new HttpAgent({ url: url2, threadId: "crash-thread" }));
    // Recovery closes the cut turn; until then the reconnect follows it as still running.
    return seen.some((event) => event.type === "RUN_ERROR") ? seen : undefined;
  }, 20_000, "the cut turn reported");
  const snapshot = events.find((event) => event.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] };
  expect(texts(snapshot.messages)).toEqual([
    ["user", "/reply the first answer"],
    ["assistant", "the first answer"],
    ["user", secondMessage.content],
  ]);
  // The tool call and its result the client saw before the kill are in the snapshot too.
  const shown = cut.find((event) => event.type === "TOOL_CALL_RESULT")!;
  const call = snapshot.messages.find((m) => m.role === "assistant" && m.toolCalls?.length);
  expect(call).toMatchObject({ toolCalls: [{ id: shown["toolCallId"], function: { name: "ls" } }] });
  expect(snapshot.messages.find((m) => m.role === "tool")).toMatchObject({ toolCallId: shown["toolCallId"], content: shown["content"] });
  expect(events.find((event) => event.type === "RUN_ERROR")).toMatchObject({ message: "host restarted" });
  expect(events.some((event) => event.type === "RUN_FINISHED")).toBe(false);

  // The thread goes on.
  await runAgent(agent);
  agent.addMessage({ id: "u3", role: "user", content: "/reply after the crash" });
  const next = await runAgent(agent);
  expect(next.find((event) => event.type === "RUN_FINISHED")).toMatchObject({ outcome: { type: "success" } });
  expect(texts(agent.messages).at(-1)).toEqual(["assistant", "after the crash"]);
}, 90_000);
