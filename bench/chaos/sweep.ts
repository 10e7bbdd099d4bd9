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
  failures: string[];
}

export const emptyTotals = (): SweepTotals => ({ points: 0, operations: 0, checked: 0, restartedTurns: 0, unknownOutcomes: 0, decisions: 0, slots: 0, reminders: 0, failures: [] });

export function addTotals(into: SweepTotals, from: SweepTotals): void {
  into.points += from.points;
  into.operations += from.operations;
  into.checked += from.checked;
  into.restartedTurns += from.restartedTurns;
  into.unknownOutcomes += from.unknownOutcomes;
  into.decisions += from.decisions;
  into.slots += from.slots;
  into.reminders += from.reminders;
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
      for (const violation of result.violations) totals.failures.push(`--store=${store} --seed=${seed} --at=${crashAt} --mode=${mode}: ${violation}`);
    }
  }
  return totals;
}
