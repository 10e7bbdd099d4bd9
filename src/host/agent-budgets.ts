/**
 * An agent's budgets (docs/guide/budgets.md), built once when its config sets any: the gate over
 * the agent's storage, pricing calls the way the cost report does (the agent's `prices` over the
 * catalog).
 * @module
 */
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import { resolveBudgets } from "../engine/budgets/config.ts";
import { BudgetGate } from "../engine/budgets/gate.ts";
import { loadPriceCatalog, priceFor } from "../features/cost/prices.ts";
import { costOf } from "../features/cost/report.ts";

/** The gate, or undefined when no budget is set; an invalid `budgets` throws naming the mistake. */
export function createAgentBudgets(project: ProjectDefinition, storage: StorageDriver, now: () => number): BudgetGate | undefined {
  const budgets = resolveBudgets(project.agent.budgets);
  if (!budgets) return undefined;
  const prices = project.agent.prices;
  const priced = Object.values(budgets).some((limits) => limits.costUsd !== undefined);
  return new BudgetGate({
    storage,
    budgets,
    now,
    costOf: (modelId, usage) => {
      const price = priceFor(modelId, prices);
      return price ? costOf(usage, price) : null;
    },
    ...(priced ? { ready: loadPriceCatalog() } : {}),
  });
}
