/** A whole turn through the host against a local OpenAI-compatible server (the real provider path). */
import { afterAll, beforeAll, expect, it } from "vitest";
import { serve, type Server } from "srvx";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { allEvents, describeHost, eventually, postJson, project, quietLogger } from "./_harness.ts";

let fake: Server;
const seen: Array<{ authorization: string | null; messages: Array<{ role: string; content: unknown }> }> = [];

const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "fake-1", choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 } })}\n\n`;

beforeAll(async () => {
  fake = serve({
    hostname: "127.0.0.1",
    port: 0,
    silent: true,
    gracefulShutdown: false,
    async fetch(request) {
      const body = (await request.json()) as { messages: Array<{ role: string; content: unknown }> };
      seen.push({ authorization: request.headers.get("authorization"), messages: body.messages });
      const last = body.messages.at(-1)!;
      const frames =
        last.role === "user" && String(last.content).includes("weather")
          ? [frame({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] }), frame({}, "tool_calls")]
          : ["Hello", " from", " the", " provider"].map((word) => frame({ content: word })).concat(frame({}, "stop"));
      return new Response(frames.join("") + usage + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
    },
  });
  await fake.ready();
});

afterAll(async () => {
  await fake.close(true);
});

describeHost(
  "provider turns",
  () => ({
    agents: [
      {
        slug: "hello",
        project: project({ agent: { model: "openai-compatible/fake-1", prices: { "openai-compatible/fake-1": { input: 1, output: 2 } } } }),
        storage: createMemoryStorage(),
      },
    ],
    models: { credentials: { "openai-compatible": "test-key" }, openaiCompatibleBaseURL: new URL("/v1", fake.url).toString() },
    logger: quietLogger,
    drainTimeoutMs: 50,
  }),
  (target) => {
    it("streams the provider's reply as deltas and records its usage and cost", async () => {
      const { sessionId } = (await (await target().fetch("/hello/v1/session", postJson({ message: "hi" }))).json()) as { sessionId: string };
      const events = await eventually(async () => {
        const all = await allEvents(target(), "/hello", sessionId);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      });
      expect(events.filter((e) => e.type === "message.appended").map((e) => e.data["delta"])).toEqual(["Hello", " from", " the", " provider"]);
      expect(events.find((e) => e.type === "message.completed")!.data).toEqual({ text: "Hello from the provider", finishReason: "stop" });
      expect(events.find((e) => e.type === "turn.completed")!.data).toEqual({
        usage: { inputTokens: 42, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: "openai-compatible/fake-1",
      });
      const request = seen.at(-1)!;
      expect(request.authorization).toBe("Bearer test-key");
      expect(request.messages[0]).toEqual({ role: "system", content: "You are a test agent." });
      const cost = (await (await target().fetch(`/hello/v1/session/${sessionId}/cost`)).json()) as { totals: { estimatedCostUsd: number; unpricedTurns: number } };
      expect(cost.totals.unpricedTurns).toBe(0);
      expect(cost.totals.estimatedCostUsd).toBeCloseTo((42 * 1 + 7 * 2) / 1_000_000, 9);
    });

    it("answers a tool call the agent does not have with an error result and continues", async () => {
      const { sessionId } = (await (await target().fetch("/hello/v1/session", postJson({ message: "weather in Oslo?" }))).json()) as { sessionId: string };
      const events = await eventually(async () => {
        const all = await allEvents(target(), "/hello", sessionId);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      });
      expect(events.find((e) => e.type === "actions.requested")!.data).toEqual({ actions: [{ toolCallId: "call_1", toolName: "weather", input: { city: "Oslo" } }] });
      expect(events.find((e) => e.type === "action.result")!.data).toEqual({ toolCallId: "call_1", toolName: "weather", output: "unknown tool: weather", isError: true });
      const completed = events.filter((e) => e.type === "message.completed").map((e) => e.data);
      expect(completed).toEqual([{ text: "", finishReason: "tool_call" }, { text: "Hello from the provider", finishReason: "stop" }]);
      expect(events.filter((e) => e.type === "step.started").map((e) => e.data["stepIndex"])).toEqual([0, 1]);
      const usageData = events.find((e) => e.type === "turn.completed")!.data["usage"] as { inputTokens: number };
      expect(usageData.inputTokens).toBe(84);
    });
  },
);
