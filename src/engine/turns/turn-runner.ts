import type { ExperimentDefinition } from "../../base/definitions/experiments.ts";
import { turnVariant } from "../experiments/variant.ts";
import type { LanguageModelPort, ModelSpec } from "../../base/ports/model.ts";
import type { BudgetGate } from "../budgets/gate.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { TurnInput } from "./run-turn.ts";
import type { ToolExecutor } from "./tool-executor.ts";
import { type TurnToolsOptions, createTurnTools, toolSpecs } from "./turn-tools.ts";

/** What an agent contributes to each of its turns: model, instructions, tools. */
export type TurnSetup = Pick<TurnInput, "system" | "params" | "model" | "tools" | "maxSteps" | "ready" | "remote"> & {
  /** With budgets: meters another model the turn calls (a subagent's own) toward the turn's budgets. */
  meter?: (model: LanguageModelPort) => LanguageModelPort;
  /** With budgets: counts every tool run of other tools the turn builds (the harness's, a subagent's). */
  meterTools?: (tools: ToolExecutor) => ToolExecutor;
};

/** The turn a setup is prepared for (tools need its id, its event sink and its signal). */
export interface TurnHandle {
  turnId: string;
  emit: TurnInput["emit"];
  signal: AbortSignal;
}

export interface TurnRunner {
  /** May prepare asynchronously (the local workspace); failures belong in `model: {error}`, not in a rejection. */
  prepare(record: SessionRecord, turn: TurnHandle): TurnSetup | Promise<TurnSetup>;
}

/** What a turn needs from its agent to be prepared. */
export interface TurnRunnerOptions {
  /** The agent's model and instructions, before an A/B arm's variant applies. */
  base: { spec: ModelSpec; system: string };
  experiments: ExperimentDefinition[];
  /** Each distinct model (the agent's, an A/B arm's) resolved once, on first use. */
  models: (spec: ModelSpec) => TurnSetup["model"];
  tools: TurnToolsOptions;
  maxSteps: number;
  /** The agent's budgets (docs/guide/budgets.md): every model call of a turn is metered. */
  budgets?: Pick<BudgetGate, "forTurn">;
}

/**
 * The agent's turn runner: each turn gets the model and instructions of its A/B variant and the
 * agent's tools bound to the turn. Models resolve on first use, so a missing credential fails
 * turns with a clear message instead of failing start-up.
 */
export function createTurnRunner(options: TurnRunnerOptions): TurnRunner {
  const specs = toolSpecs(options.tools);
  return {
    prepare(record, turn) {
      const variant = turnVariant(options.base, options.experiments, record.ab);
      const model = options.models(variant.spec);
      const meter = options.budgets?.forTurn(record, turn);
      const tools = createTurnTools(options.tools, specs, { record, turnId: turn.turnId, emit: turn.emit });
      return {
        system: variant.system,
        params: variant.spec.params,
        model: meter && !("error" in model) ? meter.model(model, true) : model,
        ...(meter ? { meter: (other: LanguageModelPort) => meter.model(other), meterTools: (other: ToolExecutor) => meter.tools(other) } : {}),
        tools: meter ? meter.tools(tools) : tools,
        maxSteps: options.maxSteps,
      };
    },
  };
}
