/**
 * A sweep over one seed on one store: the uncrashed run counts its storage operations, then a
 * crash point for each operation N (every one, or a sample spread over the count) and each crash
 * mode (./crash-store.ts). The result names every violation with its seed, store, point and mode,
 * so `--store=… --seed=… --at=… --mode=…` replays it (docs/reliability.md "Rerunning").
 * @module
 */
import type { CrashMode } from "./crash-store.ts";
import { crashPoint } from "./crash-point.ts";
import type { LandingCounts } from "./landing-oracles.ts";
import type { StoreName } from "./stores.ts";

/** A sweep's totals: its crash points and the uncrashed run's operations, then each point's counts summed. */
export interface SweepTotals extends LandingCounts {
  points: number;
  operations: number;
  checked: number;
  restartedTurns: number;
  unknownOutcomes: number;
  decisions: number;
  slots: number;
  reminders: number;
  failures: string[];
  /** Sessions that came to rest only after the settling deadline (./settle.ts), each with the arguments that replay its point: slow, not violations. */
  late: string[];
}

/** The counts a crash point reports (./crash-point.ts `PointResult`), summed into the totals. */
const POINT_COUNTS = ["checked", "restartedTurns", "unknownOutcomes", "decisions", "slots", "reminders", "inbound", "deliveries", "redeliveries", "subagents", "a2aTasks", "mcpTasks"] as const;
const COUNTS = ["points", "operations", ...POINT_COUNTS] as const;

export const emptyTotals = (): SweepTotals => ({ ...(Object.fromEntries(COUNTS.map((count) => [count, 0])) as Record<(typeof COUNTS)[number], number>), failures: [], late: [] });

export function addTotals(into: SweepTotals, from: SweepTotals): void {
  for (const count of COUNTS) into[count] += from[count];
  into.failures.push(...from.failures);
  into.late.push(...from.late);
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
      for (const count of POINT_COUNTS) totals[count] += result[count];
      const said = result.hostLog ? ` [the recovered host logged: ${result.hostLog.slice(0, 3).join("; ")}${result.hostLog.length > 3 ? `; and ${result.hostLog.length - 3} more` : ""}]` : "";
      const replay = `--store=${store} --seed=${seed} --at=${crashAt} --mode=${mode}`;
      for (const violation of result.violations) totals.failures.push(`${replay}: ${violation}${said}`);
      for (const slow of result.late) totals.late.push(`${replay}: ${slow}`);
    }
  }
  return totals;
}
