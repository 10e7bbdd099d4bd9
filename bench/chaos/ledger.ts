/**
 * The side-effect ledger: what the outside world saw the chaos agent do, across every host of one
 * crash point. A tool body or a schedule's `run` counts once each time it really starts; a
 * channel's event handler counts each event it was handed, by the host that handed it; a
 * subagent's model counts the steps it has in flight; the MCP task tool counts its runs by tag. A host whose process is dead (its store
 * crashed) does nothing more, so its bodies count nothing: the harness abandons such a host
 * instead of killing it, and this gate is what makes it dead to the world (docs/reliability.md
 * "Oracles").
 * @module
 */

export interface Ledger {
  /** Runs of each tool call, by call id. */
  toolRuns: Map<string, { toolName: string; runs: number }>;
  /** Runs of each schedule slot, by `<scheduleId>@<slot>`. */
  slotRuns: Map<string, number>;
  /**
   * Channel deliveries, by `<sessionId>#<index>`: the event's type and the host (generation) of
   * each delivery. Absent where the harness cannot see them (a served process: ./kill.ts).
   */
  deliveries?: Map<string, { type: string; hosts: number[] }>;
  /** Subagent model steps in flight, by host generation (a step that never ends is a child left running). */
  subagentSteps?: Map<number, number>;
  /** Runs of the MCP task tool's body, by the workload's tag (one tag, one task). */
  mcpRuns?: Map<string, number>;
}

export const newLedger = (): Ledger => ({ toolRuns: new Map(), slotRuns: new Map(), deliveries: new Map(), subagentSteps: new Map(), mcpRuns: new Map() });

export function countTool(ledger: Ledger, callId: string, toolName: string): void {
  const entry = ledger.toolRuns.get(callId) ?? { toolName, runs: 0 };
  entry.runs++;
  ledger.toolRuns.set(callId, entry);
}

export function countSlot(ledger: Ledger, scheduleId: string, slot: string): void {
  const key = `${scheduleId}@${slot}`;
  ledger.slotRuns.set(key, (ledger.slotRuns.get(key) ?? 0) + 1);
}

export function countMcpRun(ledger: Ledger, tag: string): void {
  const runs = (ledger.mcpRuns ??= new Map());
  runs.set(tag, (runs.get(tag) ?? 0) + 1);
}

export function countDelivery(ledger: Ledger, sessionId: string, index: number, type: string, host: number): void {
  const key = `${sessionId}#${index}`;
  const deliveries = (ledger.deliveries ??= new Map());
  const entry = deliveries.get(key) ?? { type, hosts: [] };
  entry.hosts.push(host);
  deliveries.set(key, entry);
}
