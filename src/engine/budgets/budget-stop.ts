/**
 * What a metered model call throws when a budget refuses it: not a failure, the end of the turn.
 * The turn completes with what it produced so far (docs/guide/budgets.md "What happens").
 * @module
 */
import type { BudgetExceededData } from "../../base/definitions/budgets.ts";
import type { Usage } from "../../base/ports/model.ts";

export interface BudgetStop extends Error {
  readonly exceeded: BudgetExceededData;
  /** The turn's own model usage up to the refusal (its subagents' runs are reported apart). */
  readonly usage: Usage;
  /** The text of the turn's last answered step. */
  readonly text: string;
}

export function budgetStop(exceeded: BudgetExceededData, usage: Usage, text: string): BudgetStop {
  const error = new Error(`budget exceeded: ${exceeded.scope} ${exceeded.limit} ${exceeded.used} of ${exceeded.max}`) as Error & Partial<Omit<BudgetStop, keyof Error>>;
  error.name = "BudgetStop";
  return Object.assign(error, { exceeded, usage, text });
}

/** By name, as the abort errors are recognised (../../base/abort.ts). */
export function isBudgetStop(error: unknown): error is BudgetStop {
  return error instanceof Error && error.name === "BudgetStop";
}
