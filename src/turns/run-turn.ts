/**
 * The agent loop of one turn: one model step at a time, tools between steps, every step and
 * tool result recorded in the conversation log before the next step starts, in the same commit as
 * the step's last event (docs/design/storage.md).
 * @module
 */
import { addUsage, emptyUsage } from "../model/types.ts";
import type { ConversationMessage, FinishReason, LanguageModelPort, ToolCallPart, Usage } from "../model/types.ts";
import type { EventDraft } from "../sessions/events.ts";
import type { ConversationLog } from "./conversation.ts";
import { type ToolExecutor, toModelOutput } from "./tool-executor.ts";

export interface TurnInput {
  sessionId: string;
  turnId: string;
  /** The user text this turn answers (coalesced follow-ups arrive joined). */
  userText: string;
  system: string;
  params: Record<string, string>;
  /** A model, or the reason none could be resolved (the turn then fails with it). */
  model: LanguageModelPort | { error: string };
  tools: ToolExecutor;
  conversation: ConversationLog;
  signal: AbortSignal;
  /** Appends an event; the promise settles when it is durable. */
  emit: TurnEmit;
  maxSteps: number;
  /**
   * Work prepared alongside the turn (the session workspace): the turn does not wait for it to
   * start, but completes only once it is done, and fails if it failed.
   */
  ready?: Promise<void>;
}

/** Appends an event, with conversation messages that must commit together with it. */
export type TurnEmit = (draft: EventDraft, also?: { conversation?: ConversationMessage[] }) => Promise<unknown>;

export type TurnOutcome =
  | { status: "completed"; usage: Usage; text: string }
  | { status: "failed"; message: string }
  | { status: "interrupted" };

export async function runTurn(input: TurnInput): Promise<TurnOutcome> {
  const { sessionId, turnId, signal } = input;
  const emit = (type: EventDraft["type"], data: Record<string, unknown>): Promise<unknown> =>
    input.emit({ type, turnId, data });
  let usage = emptyUsage();
  let lastText = "";
  try {
    const history = await input.conversation.load(sessionId);
    const userMessage: ConversationMessage = { role: "user", content: input.userText };
    await input.conversation.append(sessionId, [userMessage]);
    const messages = [...history, userMessage];
    if ("error" in input.model) throw new Error(input.model.error);
    const model = input.model;

    for (let stepIndex = 0; ; stepIndex++) {
      if (stepIndex >= input.maxSteps) throw new Error(`turn exceeded ${input.maxSteps} model steps`);
      throwIfAborted(signal);
      const step = await runStep(model, input, messages, stepIndex, emit);
      usage = addUsage(usage, step.usage);
      lastText = step.text;
      // runStep committed the assistant message with its `step.completed`, runTools the results with the last `action.result`.
      messages.push(step.assistant);
      if (step.toolCalls.length === 0) break;

      const results = await runTools(input, step.toolCalls, emit);
      messages.push(results);
    }
    await input.ready;
    await emit("turn.completed", { usage, model: model.id });
    return { status: "completed", usage, text: lastText };
  } catch (error) {
    if (signal.aborted) return { status: "interrupted" };
    return { status: "failed", message: errorMessage(error) };
  }
}

// --- internals ---

interface StepResult {
  text: string;
  usage: Usage;
  toolCalls: ToolCallPart[];
  assistant: ConversationMessage;
}

async function runStep(
  model: LanguageModelPort,
  input: TurnInput,
  messages: ConversationMessage[],
  stepIndex: number,
  emit: (type: EventDraft["type"], data: Record<string, unknown>) => Promise<unknown>,
): Promise<StepResult> {
  const started = Date.now();
  void emit("step.started", { stepIndex });
  let text = "";
  let reasoning = "";
  let finishReason: FinishReason = "stop";
  let usage = emptyUsage();
  const toolCalls: ToolCallPart[] = [];
  const parts: Array<ToolCallPart | { type: "text"; text: string } | { type: "reasoning"; text: string }> = [];
  let written: Promise<unknown> = Promise.resolve();

  const stream = model.stream({
    system: input.system,
    messages,
    tools: input.tools.specs,
    signal: input.signal,
    params: input.params,
  });
  for await (const part of stream) {
    throwIfAborted(input.signal);
    switch (part.type) {
      case "text-delta":
        if (part.delta === "") break;
        text += part.delta;
        written = emit("message.appended", { delta: part.delta });
        break;
      case "reasoning-delta":
        reasoning += part.delta;
        written = emit("reasoning.appended", { delta: part.delta });
        break;
      case "reasoning-end":
        if (reasoning) parts.push({ type: "reasoning", text: reasoning });
        written = emit("reasoning.completed", { text: reasoning });
        reasoning = "";
        break;
      case "tool-call":
        toolCalls.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish":
        finishReason = part.finishReason;
        usage = part.usage;
        break;
    }
  }
  // Streamed deltas were not awaited one by one; a failed write surfaces here.
  await written;
  throwIfAborted(input.signal);
  if (reasoning) {
    parts.push({ type: "reasoning", text: reasoning });
    await emit("reasoning.completed", { text: reasoning });
  }
  if (text) parts.push({ type: "text", text });
  parts.push(...toolCalls);
  if (toolCalls.length > 0) finishReason = "tool_call";
  await emit("message.completed", { text, finishReason });
  const assistant: ConversationMessage = { role: "assistant", content: parts };
  const stepData = { stepIndex, durationMs: Date.now() - started, finishReason };
  await input.emit({ type: "step.completed", turnId: input.turnId, data: stepData }, { conversation: [assistant] });
  return { text, usage, toolCalls, assistant };
}

async function runTools(
  input: TurnInput,
  calls: ToolCallPart[],
  emit: (type: EventDraft["type"], data: Record<string, unknown>) => Promise<unknown>,
): Promise<ConversationMessage> {
  const prepared = await Promise.all(calls.map(({ toolCallId, toolName, input: args }) => input.tools.prepare({ toolCallId, toolName, input: args })));
  await emit("actions.requested", {
    actions: prepared.map(({ toolCallId, toolName, input: args }) => ({ toolCallId, toolName, input: args })),
  });
  const content = [];
  for (const [n, call] of prepared.entries()) {
    throwIfAborted(input.signal);
    const outcome = await input.tools.execute(call, input.signal).catch((error: unknown) => ({
      // An aborted call (stop, preempt, shutdown while parked) reads as the interruption it is.
      output: input.signal.aborted ? "turn interrupted" : errorMessage(error),
      isError: true,
    }));
    content.push({ type: "tool-result" as const, toolCallId: call.toolCallId, toolName: call.toolName, output: toModelOutput(outcome) });
    const result = { toolCallId: call.toolCallId, toolName: call.toolName, output: outcome.output, isError: outcome.isError };
    const last = n === prepared.length - 1;
    await input.emit({ type: "action.result", turnId: input.turnId, data: result }, last ? { conversation: [{ role: "tool", content }] } : undefined);
  }
  return { role: "tool", content };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new DOMException("turn interrupted", "AbortError");
}

function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return typeof error === "string" && error ? error : "model call failed";
}
