import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "srvx";
import type { Server } from "srvx";
import { createAiSdkModel } from "../src/engine/model/ai-sdk.ts";
import { createModelResolver, defaultModelId, normalizeModelSpec, validateModelId } from "../src/engine/model/resolve.ts";
import type { ConversationMessage, LanguageModelPort, ModelStepRequest, ModelStreamPart } from "../src/base/ports/model.ts";

/** A fake Chat Completions server: the last user message picks the behaviour. */
interface Recorded {
  path: string;
  authorization: string | null;
  body: { model: string; messages: Array<Record<string, unknown>>; tools?: unknown[]; stream_options?: unknown; reasoning_effort?: unknown };
}

const recorded: Recorded[] = [];
let server: Server;
let baseURL: string;

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  ({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] });
const usageChunk = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "fake-1", choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49, prompt_tokens_details: { cached_tokens: 10 } } };

function sse(chunks: unknown[], hang = false): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(`data: ${JSON.stringify(c)}\n\n`));
      if (hang) return;
      controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function lastUserText(messages: Array<Record<string, unknown>>): string {
  const user = messages.findLast((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

async function handle(req: Request): Promise<Response> {
  const body = (await req.json()) as Recorded["body"];
  recorded.push({ path: new URL(req.url).pathname, authorization: req.headers.get("authorization"), body });
  const last = body.messages.at(-1);
  const text = lastUserText(body.messages);
  if (text.includes("unauthorized")) {
    return Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, { status: 401 });
  }
  if (text.includes("overloaded")) {
    return Response.json({ error: { message: "upstream overloaded" } }, { status: 500, headers: { "retry-after-ms": "1" } });
  }
  if (text.includes("hang")) return sse([chunk({ role: "assistant", content: "partial" })], true);
  if (text.includes("weather") && last?.role === "user") {
    return sse([
      chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_abc", type: "function", function: { name: "weather", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      chunk({}, "tool_calls"),
      usageChunk,
    ]);
  }
  const reply = last?.role === "tool" ? `tool said ${String(last.content)}` : "Hello from the fake server";
  const words = reply.split(/(?= )/);
  return sse([chunk({ role: "assistant", content: "" }), ...words.map((w) => chunk({ content: w })), chunk({}, "stop"), usageChunk]);
}

beforeAll(async () => {
  server = serve({ fetch: handle, port: 0, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
  await server.ready();
  baseURL = new URL("/v1", server.url).toString();
});

afterAll(async () => {
  await server.close(true);
});

function request(content: string, overrides: Partial<ModelStepRequest> = {}): ModelStepRequest {
  return { system: "Be brief.", messages: [{ role: "user", content }], tools: [], signal: new AbortController().signal, params: {}, ...overrides };
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

async function failure(parts: AsyncIterable<ModelStreamPart>): Promise<Error> {
  try {
    await collect(parts);
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`non-Error thrown: ${String(error)}`);
  }
  throw new Error("the model call did not fail");
}

const weatherTool = { name: "weather", description: "Weather by city", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

/** The `openai` provider pointed at the fake through `fetch`, which is what `ModelOptions.fetch` is for. */
const redirectFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  return fetch(new URL(url.pathname.replace(/^\/v1\//, "") + url.search, `${baseURL}/`), init);
};

const models: Array<[string, () => LanguageModelPort]> = [
  ["openai-compatible/fake-1", () => createModelResolver({ openaiCompatibleBaseURL: baseURL, credentials: { "openai-compatible": "local-key" } })({ id: "openai-compatible/fake-1", params: {} })],
  ["openai/fake-1", () => createModelResolver({ credentials: { openai: "sk-test" }, fetch: redirectFetch })({ id: "openai/fake-1", params: {} })],
];

describe.each(models)("%s through createModelResolver", (id, make) => {
  it("streams text as several deltas and maps usage", async () => {
    const before = recorded.length;
    const model = make();
    expect(model.id).toBe(id);
    const parts = await collect(model.stream(request("say hello")));
    const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : []));
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.join("")).toBe("Hello from the fake server");
    expect(parts.at(-1)).toEqual({ type: "finish", finishReason: "stop", usage: { inputTokens: 42, outputTokens: 7, cacheReadTokens: 10, cacheWriteTokens: 0 } });
    const sent = recorded.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe("/v1/chat/completions");
    expect(sent[0]?.authorization).toBe(id.startsWith("openai/") ? "Bearer sk-test" : "Bearer local-key");
    expect(sent[0]?.body.model).toBe("fake-1");
    expect(sent[0]?.body.messages[0]).toMatchObject({ content: "Be brief." });
  });

  it("parses a tool call and sends the tool result back on the next step", async () => {
    const model = make();
    const messages: ConversationMessage[] = [{ role: "user", content: "weather in Oslo?" }];
    const first = await collect(model.stream(request("", { messages, tools: [weatherTool] })));
    const call = first.find((p) => p.type === "tool-call");
    expect(call).toEqual({ type: "tool-call", toolCallId: "call_abc", toolName: "weather", input: { city: "Oslo" } });
    expect(first.at(-1)).toMatchObject({ type: "finish", finishReason: "tool_call" });
    expect(recorded.at(-1)?.body.tools).toEqual([expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "weather" }) })]);

    messages.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: "call_abc", toolName: "weather", input: { city: "Oslo" } }] });
    messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: "call_abc", toolName: "weather", output: { type: "json", value: { tempC: 3 } } }] });
    const second = await collect(model.stream(request("", { messages, tools: [weatherTool] })));
    const text = second.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");
    expect(text).toBe('tool said {"tempC":3}');
    expect(recorded.at(-1)?.body.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_abc" });
  });

  it("turns HTTP 401 into a thrown error with the provider's message", async () => {
    const error = await failure(make().stream(request("unauthorized please")));
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.message).toContain("HTTP 401");
    expect(error.message).toContain(id);
  });

  it("retries HTTP 500 and then throws with the provider's message", async () => {
    const before = recorded.length;
    const error = await failure(make().stream(request("overloaded now")));
    expect(error.message).toContain("upstream overloaded");
    expect(error.message).toContain("HTTP 500");
    expect(recorded.length - before).toBe(3);
  });

  it("throws an AbortError when aborted mid-stream", async () => {
    const controller = new AbortController();
    const seen: ModelStreamPart[] = [];
    const run = (async () => {
      for await (const part of make().stream(request("hang forever", { signal: controller.signal }))) {
        seen.push(part);
        controller.abort();
      }
    })();
    const error = await Promise.race([run.then(() => new Error("ended without abort"), (e: unknown) => e), timeout(5000)]);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(seen).toEqual([{ type: "text-delta", delta: "partial" }]);
  });
});

