/**
 * `agent-serve cost <sessionId>`: token usage and estimated cost, in total and per turn.
 * @module
 */
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

interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** `GET /v1/session/:id/cost` (DESIGN.md §4). */
interface CostReport {
  sessionId: string;
  totals: Usage & { estimatedCostUsd: number; unpricedTurns: number };
  turns: Array<{ turnId: string | null; model: string | null; usage: Usage; estimatedCostUsd: number | null }>;
}

export async function costCommand(args: CostArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    let report: CostReport;
    try {
      report = await client.getJson<CostReport>(sessionPath(args.sessionId, "/cost"));
    } catch (error) {
      throw explainSessionError(error, args.sessionId);
    }
    if (args.json) {
      io.stdout.write(`${JSON.stringify(report)}\n`);
      return EXIT_OK;
    }
    const style = createStyle(io.stdout, io.env);
    const rows = report.turns.map((t) => [t.turnId ?? "—", t.model ?? "—", ...tokens(t.usage), t.estimatedCostUsd === null ? "unpriced" : usd(t.estimatedCostUsd)]);
    const { totals } = report;
    rows.push(["total", "", ...tokens(totals), usd(totals.estimatedCostUsd) + (totals.unpricedTurns > 0 ? ` (+${totals.unpricedTurns} unpriced)` : "")].map(style.bold));
    const header = ["TURN", "MODEL", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"].map(style.bold);
    io.stdout.write(`${[`session ${report.sessionId}`, ...table([header, ...rows])].join("\n")}\n`);
    return EXIT_OK;
  });
}

// --- internals ---

function tokens(usage: Usage): string[] {
  return [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens].map((n) => String(n ?? 0));
}

function usd(amount: number): string {
  return `$${amount.toFixed(amount > 0 && amount < 0.01 ? 6 : 4)}`;
}
