/**
 * A sweep over one seed on one store: the uncrashed run counts its storage operations, then a
 * crash point for each operation N (every one, or a sample spread over the count) and each crash
 * mode (./crash-store.ts). The result names every violation with its seed, store, point and mode,
 * so `--store=… --seed=… --at=… --mode=…` replays it (docs/reliability.md "Rerunning").
 * @module
 */
import type { CrashMode } from "./crash-store.ts";
import { crashPoint } from "./crash-point.ts";
import type { StoreName } from "./stores.ts";

export interface SweepTotals {
  points: number;
  operations: number;
  checked: number;
  restartedTurns: number;
  unknownOutcomes: number;
  decisions: number;
  slots: number;
  reminders: number;
  /** Channel messages checked as received exactly once. */
  inbound: number;
  /** Channel-owned events checked as delivered at least once. */
  deliveries: number;
  /** Of those, delivered again by the recovered host (the one in flight at the crash). */
  redeliveries: number;
  /** Subagent calls checked. */
  subagents: number;
  /** A2A tasks checked against GetTask and the log. */
  a2aTasks: number;
  /** MCP tool tasks checked against tasks/get and the ledger. */
  mcpTasks: number;
  failures: string[];
}

export const emptyTotals = (): SweepTotals => ({ points: 0, operations: 0, checked: 0, restartedTurns: 0, unknownOutcomes: 0, decisions: 0, slots: 0, reminders: 0, inbound: 0, deliveries: 0, redeliveries: 0, subagents: 0, a2aTasks: 0, mcpTasks: 0, failures: [] });

const COUNTS = ["points", "operations", "checked", "restartedTurns", "unknownOutcomes", "decisions", "slots", "reminders", "inbound", "deliveries", "redeliveries", "subagents", "a2aTasks", "mcpTasks"] as const;

export function addTotals(into: SweepTotals, from: SweepTotals): void {
  for (const count of COUNTS) into[count] += from[count];
  into.failures.push(...from.failures);
}

export interface SweepOptions {
  /** Crash points per mode; 0 or undefined: every operation. */
  points?: number;
  modes: readonly CrashMode[];
}

export async function sweepSeed(store: StoreName, seed: number, options: SweepOptions): Promise<SweepTotals> {
  const totals = emptyTotals();
  const { operations } = await crashPoint(store, seed, 0);
  totals.operations = operations;
  const count = options.points ? Math.min(options.points, operations) : operations;
  for (let i = 1; i <= count; i++) {
    const crashAt = count === operations ? i : Math.max(1, Math.round((i * operations) / count));
    for (const mode of options.modes) {
      const result = await crashPoint(store, seed, crashAt, mode);
      totals.points++;
      totals.checked += result.checked;
      totals.restartedTurns += result.restartedTurns;
      totals.unknownOutcomes += result.unknownOutcomes;
      totals.decisions += result.decisions;
      totals.slots += result.slots;
      totals.reminders += result.reminders;
      totals.inbound += result.inbound;
      totals.deliveries += result.deliveries;
      totals.redeliveries += result.redeliveries;
      totals.subagents += result.subagents;
      totals.a2aTasks += result.a2aTasks;
      totals.mcpTasks += result.mcpTasks;
      const said = result.hostLog ? ` [the recovered host logged: ${result.hostLog.slice(0, 3).join("; ")}${result.hostLog.length > 3 ? `; and ${result.hostLog.length - 3} more` : ""}]` : "";
      for (const violation of result.violations) totals.failures.push(`--store=${store} --seed=${seed} --at=${crashAt} --mode=${mode}: ${violation}${said}`);
    }
  }
  return totals;
}