describe("createAiSdkModel", () => {
  it("points the openai provider at any Chat Completions server through baseURL", async () => {
    const model = createAiSdkModel({ provider: "openai", modelId: "fake-1", apiKey: "sk-direct", baseURL });
    const parts = await collect(model.stream(request("say hello")));
    expect(parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")).toBe("Hello from the fake server");
    expect(recorded.at(-1)).toMatchObject({ path: "/v1/chat/completions", authorization: "Bearer sk-direct" });
  });

  it("wires the anthropic provider (Messages API) and surfaces its errors", async () => {
    const model = createModelResolver({ credentials: { anthropic: "sk-ant" }, fetch: redirectFetch })({ id: "anthropic/fake-1", params: {} });
    const error = await failure(model.stream(request("unauthorized please")));
    expect(error.message).toMatch(/anthropic\/fake-1: .*HTTP 401/);
    expect(recorded.at(-1)?.path).toBe("/v1/messages");
  });
});

describe("model params", () => {
  it("passes effort as the reasoning effort to openai-compatible servers", async () => {
    const model = createModelResolver({ openaiCompatibleBaseURL: baseURL })({ id: "openai-compatible/fake-1", params: { effort: "low", other: "x" } });
    await collect(model.stream(request("say hello")));
    expect(recorded.at(-1)?.body.reasoning_effort).toBe("low");
    expect(recorded.at(-1)?.authorization).toBeNull();
  });
});

describe("credential errors", () => {
  it("names the env var and login when a provider credential is missing", () => {
    const resolve = createModelResolver({});
    expect(() => resolve({ id: "openai/gpt-5-mini", params: {} })).toThrow(/OPENAI_API_KEY.*agent-serve login/);
    expect(() => resolve({ id: "anthropic/claude-sonnet-4-5", params: {} })).toThrow(/ANTHROPIC_API_KEY.*agent-serve login/);
  });

  it("needs a base URL for openai-compatible models", () => {
    expect(() => createModelResolver({})({ id: "openai-compatible/llama", params: {} })).toThrow(/AGENT_SERVE_OPENAI_BASE_URL/);
  });

  it("serves unknown ids and credential-less bare ids with the scripted model; rejects suffix-style ids", () => {
    const resolve = createModelResolver({ credentials: { openai: "sk" } });
    expect(resolve({ id: "mistral/large", params: {} }).id).toBe("scripted");
    expect(resolve({ id: "grok-4.5", params: {} }).id).toBe("scripted");
    expect(resolve({ id: "gpt-5", params: {} }).id).toBe("openai/gpt-5");
    expect(createModelResolver({ credentials: { xai: "x" } })({ id: "grok-4.5", params: {} }).id).toBe("xai/grok-4.5");
    expect(() => resolve({ id: "openai/o3-mini-high", params: {} })).toThrow(/params/);
  });
});

describe("model ids", () => {
  it("normalizes string and object forms", () => {
    expect(normalizeModelSpec(undefined)).toBeUndefined();
    expect(normalizeModelSpec("scripted")).toEqual({ id: "scripted", params: {} });
    const spec = normalizeModelSpec({ id: "openai/gpt-5", params: [{ id: "effort", value: "high" }, { id: "fast", value: "true" }] });
    expect(spec).toEqual({ id: "openai/gpt-5", params: { effort: "high", fast: "true" } });
  });

  it("accepts the supported forms and rejects the rest with a reason", () => {
    for (const id of ["scripted", "openai/gpt-5-mini", "anthropic/claude-sonnet-4-5", "openai-compatible/llama3.2:latest"]) {
      expect(validateModelId(id)).toBeUndefined();
    }
    // Bare ids map by prefix (docs/design/agent-sdk-compatibility.md); unknown ones only warn.
    expect(validateModelId("gpt-5")).toBeUndefined();
    expect(validateModelId("composer-1")).toBeUndefined();
    expect(validateModelId("gpt-5-high")).toMatch(/\{id: "gpt-5", params: \[\{id: "effort", value: "high"\}\]\}/);
    expect(validateModelId("openai/")).toMatch(/names no model/);
    expect(validateModelId("openai/gpt-5-low")).toMatch(/params: \[\{id: "effort", value: "low"\}\]/);
    expect(validateModelId("openai-compatible/qwen3:high")).toMatch(/effort/);
    expect(validateModelId("anthropic/claude-sonnet-4-5-fast")).toMatch(/\{id: "fast", value: "true"\}/);
  });

  it("resolves scripted offline and picks a default by credential", () => {
    expect(createModelResolver({})({ id: "scripted", params: {} }).id).toBe("scripted");
    const offline = defaultModelId();
    expect(offline.id).toBe("scripted");
    expect(offline.notice).toMatch(/no model credential found.*OPENAI_API_KEY.*agent-serve login/);
    expect(defaultModelId({ openai: "k", anthropic: "k" })).toEqual({ id: "openai/gpt-5-mini" });
    expect(defaultModelId({ anthropic: "k" })).toEqual({ id: "anthropic/claude-sonnet-4-5" });
  });
});

function timeout(ms: number): Promise<Error> {
  return new Promise((resolve) => setTimeout(() => resolve(new Error(`timed out after ${ms} ms`)), ms).unref());
}
