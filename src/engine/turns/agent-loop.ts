/**
 * The agent loop that turns and subagents both run: one model step at a time, tools between
 * steps, until the model answers without calling a tool, the step cap is reached or the signal
 * aborts. What a run records (events, a stored conversation, nothing) is its {@link LoopRecorder}:
 * the loop awaits every recording point before the next step starts, so a turn's log holds each
 * step and tool result before the model is called again (docs/design/architecture.md).
 * @module
 */
import { TURN_INTERRUPTED, isTurnSuspended, throwIfAborted } from "../../base/abort.ts";
import { errorMessage } from "../../base/errors.ts";
import { plainMessage } from "../../base/logger.ts";
import { addUsage, emptyUsage } from "../../base/ports/model.ts";
import type { ConversationMessage, FinishReason, LanguageModelPort, ToolCallPart, ToolResultPart, Usage } from "../../base/ports/model.ts";
import type { ActionRequest, ActionResultData } from "../../base/events/vocabulary.ts";
import { type ToolExecutor, toModelOutput } from "./tool-executor.ts";
import { type ToolOutcome } from "../../base/definitions/tools.ts";

export interface AgentLoopInput {
  model: LanguageModelPort;
  system: string;
  params: Record<string, string>;
  /** The conversation so far, ending with the message to answer; the loop appends to a copy. */
  messages: readonly ConversationMessage[];
  tools: ToolExecutor;
  signal: AbortSignal;
  maxSteps: number;
  /** Who runs the loop, for the step-cap error: `turn` or `the subagent`. */
  subject: string;
  recorder: LoopRecorder;
  /**
   * Leave the final step's recording in flight: the loop returns without waiting for it to be
   * durable and hands it back as `recording`, so the caller's next write can share its commit
   * (docs/design/speed.md "The turn's end behind its last step"). The caller must commit what
   * follows right behind it, or wait for it first.
   */
  lastStepInFlight?: boolean;
  /** Step 0's start is recorded already (with its turn's start): `stepStarted(0)` is not called. */
  firstStepRecorded?: boolean;
  /** Continue a step whose tool round was cut short; its assistant message ends `messages`. */
  resume?: ResumePoint;
}

/** Where a resumed turn picks up: a parked approval's step (docs/design/tools.md "Approvals"). */
export interface ResumePoint {
  stepIndex: number;
  /** The step's tool calls, in order. */
  calls: ToolCallPart[];
  /** Results already recorded (`action.result`), by call id: those calls do not run again. */
  recorded: ReadonlyMap<string, ToolResultPart>;
}

export interface AgentLoopResult {
  /** The final answer (the text of the last step). */
  text: string;
  /** Usage summed over every step. */
  usage: Usage;
  steps: number;
  /** With `lastStepInFlight`: the final step's writes, settling once all are durable (rejects if one failed). */
  recording?: Promise<void>;
}

/**
 * The recording points of the loop, in the order they happen within a step. The step's start, its
 * streamed deltas and its end (`reasoningCompleted`, `stepCompleted`) are not awaited one by one
 * (that would slow the stream to the disk's pace): each is sent in order, and the step ends once
 * all of them have settled (a final step under `lastStepInFlight` hands them back unsettled). A
 * recorder must therefore apply them in call order and refuse a write after a failed one (the
 * event log's index checks do). Every such write is watched: the first failure (a full disk,
 * docs/design/faults.md) stops the step and none is left unhandled. Every other point is awaited
 * before the loop goes on.
 */
export interface LoopRecorder {
  stepStarted(stepIndex: number): Promise<unknown>;
  textDelta(delta: string): Promise<unknown>;
  reasoningDelta(delta: string): Promise<unknown>;
  reasoningCompleted(text: string): Promise<unknown>;
  /**
   * The step's message is complete: text, then its finish. `message` (the assistant's step) joins
   * the conversation with it, so a recorder can store both in one commit (docs/design/storage.md).
   */
  stepCompleted(step: { stepIndex: number; text: string; finishReason: FinishReason; durationMs: number; message: ConversationMessage }): Promise<unknown>;
  actionsRequested(actions: ActionRequest[]): Promise<unknown>;
  /**
   * One tool call's result. The step's last result carries `conversation`: the tool results
   * message that joins the conversation with it.
   */
  actionResult(result: ActionResultData, conversation?: ConversationMessage): Promise<unknown>;
}

/** Records nothing: a run whose steps only its caller sees (a subagent). */
export const silentRecorder: LoopRecorder = {
  stepStarted: async () => {},
  textDelta: async () => {},
  reasoningDelta: async () => {},
  reasoningCompleted: async () => {},
  stepCompleted: async () => {},
  actionsRequested: async () => {},
  actionResult: async () => {},
};

/** Runs the loop to the final answer; a model failure, the step cap or an abort throws. */
export async function runAgentLoop(input: AgentLoopInput): Promise<AgentLoopResult> {
  const { signal } = input;
  const messages = [...input.messages];
  let usage = emptyUsage();
  let first = 0;
  if (input.resume) {
    messages.push(await runTools(input, input.resume.calls, input.resume.recorded));
    first = input.resume.stepIndex + 1;
  }
  for (let stepIndex = first; ; stepIndex++) {
    if (stepIndex >= input.maxSteps) throw new Error(`${input.subject} exceeded ${input.maxSteps} model steps`);
    throwIfAborted(signal, TURN_INTERRUPTED);
    const step = await runStep(input, messages, stepIndex);
    usage = addUsage(usage, step.usage);
    messages.push(step.assistant);
    if (step.toolCalls.length === 0) return { text: step.text, usage, steps: stepIndex + 1, ...(step.recording ? { recording: step.recording } : {}) };

    messages.push(await runTools(input, step.toolCalls));
  }
}

