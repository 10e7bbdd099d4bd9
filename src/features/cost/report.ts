/**
 * The session cost report (docs/guide/http-api.md "Response shapes"): per-turn usage and estimated
 * cost folded from
 * `turn.completed` events, plus the subagent runs inside those turns (`subagent.completed`),
 * which spend tokens of their own, possibly on another model.
 * @module
 */
import type { ModelPrice } from "../../base/definitions/project.ts";
import { type Usage, emptyUsage } from "../../base/ports/model.ts";
import { type EventEnvelope, isEvent } from "../../base/events/vocabulary.ts";
import { priceFor } from "./prices.ts";

/** The parts of an event envelope the report reads (`data` may be absent from old records). */
export type CostEvent = Pick<EventEnvelope, "type" | "turnId"> & { data?: unknown };

export interface CostTurn {
  turnId: string | null;
  model: string | null;
  usage: Usage;
  /** `null` when the turn is unpriced (no model recorded, or a model without a price). */
  estimatedCostUsd: number | null;
}

/** One subagent run (the `task` tool) inside a turn; its usage is not part of the turn's. */
export interface CostSubagentRun {
  turnId: string | null;
  subagent: string;
  model: string | null;
  usage: Usage;
  /** `null` when unpriced, as for turns. */
  estimatedCostUsd: number | null;
}

export interface CostReport {
  sessionId: string;
  /** Turns and subagent runs together; `unpriced*` count what the cost total leaves out. */
  totals: Usage & { estimatedCostUsd: number; unpricedTurns: number; unpricedSubagentRuns: number };
  turns: CostTurn[];
  subagents: CostSubagentRun[];
}

/**
 * Folds a session's events into its cost report. Token totals count every turn; the cost total
 * counts priced turns only, and `unpricedTurns` says how many were left out.
 * @example
 * const report = foldCostReport(sessionId, events, agent.prices);
 */
export function foldCostReport(
  sessionId: string,
  events: Iterable<CostEvent>,
  overrides?: Record<string, ModelPrice>,
): CostReport {
  const totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: 0, unpricedTurns: 0, unpricedSubagentRuns: 0 };
  const turns: CostTurn[] = [];
  const subagents: CostSubagentRun[] = [];
  const add = (data: { usage?: Usage; model?: string }): { model: string | null; usage: Usage; estimatedCostUsd: number | null } => {
    const usage = { ...emptyUsage(), ...data.usage };
    const model = data.model || null;
    const price = model === null ? undefined : priceFor(model, overrides);
    // Records from before usage (or model) tracking carry none: they are unpriced, not free.
    const cost = price && data.usage ? costOf(usage, price) : null;
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.cacheReadTokens += usage.cacheReadTokens;
    totals.cacheWriteTokens += usage.cacheWriteTokens;
    if (cost !== null) totals.estimatedCostUsd += cost;
    return { model, usage, estimatedCostUsd: cost === null ? null : round(cost) };
  };
  for (const event of events) {
    if (isEvent(event, "turn.completed")) {
      const turn = add(event.data ?? {});
      turns.push({ turnId: event.turnId ?? null, ...turn });
      if (turn.estimatedCostUsd === null) totals.unpricedTurns++;
    } else if (isEvent(event, "subagent.completed") && event.data.isError !== true) {
      const run = add(event.data);
      subagents.push({ turnId: event.turnId ?? null, subagent: event.data.subagent, ...run });
      if (run.estimatedCostUsd === null) totals.unpricedSubagentRuns++;
    }
  }
  totals.estimatedCostUsd = round(totals.estimatedCostUsd);
  return { sessionId, totals, turns, subagents };
}

/**
 * USD for one usage record. `inputTokens` includes cache reads and writes (the AI SDK's
 * convention), so those are priced at their own rates and the rest at the input rate.
 */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
  const uncached = Math.max(0, usage.inputTokens - cached);
  const micro =
    uncached * price.input +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return micro / 1_000_000;
}

// --- internals ---

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
