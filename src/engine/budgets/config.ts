/**
 * `defineAgent({ budgets })` checked once, when the host is built (docs/guide/budgets.md): four
 * known scopes, each an object of known limits, each limit a finite number of at least 0.
 * @module
 */
import { BUDGET_LIMITS, BUDGET_SCOPES, type BudgetLimits, type BudgetsConfig } from "../../base/definitions/budgets.ts";
import { createError } from "../../base/errors.ts";

/** The budgets with at least one limit, or undefined when none is set; throws naming the first mistake. */
export function resolveBudgets(config: unknown): BudgetsConfig | undefined {
  if (config === undefined) return undefined;
  const fail = (why: string): Error => createError("budgets", why);
  if (!isObject(config)) throw fail("budgets must be an object: {turn?, session?, principalPerDay?, agentPerDay?}");
  const resolved: BudgetsConfig = {};
  for (const [scope, limits] of Object.entries(config)) {
    if (!(BUDGET_SCOPES as readonly string[]).includes(scope)) throw fail(`budgets.${scope} is not a scope (${BUDGET_SCOPES.join(", ")})`);
    if (limits === undefined) continue;
    if (!isObject(limits)) throw fail(`budgets.${scope} must be an object of limits {tokens?, costUsd?, toolCalls?, seconds?}`);
    const kept: BudgetLimits = {};
    for (const [limit, value] of Object.entries(limits)) {
      if (!(BUDGET_LIMITS as readonly string[]).includes(limit)) throw fail(`budgets.${scope}.${limit} is not a limit (${BUDGET_LIMITS.join(", ")})`);
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw fail(`budgets.${scope}.${limit} must be a finite number of at least 0 (got ${JSON.stringify(value)})`);
      }
      kept[limit as keyof BudgetLimits] = value;
    }
    if (Object.keys(kept).length > 0) resolved[scope as keyof BudgetsConfig] = kept;
  }
  return Object.keys(resolved).length > 0 ? resolved : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
