/**
 * `agent-serve cost <sessionId>`: token usage and estimated cost, in total and per turn, with
 * each turn's subagent runs below it, and usage against each budget limit when the agent sets
 * budgets (docs/guide/budgets.md "Usage").
 * @module
 */
import type { BudgetReport, CostTurn, SessionCostResponse } from "../src/entries/events.ts";
import type { Usage } from "../src/index.ts";
import { explainSessionError, sessionPath } from "./api-client.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { createStyle } from "./style.ts";
import { table } from "./table.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface CostArgs extends TargetArgs {
  sessionId: string;
  /** @default false */
  json?: boolean;
}

/** A turn's or a subagent run's row of the report. */
type CostRow = Pick<CostTurn, "turnId" | "model" | "usage" | "estimatedCostUsd">;

export async function costCommand(args: CostArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    let report: SessionCostResponse;
    try {
      report = await client.getJson<SessionCostResponse>(sessionPath(args.sessionId, "/cost"));
    } catch (error) {
      throw explainSessionError(error, args.sessionId);
    }
    if (args.json) {
      io.stdout.write(`${JSON.stringify(report)}\n`);
      return EXIT_OK;
    }
    const style = createStyle(io.stdout, io.env);
    const row = (label: string, r: CostRow): string[] => [label, r.model ?? "—", ...tokens(r.usage), r.estimatedCostUsd === null ? "unpriced" : usd(r.estimatedCostUsd)];
    // Servers older than subagent accounting send neither `subagents` nor `unpricedSubagentRuns`.
    const subagents = report.subagents ?? [];
    const rows = report.turns.flatMap((t) => [
      row(t.turnId ?? "—", t),
      ...subagents.filter((run) => run.turnId === t.turnId).map((run) => row(`  ↳ ${run.subagent}`, run)),
    ]);
    const { totals } = report;
    const unpriced = totals.unpricedTurns + (totals.unpricedSubagentRuns ?? 0);
    rows.push(["total", "", ...tokens(totals), usd(totals.estimatedCostUsd) + (unpriced > 0 ? ` (+${unpriced} unpriced)` : "")].map(style.bold));
    const header = ["TURN", "MODEL", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"].map(style.bold);
    io.stdout.write(`${[`session ${report.sessionId}`, ...table([header, ...rows])].join("\n")}\n`);
    if (report.budgets) io.stdout.write(`\n${budgetLines(report.budgets, style.bold).join("\n")}\n`);
    return EXIT_OK;
  });
}

// --- internals ---

function tokens(usage: Usage): string[] {
  return [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens].map((n) => String(n ?? 0));
}

/** One row per limit: the scope, the limit, used of max, and whether it is used up. */
function budgetLines(budgets: BudgetReport, bold: (text: string) => string): string[] {
  const rows: string[][] = [];
  for (const [scope, entry] of Object.entries(budgets)) {
    for (const [limit, max] of Object.entries(entry.limits)) {
      const used = entry.used[limit as keyof typeof entry.used];
      const state = entry.exceeded.includes(limit as keyof typeof entry.limits) ? "used up" : "";
      rows.push([scope, limit, `${round(used)} / ${max}`, entry.window ? `resets ${entry.window.resetsAt}` : "", state]);
    }
  }
  return table([["BUDGET", "LIMIT", "USED", "WINDOW", ""].map(bold), ...rows]);
}

function round(value: number): string {
  return String(Math.round(value * 1e4) / 1e4);
}

function usd(amount: number): string {
  return `$${amount.toFixed(amount > 0 && amount < 0.01 ? 6 : 4)}`;
}
