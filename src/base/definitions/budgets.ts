/**
 * Hard budgets (docs/guide/budgets.md): the limits `defineAgent({ budgets })` declares per scope,
 * the usage counted against them, and what `budget.exceeded` and the cost report say about them.
 * @module
 */
import type { BudgetExceededData } from "../events/vocabulary.ts";

/** The limits of one scope; each is optional, and a scope without any limit is not counted. */
export interface BudgetLimits {
  /** Input plus output tokens (cache reads and writes are part of the input). */
  tokens?: number;
  /** Estimated cost in USD, from the model's price (docs/guide/budgets.md "Cost"). */
  costUsd?: number;
  /** Tool calls the model asked for. */
  toolCalls?: number;
  /** Wall-clock seconds of running turns (model calls and tools; a turn parked for approval does not count). */
  seconds?: number;
}

/** `defineAgent({ budgets })`: subagents count toward the turn that ran them. */
export interface BudgetsConfig {
  /** Each turn. */
  turn?: BudgetLimits;
  /** Each session, over all its turns; never resets. */
  session?: BudgetLimits;
  /** Each principal (the session owner), per UTC day. */
  principalPerDay?: BudgetLimits;
  /** The whole agent, per UTC day. */
  agentPerDay?: BudgetLimits;
}

export type BudgetScope = keyof BudgetsConfig;
export type BudgetLimitName = keyof BudgetLimits;

export const BUDGET_SCOPES: readonly BudgetScope[] = ["turn", "session", "principalPerDay", "agentPerDay"];
export const BUDGET_LIMITS: readonly BudgetLimitName[] = ["tokens", "costUsd", "toolCalls", "seconds"];

/** What a scope has used, every limit counted (whether or not it is limited). */
export type BudgetUsage = Record<BudgetLimitName, number>;

/** `budget.exceeded`'s payload: declared with the event vocabulary, whose types stand alone. */
export type { BudgetExceededData };

/** One scope in the cost report (`GET /v1/session/:id/cost` `budgets`). */
export interface BudgetScopeReport {
  limits: BudgetLimits;
  used: BudgetUsage;
  /** Calls admitted and not settled yet: what they may still spend, at most. */
  inFlight: { tokens: number; costUsd: number };
  /** The limits used up; sends answer 429 `budget_exceeded` while one is listed (turn excepted). */
  exceeded: BudgetLimitName[];
  /** `turn`: the turn the usage is of (the latest that spent anything), or null. */
  turnId?: string | null;
  /** Per-day scopes: the UTC day counted and when the next one starts. */
  window?: { day: string; resetsAt: string };
}

export type BudgetReport = Partial<Record<BudgetScope, BudgetScopeReport>>;

// The event's scope and limit names are the config's: this fails to compile when they drift apart.
type SameNames = [BudgetExceededData["scope"], BudgetExceededData["limit"]] extends [BudgetScope, BudgetLimitName]
  ? [BudgetScope, BudgetLimitName] extends [BudgetExceededData["scope"], BudgetExceededData["limit"]]
    ? true
    : never
  : never;
const sameNames: SameNames = true;
void sameNames;
