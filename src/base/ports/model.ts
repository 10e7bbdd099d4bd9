/**
 * The model port: one call streams one model step (text, reasoning, tool calls, usage).
 *
 * Conversation messages are structurally the AI SDK's `ModelMessage` subset the host records, so
 * the AI SDK provider path passes them through unchanged and stored conversations stay readable.
 * @module
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface TextPart {
  type: "text";
  text: string;
}
export interface ReasoningPart {
  type: "reasoning";
  text: string;
}
export interface ToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
}
export type ToolResultOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: JsonValue }
  | { type: "error-text"; value: string }
  | { type: "error-json"; value: JsonValue };
export interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
}

export type ConversationMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: Array<TextPart | ReasoningPart | ToolCallPart> }
  | { role: "tool"; content: ToolResultPart[] };

/** A tool as the model sees it: a name, a description and a JSON Schema for the input. */
export interface ModelToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Token counts of one step or one turn. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Event-level finish reasons; `tool_call` marks an intermediate message (docs/guide/http-api.md "Events"). */
export type FinishReason = "stop" | "tool_call" | "length" | "content_filter" | "error" | "other";

export type ModelStreamPart =
  | { type: "text-delta"; delta: string }
  | { type: "reasoning-delta"; delta: string }
  | { type: "reasoning-end" }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: "finish"; finishReason: FinishReason; usage: Usage };

export interface ModelStepRequest {
  /** The system prompt (agent instructions). */
  system: string;
  messages: ConversationMessage[];
  tools: ModelToolSpec[];
  /** Aborts the step (stop, preempt, shutdown). A model should stop promptly and throw or end. */
  signal: AbortSignal;
  /** Model params of the agent config, e.g. `{effort: "high"}`. */
  params: Record<string, string>;
}

/**
 * A language model behind the port. `stream` yields parts and ends with exactly one `finish`;
 * a failing model call throws (the turn records `turn.failed {message}`).
 */
export interface LanguageModelPort {
  /** The model id as configured, e.g. `scripted` or `openai/gpt-5-mini`; used for pricing. */
  readonly id: string;
  stream(request: ModelStepRequest): AsyncIterable<ModelStreamPart>;
}

/** `model` of an agent config after normalization. */
export interface ModelSpec {
  id: string;
  params: Record<string, string>;
}

/** Turns a model spec into a model; throws a clear error when it cannot (no credential, unknown provider). */
export type ModelResolver = (spec: ModelSpec) => LanguageModelPort;

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** Credentials for model providers, already resolved by the caller (flag > env > stored login). */
export interface ModelCredentials {
  openai?: string;
  anthropic?: string;
  "openai-compatible"?: string;
  xai?: string;
}

export interface ModelOptions {
  credentials?: ModelCredentials;
  /** Base URL for `openai-compatible/<id>` models. @default env AGENT_SERVE_OPENAI_BASE_URL as passed by the adapter */
  openaiCompatibleBaseURL?: string;
  /** Replaces model resolution entirely (tests, custom providers). */
  resolve?: ModelResolver;
  /** Model used when the agent config sets none. @default "scripted" when no credential exists */
  defaultModel?: string;
  /** `fetch` used by provider clients. @default globalThis.fetch */
  fetch?: typeof fetch;
}
