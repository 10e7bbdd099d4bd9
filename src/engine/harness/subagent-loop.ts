/**
 * The model loop of a subagent run by the `task` tool: the agent loop a turn runs, but the
 * conversation lives in memory and only the final answer goes back to the parent (the parent's
 * stream records `subagent.called` / `subagent.completed`, not the inner steps).
 * @module
 */
import { type AgentLoopInput, type AgentLoopResult, runAgentLoop, silentRecorder } from "../turns/agent-loop.ts";

export type SubagentLoopInput = Pick<AgentLoopInput, "model" | "system" | "params" | "tools" | "signal" | "maxSteps"> & {
  prompt: string;
};

export type SubagentLoopResult = AgentLoopResult;

/** Runs the subagent to its final answer; a model failure, the step cap or an abort throws. */
export function runSubagentLoop(input: SubagentLoopInput): Promise<SubagentLoopResult> {
  return runAgentLoop({
    model: input.model,
    system: input.system,
    params: input.params,
    messages: [{ role: "user", content: input.prompt }],
    tools: input.tools,
    signal: input.signal,
    maxSteps: input.maxSteps,
    subject: "the subagent",
    recorder: silentRecorder,
  });
}
