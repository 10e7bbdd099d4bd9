import type { ModelToolSpec, ToolResultOutput } from "../../base/ports/model.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * A call after input validation: `input` is the validated (and transformed) input, which is what
 * `actions.requested` records (docs/guide/http-api.md "Events": validated arguments), or the raw
 * input with `error`.
 */
export interface PreparedCall extends ToolCall {
  error?: string;
  /**
   * A call of a round a resumed turn continues (one parked for approval, maybe by a host on
   * another version of the agent): prepared against the tools of now, not of when it was made.
   */
  resumed?: boolean;
}

/** The tools one turn may call. Later capabilities (server tools, harness tools) plug in here. */
export interface ToolExecutor {
  specs: ModelToolSpec[];
  prepare(call: ToolCall): Promise<PreparedCall>;
  execute(call: PreparedCall, signal: AbortSignal): Promise<ToolOutcome>;
}

/** A turn with no tools: any call the model makes gets an error result naming the problem. */
export const noTools: ToolExecutor = {
  specs: [],
  prepare: async (call) => ({ ...call, error: `unknown tool: ${call.toolName}` }),
  execute: async (call) => ({ output: call.error ?? `unknown tool: ${call.toolName}`, isError: true }),
};

/** Tool outcomes as the model reads them back. */
export function toModelOutput(outcome: ToolOutcome): ToolResultOutput {
  if (typeof outcome.output === "string") {
    return outcome.isError ? { type: "error-text", value: outcome.output } : { type: "text", value: outcome.output };
  }
  return outcome.isError ? { type: "error-json", value: outcome.output } : { type: "json", value: outcome.output };
}