// --- internals ---

interface StepResult {
  text: string;
  usage: Usage;
  toolCalls: ToolCallPart[];
  assistant: ConversationMessage;
  /** The step's writes, not yet settled: only a final step's, under `lastStepInFlight`. */
  recording?: Promise<void>;
}

async function runStep(input: AgentLoopInput, messages: ConversationMessage[], stepIndex: number): Promise<StepResult> {
  const { signal, recorder } = input;
  const started = Date.now();
  const writes = watchWrites();
  if (stepIndex > 0 || !input.firstStepRecorded) writes.add(recorder.stepStarted(stepIndex));
  let text = "";
  let reasoning = "";
  let finishReason: FinishReason = "stop";
  let usage = emptyUsage();
  const toolCalls: ToolCallPart[] = [];
  const parts: Array<ToolCallPart | { type: "text"; text: string } | { type: "reasoning"; text: string }> = [];

  const stream = input.model.stream({ system: input.system, messages, tools: input.tools.specs, signal, params: input.params });
  for await (const part of stream) {
    throwIfAborted(signal, TURN_INTERRUPTED);
    writes.throwIfFailed();
    switch (part.type) {
      case "text-delta":
        if (part.delta === "") break;
        text += part.delta;
        writes.add(recorder.textDelta(part.delta));
        break;
      case "reasoning-delta":
        reasoning += part.delta;
        writes.add(recorder.reasoningDelta(part.delta));
        break;
      case "reasoning-end":
        if (reasoning) parts.push({ type: "reasoning", text: reasoning });
        writes.add(recorder.reasoningCompleted(reasoning));
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
  writes.throwIfFailed();
  throwIfAborted(signal, TURN_INTERRUPTED);
  // The step's end is sent behind its deltas without waiting for them to be durable: one
  // session's appends commit in call order, and a write after a failed one fails its index check
  // and writes nothing, so the end is never stored without them; it can share their commit
  // (docs/design/speed.md "Folded commits"). The step still ends only when all are durable.
  if (reasoning) {
    parts.push({ type: "reasoning", text: reasoning });
    writes.add(recorder.reasoningCompleted(reasoning));
  }
  if (text) parts.push({ type: "text", text });
  parts.push(...toolCalls);
  if (toolCalls.length > 0) finishReason = "tool_call";
  const assistant: ConversationMessage = { role: "assistant", content: parts };
  writes.add(recorder.stepCompleted({ stepIndex, text, finishReason, durationMs: Date.now() - started, message: assistant }));
  // A step that calls tools ends only once its calls are durable: a tool body runs only after its
  // call is recorded (docs/design/tools.md). A final step may be left in flight for the caller.
  if (toolCalls.length === 0 && input.lastStepInFlight) {
    const recording = writes.settled();
    // Handled here so a failure the caller has stopped waiting for (its turn was aborted) is not
    // reported as unhandled; the caller still sees it through `recording`.
    recording.catch(() => {});
    return { text, usage, toolCalls, assistant, recording };
  }
  await writes.settled();
  return { text, usage, toolCalls, assistant };
}

/** Runs the step's calls one after another; `recorded` (a resumed round) skips what already ran. */
async function runTools(input: AgentLoopInput, calls: ToolCallPart[], recorded?: ReadonlyMap<string, ToolResultPart>): Promise<ConversationMessage> {
  const { signal, recorder } = input;
  const prepared = await Promise.all(
    calls.map(async ({ toolCallId, toolName, input: args }) => {
      const call = await input.tools.prepare({ toolCallId, toolName, input: args });
      return recorded ? { ...call, resumed: true } : call;
    }),
  );
  if (!recorded) await recorder.actionsRequested(prepared.map(({ toolCallId, toolName, input: args }) => ({ toolCallId, toolName, input: args })));
  const content: ToolResultPart[] = [];
  const results: ConversationMessage = { role: "tool", content };
  for (const [n, call] of prepared.entries()) {
    const done = recorded?.get(call.toolCallId);
    if (done) {
      content.push(done);
      continue;
    }
    // A resumed round is closed even when the turn is stopped before it gets back to its calls:
    // they read as interrupted and never run, and the stored history stays whole.
    if (!recorded) throwIfAborted(signal, TURN_INTERRUPTED);
    const outcome: ToolOutcome =
      recorded && signal.aborted
        ? { output: TURN_INTERRUPTED, isError: true }
        : await input.tools.execute(call, signal).catch((error: unknown) => {
            // A suspended turn records nothing more: the call stays parked for the next start.
            if (isTurnSuspended(error)) throw error;
            // An aborted call (stop, preempt, shutdown while parked) reads as the interruption it is.
            return { output: signal.aborted ? TURN_INTERRUPTED : plainMessage(errorMessage(error)), isError: true };
          });
    content.push({ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: toModelOutput(outcome) });
    const last = n === prepared.length - 1;
    await recorder.actionResult({ toolCallId: call.toolCallId, toolName: call.toolName, output: outcome.output, isError: outcome.isError }, last ? results : undefined);
  }
  return results;
}

/** Background writes of one step: the last one in flight and the first failure seen. */
function watchWrites(): { add(write: Promise<unknown>): void; throwIfFailed(): void; settled(): Promise<void> } {
  let last: Promise<unknown> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  // One handler for every write of the step, not a closure per streamed delta.
  const failed = (error: unknown): void => {
    failure ??= { error };
  };
  return {
    add(write) {
      last = write.catch(failed);
    },
    throwIfFailed() {
      if (failure) throw failure.error;
    },
    async settled() {
      // One session's appends commit in order, so the last write settles after all earlier ones.
      await last;
      if (failure) throw failure.error;
    },
  };
}
