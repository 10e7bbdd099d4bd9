import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../src/testing.ts";
import type { ConversationMessage, ModelStepRequest, ModelStreamPart } from "../src/base/ports/model.ts";

function request(messages: ConversationMessage[], overrides: Partial<ModelStepRequest> = {}): ModelStepRequest {
  return { system: "", messages, tools: [], signal: new AbortController().signal, params: {}, ...overrides };
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

const textOf = (parts: ModelStreamPart[], type: "text-delta" | "reasoning-delta"): string =>
  parts.map((part) => (part.type === type ? part.delta : "")).join("");

const finishOf = (parts: ModelStreamPart[]) => {
  const last = parts.at(-1);
  if (last?.type !== "finish") throw new Error(`stream did not end with finish: ${JSON.stringify(last)}`);
  return last;
};

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Drives the model like the turn engine: run tool calls, append results, call again. */
async function runLoop(userText: string, history: ConversationMessage[] = []) {
  const model = createScriptedModel();
  const messages: ConversationMessage[] = [...history, { role: "user", content: userText }];
  const steps: ModelStreamPart[][] = [];
  for (let step = 0; step < 10; step++) {
    const parts = await collect(model.stream(request(messages)));
    steps.push(parts);
    const calls = parts.filter((part) => part.type === "tool-call");
    if (finishOf(parts).finishReason !== "tool_call") return { steps, messages };
    messages.push({ role: "assistant", content: calls.map((c) => ({ type: "tool-call", toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })) });
    messages.push({ role: "tool", content: calls.map((c) => ({ type: "tool-result", toolCallId: c.toolCallId, toolName: c.toolName, output: { type: "json", value: { ok: true } } })) });
  }
  throw new Error("loop did not finish");
}

describe("scripted model", () => {
  it("has the id `scripted`", () => {
    expect(createScriptedModel().id).toBe("scripted");
  });

  it("/reply answers exactly the text", async () => {
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: "/reply Hello there, world!" }])));
    expect(textOf(parts, "text-delta")).toBe("Hello there, world!");
    expect(finishOf(parts).finishReason).toBe("stop");
    expect(parts.filter((part) => part.type === "finish")).toHaveLength(1);
  });

  const answerTo = async (content: string): Promise<string> => {
    const { steps } = await runLoop(content);
    return textOf(steps.at(-1) ?? [], "text-delta");
  };

  it("a bare /reply answers with the Markdown below it, list and code block as written, up to the next directive", async () => {
    const markdown = [
      "Three steps:",
      "",
      "- install",
      "  - with `npm install`",
      "- serve",
      "",
      "```sh",
      "npx agent-serve serve examples/hello",
      "/reply inside a fence is part of the answer",
      "```",
    ].join("\n");
    const { steps } = await runLoop(`/tool t {}\n/reply\n\n${markdown}\n\n/reason after the reply`);
    expect(steps).toHaveLength(2);
    expect(textOf(steps[1]!, "text-delta")).toBe(markdown);
    expect(textOf(steps[1]!, "reasoning-delta")).toBe("after the reply");
  });

  it("a bare /reply stops at the next directive and joins other replies; an unclosed fence runs to the end", async () => {
    expect(await answerTo("/reply\n# Title\n  indented\n/reply second")).toBe("# Title\n  indented\nsecond");
    expect(await answerTo("/reply\n~~~\n/fail not a directive here\n")).toBe("~~~\n/fail not a directive here");
    expect(await answerTo("/reply")).toBe("");
  });

  it("/reply <text> stays one line: text below it is not added (a reminder's note below its prompt), text before is not echoed", async () => {
    expect(await answerTo("/reply build checked\n\n(Standing instruction for reminder rem_1: stop when green)")).toBe("build checked");
    expect(await answerTo("some words\n/reply only this\nmore words")).toBe("only this");
  });

  it("echoes non-directive lines, trimmed and joined with newlines", async () => {
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: "  first line\nsecond line  " }])));
    expect(textOf(parts, "text-delta")).toBe("echo: first line\nsecond line");
  });

  it("answers `done` when there is nothing to echo", async () => {
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: "/reason thinking only" }])));
    expect(textOf(parts, "text-delta")).toBe("done");
  });

  it("reads only the latest user message", async () => {
    const messages: ConversationMessage[] = [
      { role: "user", content: "/reply old" },
      { role: "assistant", content: [{ type: "text", text: "old" }] },
      { role: "user", content: "/reply new" },
    ];
    const parts = await collect(createScriptedModel().stream(request(messages)));
    expect(textOf(parts, "text-delta")).toBe("new");
  });

  it("streams text as several chunked deltas", async () => {
    const text = "The quick brown fox jumps over the lazy dog";
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: `/reply ${text}` }])));
    const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : []));
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.join("")).toBe(text);
    for (const delta of deltas) expect(delta.length).toBeLessThanOrEqual(8);

    const wide = await collect(createScriptedModel({ chunkSize: 100 }).stream(request([{ role: "user", content: `/reply ${text}` }])));
    expect(wide.filter((part) => part.type === "text-delta")).toHaveLength(1);
  });

  it("splits a long word into pieces of chunkSize", async () => {
    const word = "x".repeat(20);
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: `/reply ${word}` }])));
    const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : []));
    expect(deltas).toEqual(["xxxxxxxx", "xxxxxxxx", "xxxx"]);
  });

  it("/reason emits reasoning deltas and reasoning-end before the answer", async () => {
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: "/reason Let me think about it\n/reply ok" }])));
    expect(textOf(parts, "reasoning-delta")).toBe("Let me think about it");
    const types = parts.map((part) => part.type);
    const end = types.indexOf("reasoning-end");
    expect(end).toBeGreaterThan(0);
    expect(types.lastIndexOf("reasoning-delta")).toBeLessThan(end);
    expect(types.indexOf("text-delta")).toBeGreaterThan(end);
    expect(textOf(parts, "text-delta")).toBe("ok");
  });

  it("/fail throws the message", async () => {
    await expect(collect(createScriptedModel().stream(request([{ role: "user", content: "/fail model exploded" }])))).rejects.toThrow(
      /^model exploded$/,
    );
  });

  it("/tool with invalid JSON throws a clear error", async () => {
    const run = collect(createScriptedModel().stream(request([{ role: "user", content: "/tool weather {city: Oslo}" }])));
    await expect(run).rejects.toThrow(/\/tool weather: input is not valid JSON/);
  });

  it("/tool lines make one step each, in order, then answer done", async () => {
    const { steps, messages } = await runLoop('/tool weather {"city":"Oslo"}\n/tool clock {}');
    expect(steps).toHaveLength(3);
    const [first, second, last] = steps;
    expect(first?.[0]).toMatchObject({ type: "tool-call", toolName: "weather", input: { city: "Oslo" } });
    expect(first?.filter((part) => part.type === "text-delta")).toHaveLength(0);
    expect(second?.[0]).toMatchObject({ type: "tool-call", toolName: "clock", input: {} });
    expect(finishOf(first ?? []).finishReason).toBe("tool_call");
    expect(textOf(last ?? [], "text-delta")).toBe("done");
    expect(finishOf(last ?? []).finishReason).toBe("stop");
    const ids = messages.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])) : []));
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^call_1_/);
    expect(ids[1]).toMatch(/^call_2_/);
  });

  it("answers with /reply after the tool steps and never collides ids across turns", async () => {
    const first = await runLoop("/tool t {}\n/reply all set");
    expect(textOf(first.steps.at(-1) ?? [], "text-delta")).toBe("all set");
    // The second turn counts only the tool calls after its own user message.
    const second = await runLoop("/tool t {}", first.messages);
    expect(second.steps).toHaveLength(2);
    const idOf = (steps: ModelStreamPart[][]) => steps[0]?.find((part) => part.type === "tool-call");
    const a = idOf(first.steps);
    const b = idOf(second.steps);
    expect(a?.type === "tool-call" && b?.type === "tool-call" && a.toolCallId !== b.toolCallId).toBe(true);
  });

  it("/sleep waits before answering", async () => {
    const started = Date.now();
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: "/sleep 60\n/reply late" }])));
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(textOf(parts, "text-delta")).toBe("late");
  });

  it("/sleep is aborted promptly by the signal", async () => {
    const controller = new AbortController();
    const run = collect(createScriptedModel().stream(request([{ role: "user", content: "/sleep 20000\n/reply never" }], { signal: controller.signal })));
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const error: unknown = await withTimeout(run.then(() => undefined, (e: unknown) => e), 15_000);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("AbortError");
    // Well under the 20 s sleep, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops between deltas when aborted mid-stream", async () => {
    const controller = new AbortController();
    const stream = createScriptedModel({ chunkSize: 2 }).stream(request([{ role: "user", content: `/reply ${"ab ".repeat(20)}` }], { signal: controller.signal }));
    const seen: ModelStreamPart[] = [];
    const run = (async () => {
      for await (const part of stream) {
        seen.push(part);
        if (seen.length === 2) controller.abort();
      }
    })();
    await expect(withTimeout(run, 15_000)).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toHaveLength(2);
  });

  it("computes usage from prompt and output characters", async () => {
    const messages: ConversationMessage[] = [
      { role: "user", content: "hello" },
      { role: "assistant", content: [{ type: "text", text: "echo: hello" }, { type: "tool-call", toolCallId: "c", toolName: "t", input: { a: 1 } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c", toolName: "t", output: { type: "json", value: [1, 2] } }] },
      { role: "user", content: "/reason why\n/reply abcdefghij" },
    ];
    const system = "You are terse.";
    const parts = await collect(createScriptedModel().stream(request(messages, { system })));
    const promptChars = system.length + 5 + 11 + JSON.stringify({ a: 1 }).length + JSON.stringify([1, 2]).length + messages[3]!.content.length;
    expect(finishOf(parts).usage).toEqual({
      inputTokens: Math.ceil(promptChars / 4),
      outputTokens: Math.ceil(("why".length + "abcdefghij".length) / 4),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it("counts the tool-call JSON as output of a tool step", async () => {
    const parts = await collect(createScriptedModel().stream(request([{ role: "user", content: '/tool search {"query":"a long query"}' }])));
    const input = JSON.stringify({ query: "a long query" });
    expect(finishOf(parts).usage.outputTokens).toBe(Math.ceil(input.length / 4));
    expect(finishOf(parts).usage.inputTokens).toBe(Math.ceil('/tool search {"query":"a long query"}'.length / 4));
  });
});
