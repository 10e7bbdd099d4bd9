/**
 * Provider models through the AI SDK (`ai`). One `stream` call is one model step: tools are
 * declared without `execute`, so the host runs them itself and records every result.
 *
 * `ai` and the provider packages are imported on first use, so a host serving only the scripted
 * model never loads them.
 * @module
 */
import type { JSONSchema7, LanguageModel, TextStreamPart, ToolSet } from "ai";
import { abortError, throwIfAborted } from "../../base/abort.ts";
import { createError, errorMessage } from "../../base/errors.ts";
import type { FinishReason, LanguageModelPort, ModelStepRequest, ModelStreamPart, Usage } from "../../base/ports/model.ts";
import { emptyUsage } from "../../base/ports/model.ts";

export type AiSdkProvider = "openai" | "anthropic" | "openai-compatible" | "xai";

export interface AiSdkModelOptions {
  provider: AiSdkProvider;
  /** The provider's model id, without the provider prefix (e.g. `gpt-5-mini`). */
  modelId: string;
  /** @default the provider package's own environment lookup (openai, anthropic); none for openai-compatible */
  apiKey?: string;
  /** @default the provider's public endpoint; required for `openai-compatible` */
  baseURL?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Model params merged under the per-request params, e.g. `{effort: "high"}`. */
  params?: Record<string, string>;
  /** Retries of failed provider calls (429, 5xx), honouring `retry-after` headers. @default 2 */
  maxRetries?: number;
}

/**
 * Creates a model port backed by an AI SDK provider. Errors of the provider (HTTP status and
 * message) are thrown from the stream; an aborted `signal` throws an `AbortError`.
 * @example
 * const model = createAiSdkModel({ provider: "openai", modelId: "gpt-5-mini", apiKey });
 */
export function createAiSdkModel(options: AiSdkModelOptions): LanguageModelPort {
  const id = `${options.provider}/${options.modelId}`;
  let model: Promise<LanguageModel> | undefined;
  const load = (): Promise<LanguageModel> => (model ??= createLanguageModel(options));
  return { id, stream: (request) => streamStep(id, options, load, request) };
}

// --- internals ---

const EFFORTS = new Set(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
type Effort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";
type Part = TextStreamPart<ToolSet>;

async function* streamStep(
  id: string,
  options: AiSdkModelOptions,
  load: () => Promise<LanguageModel>,
  request: ModelStepRequest,
): AsyncGenerator<ModelStreamPart> {
  const { signal } = request;
  throwIfAborted(signal);
  const ai = await import("./ai-sdk-runtime.ts");
  const model = await load();
  const tools: ToolSet = {};
  for (const spec of request.tools) {
    // SAFETY: tool input schemas are JSON Schema objects produced by the tool definitions.
    const inputSchema = ai.jsonSchema(spec.inputSchema as JSONSchema7);
    tools[spec.name] = { description: spec.description, inputSchema };
  }
  const params = { ...options.params, ...request.params };
  const effort = effortOf(params);
  const providerOptions = providerOptionsOf(options.provider, params);
  const result = ai.streamText({
    model,
    instructions: request.system || undefined,
    messages: request.messages,
    tools: request.tools.length > 0 ? tools : undefined,
    abortSignal: signal,
    maxRetries: options.maxRetries ?? 2,
    ...(effort ? { reasoning: effort } : {}),
    ...(providerOptions ? { providerOptions } : {}),
    // Errors surface as `error` parts and are thrown below; the default handler would also log them.
    onError: () => {},
  });

  let usage: Usage = emptyUsage();
  let finishReason: FinishReason = "stop";
  let sawToolCall = false;
  for await (const part of result.fullStream as AsyncIterable<Part>) {
    switch (part.type) {
      case "text-delta":
        if (part.text) yield { type: "text-delta", delta: part.text };
        break;
      case "reasoning-delta":
        if (part.text) yield { type: "reasoning-delta", delta: part.text };
        break;
      case "reasoning-end":
        yield { type: "reasoning-end" };
        break;
      case "tool-call":
        sawToolCall = true;
        yield { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
        break;
      case "finish-step":
        usage = toUsage(part.usage);
        finishReason = toFinishReason(part.finishReason);
        break;
      case "abort":
        throw abortError();
      case "error":
        throw signal.aborted ? abortError() : toModelError(id, part.error);
      default:
        break;
    }
  }
  throwIfAborted(signal);
  // Some OpenAI-compatible servers end a tool-calling step with `stop`; the host needs `tool_call`.
  if (sawToolCall) finishReason = "tool_call";
  yield { type: "finish", finishReason, usage };
}

async function createLanguageModel(options: AiSdkModelOptions): Promise<LanguageModel> {
  const { apiKey, baseURL, fetch } = options;
  switch (options.provider) {
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      // Chat Completions rather than the Responses API, so OpenAI-compatible servers work too.
      return createOpenAI({ apiKey, baseURL, fetch }).chat(options.modelId);
    }
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ apiKey, baseURL, fetch })(options.modelId);
    }
    case "xai": {
      const { createXai } = await import("@ai-sdk/xai");
      return createXai({ apiKey, baseURL, fetch })(options.modelId);
    }
    case "openai-compatible": {
      if (!baseURL) throw createError("model", `openai-compatible/${options.modelId} needs a base URL`);
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      const provider = createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, includeUsage: true, fetch });
      return provider.chatModel(options.modelId);
    }
  }
}

/**
 * Params a provider takes beyond `effort` (which the AI SDK maps itself): `fast=true` asks for
 * the provider's fast lane: OpenAI's and xAI's priority tier, Anthropic's fast speed.
 */
function providerOptionsOf(provider: AiSdkProvider, params: Record<string, string>): Record<string, Record<string, string>> | undefined {
  if (params.fast?.toLowerCase() !== "true") return undefined;
  switch (provider) {
    case "openai":
      return { openai: { serviceTier: "priority" } };
    case "xai":
      return { xai: { serviceTier: "priority" } };
    case "anthropic":
      return { anthropic: { speed: "fast" } };
    default:
      return undefined;
  }
}

function effortOf(params: Record<string, string>): Effort | undefined {
  const effort = params.effort?.toLowerCase();
  // SAFETY: checked against the set of reasoning levels the AI SDK accepts.
  return effort && EFFORTS.has(effort) ? (effort as Effort) : undefined;
}

function toUsage(usage: Extract<Part, { type: "finish-step" }>["usage"]): Usage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cacheReadTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
    cacheWriteTokens: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
  };
}

function toFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "error":
      return reason;
    case "tool-calls":
      return "tool_call";
    case "content-filter":
      return "content_filter";
    default:
      return "other";
  }
}

/** Keeps the provider's own message and HTTP status; the SDK's retry wrapper is unwrapped. */
function toModelError(id: string, error: unknown): Error {
  const last = lastError(error);
  const message = errorMessage(last);
  const status = statusOf(last);
  const suffix = status === undefined ? "" : ` (HTTP ${status})`;
  return createError("model", `${id}: ${message || "model call failed"}${suffix}`, error);
}

function lastError(error: unknown): unknown {
  if (error instanceof Error && "lastError" in error && error.lastError !== undefined) return error.lastError;
  return error;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("statusCode" in error)) return undefined;
  return typeof error.statusCode === "number" ? error.statusCode : undefined;
}
