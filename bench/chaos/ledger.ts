/**
 * The side-effect ledger: what the outside world saw the chaos agent do, across every host of one
 * crash point. A tool body or a schedule's `run` counts once each time it really starts. A host
 * whose process is dead (its store crashed) does nothing more, so its bodies count nothing: the
 * harness abandons such a host instead of killing it, and this gate is what makes it dead to the
 * world (docs/reliability.md "Oracles").
 * @module
 */

export interface Ledger {
  /** Runs of each tool call, by call id. */
  toolRuns: Map<string, { toolName: string; runs: number }>;
  /** Runs of each schedule slot, by `<scheduleId>@<slot>`. */
  slotRuns: Map<string, number>;
}

export const newLedger = (): Ledger => ({ toolRuns: new Map(), slotRuns: new Map() });

export function countTool(ledger: Ledger, callId: string, toolName: string): void {
  const entry = ledger.toolRuns.get(callId) ?? { toolName, runs: 0 };
  entry.runs++;
  ledger.toolRuns.set(callId, entry);
}

export function countSlot(ledger: Ledger, scheduleId: string, slot: string): void {
  const key = `${scheduleId}@${slot}`;
  ledger.slotRuns.set(key, (ledger.slotRuns.get(key) ?? 0) + 1);
}
