/**
 * The Mastra peer of bench/peers/run.ts: two agents answering "hello" from a mock model
 * (`ai/test`), one without memory (`plain`) and one keeping a memory thread in a LibSQL file
 * (`remembering`). Built with `mastra build` and served by the built server.
 */
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { LibSQLStore } from "@mastra/libsql";
import { Memory } from "@mastra/memory";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const finishReason = { unified: "stop", raw: "stop" };

function mockModel() {
  return new MockLanguageModelV3({
    doGenerate: async () => ({ content: [{ type: "text", text: "hello" }], finishReason, usage, warnings: [] }),
    doStream: async () => ({
      stream: simulateReadableStream({
        initialDelayInMs: null,
        chunkDelayInMs: null,
        chunks: [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "hello" },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason, usage },
        ],
      }),
    }),
  });
}

const plain = new Agent({ id: "plain", name: "plain", instructions: "You are a benchmark agent.", model: mockModel() });

const remembering = new Agent({
  id: "remembering",
  name: "remembering",
  instructions: "You are a benchmark agent.",
  model: mockModel(),
  memory: new Memory({
    storage: new LibSQLStore({ id: "bench-memory", url: `file:${process.env.BENCH_MASTRA_DB ?? "./mastra.db"}` }),
  }),
});

export const mastra = new Mastra({
  agents: { plain, remembering },
  server: { port: Number(process.env.PORT ?? 4111), host: "127.0.0.1" },
});
