/**
 * The AG-UI 1.0 wire shapes this host emits (docs/guide/ag-ui.md): the events of a run and the
 * messages of a snapshot. Written out here rather than imported, so the core carries no AG-UI
 * package; the tests check them against the official `@ag-ui/core` schemas.
 * @module
 */

export type AgUiMessage =
  | { id: string; role: "user"; content: string }
  | { id: string; role: "assistant"; content?: string; toolCalls?: AgUiToolCall[] }
  | { id: string; role: "tool"; toolCallId: string; content: string; error?: string }
  | { id: string; role: "reasoning"; content: string };

export interface AgUiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Something the run needs before it can go on: here, a tool call parked for approval. */
export interface AgUiInterrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  metadata?: Record<string, unknown>;
}

export type RunOutcome = { type: "success"; pendingToolCallIds?: string[] } | { type: "interrupt"; interrupts: AgUiInterrupt[] } | { type: "cancelled" };

/** One JSON Patch operation (RFC 6902) of a `STATE_DELTA`. */
export type PatchOperation = { op: "add" | "replace"; path: string; value: unknown } | { op: "remove"; path: string };

export type AgUiEvent =
  | { type: "RUN_STARTED"; threadId: string; runId: string }
  | { type: "RUN_FINISHED"; threadId: string; runId: string; outcome: RunOutcome }
  | { type: "RUN_ERROR"; message: string; code?: string }
  | { type: "STEP_STARTED" | "STEP_FINISHED"; stepName: string }
  | { type: "TEXT_MESSAGE_START"; messageId: string; role: "assistant" }
  | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "TEXT_MESSAGE_END"; messageId: string }
  | { type: "REASONING_START" | "REASONING_END" | "REASONING_MESSAGE_END"; messageId: string }
  | { type: "REASONING_MESSAGE_START"; messageId: string; role: "reasoning" }
  | { type: "REASONING_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId: string }
  | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
  | { type: "TOOL_CALL_END"; toolCallId: string }
  | { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string; role: "tool" }
  | { type: "STATE_SNAPSHOT"; snapshot: Record<string, unknown> }
  | { type: "STATE_DELTA"; delta: PatchOperation[] }
  | { type: "MESSAGES_SNAPSHOT"; messages: AgUiMessage[] };

/**
 * Message ids derive from log indexes, so a snapshot and a live stream name the same message the
 * same way, in any process and after a restart.
 */
export const textMessageId = (firstIndex: number): string => `msg_${firstIndex}`;
export const reasoningMessageId = (firstIndex: number): string => `reasoning_${firstIndex}`;
export const callsMessageId = (index: number): string => `calls_${index}`;
export const userMessageId = (index: number): string => `user_${index}`;
export const resultMessageId = (toolCallId: string): string => `result_${toolCallId}`;

/** A tool's output as the text of a tool message. */
export const toolContent = (output: unknown): string => (typeof output === "string" ? output : JSON.stringify(output ?? null));
