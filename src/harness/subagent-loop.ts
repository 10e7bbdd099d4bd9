/**
 * The model loop of a subagent run by the `task` tool: the same model port and tool executor as
 * a turn, but the conversation lives in memory and only the final answer goes back to the parent
 * (the parent's stream records `subagent.called` / `subagent.completed`, not the inner steps).
 * @module
 */
import { addUsage, emptyUsage } from "../model/types.ts";
import type { ConversationMessage, LanguageModelPort, ToolCallPart, ToolResultPart, Usage } from "../model/types.ts";
import { type ToolExecutor, toModelOutput } from "../turns/tool-executor.ts";

export interface SubagentLoopInput {
  model: LanguageModelPort;
  system: string;
  params: Record<string, string>;
  prompt: string;
  tools: ToolExecutor;
  signal: AbortSignal;
  maxSteps: number;
}

export interface SubagentLoopResult {
  text: string;
  usage: Usage;
  steps: number;
}

/** Runs the subagent to its final answer; a model failure, the step cap or an abort throws. */
export async function runSubagentLoop(input: SubagentLoopInput): Promise<SubagentLoopResult> {
  const messages: ConversationMessage[] = [{ role: "user", content: input.prompt }];
  let usage = emptyUsage();
  for (let step = 0; ; step++) {
    if (step >= input.maxSteps) throw new Error(`the subagent exceeded ${input.maxSteps} model steps`);
    throwIfAborted(input.signal);
    let text = "";
    const calls: ToolCallPart[] = [];
    const stream = input.model.stream({ system: input.system, messages, tools: input.tools.specs, signal: input.signal, params: input.params });
    for await (const part of stream) {
      throwIfAborted(input.signal);
      if (part.type === "text-delta") text += part.delta;
      else if (part.type === "tool-call") calls.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      else if (part.type === "finish") usage = addUsage(usage, part.usage);
    }
    messages.push({ role: "assistant", content: [...(text ? [{ type: "text" as const, text }] : []), ...calls] });
    if (calls.length === 0) return { text, usage, steps: step + 1 };
    const results: ToolResultPart[] = [];
    for (const call of calls) {
      throwIfAborted(input.signal);
      const prepared = await input.tools.prepare({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
      const outcome = await input.tools.execute(prepared, input.signal).catch((error: unknown) => ({
        output: input.signal.aborted ? "turn interrupted" : error instanceof Error ? error.message : String(error),
        isError: true,
      }));
      results.push({ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: toModelOutput(outcome) });
    }
    messages.push({ role: "tool", content: results });
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new DOMException("turn interrupted", "AbortError");
}
