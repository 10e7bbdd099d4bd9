/**
 * What must hold after every recovery (docs/reliability.md "Oracles", docs/design/foundation.md
 * "Guarantees"): no acknowledged message lost; event indexes contiguous; what every follower
 * received is a byte-equal prefix of the log; every turn closed and every session at rest; no
 * tool body that is not idempotent run twice for one call, a call cut short recorded as
 * `outcome_unknown` and never re-run, a call recorded as never run never run, every run recorded
 * (docs/design/tools.md "Side effects and crashes"); each acknowledged approval decision applied
 * exactly once; each schedule slot run at most once, and exactly once when a tick reported it;
 * each one-shot reminder delivered at most once, and exactly once when a tick reported it fired;
 * and what lands through a channel, a subagent, A2A or an MCP task (./landing-oracles.ts). Each check returns the violations it found, as text.
 * @module
 */
import type { StorageDriver } from "../../src/base/storage/types.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { checkA2aTasks, checkDeliveries, checkInbound, checkMcpTasks, checkSubagents, type LandingCounts } from "./landing-oracles.ts";
import type { Ledger } from "./ledger.ts";
import { lastType, SETTLED, type SettleOptions, settleOrLate } from "./settle.ts";
import type { Acknowledged, Clock } from "./workload.ts";
import { MINUTE, REMINDED } from "./workload.ts";

interface Event {
  index: number;
  type: string;
  turnId?: string;
  data: Record<string, unknown>;
}

const NEVER_RAN = "the host restarted before this call ran";
/** The tools whose bodies the ledger counts (./project.ts). */
/** How a reminder's delivery reads (the prompt the workload armed it with). */
const DELIVERED = `/reply ${REMINDED}`;
const LEDGER_TOOLS = new Set(["record", "lookup", "gated"]);

const parse = (lines: readonly string[]): Event[] => lines.map((line) => JSON.parse(line) as Event);

/** The violations found, and counts that prove the run had something to check. */
export interface Verdict extends LandingCounts {
  violations: string[];
  /**
   * Sessions that were still busy at the settling deadline and came to rest in the late window
   * after it (./settle.ts): slow, not stuck, and judged at rest; kept apart from the violations.
   */
  late: string[];
  restartedTurns: number;
  unknownOutcomes: number;
  decisions: number;
  slots: number;
  reminders: number;
}

/**
 * Runs the checks on the recovered host. `storage` is the reopened store (its raw lines are what
 * followers must have seen a prefix of); `clock` is moved on to fire the schedule after recovery.
 */
export async function checkOracles(host: AgentHost, storage: StorageDriver, acknowledged: Acknowledged, ledger: Ledger, clock: Clock, options: SettleOptions = {}): Promise<Verdict> {
  const violations: string[] = [];
  const late: string[] = [];
  let restartedTurns = 0;
  let unknownOutcomes = 0;
  // MCP tasks need no session at rest: polled alongside, so the wait for a cut runner's lease to
  // lapse overlaps the wait for the sessions' (its violations join at the end).
  const mcpViolations: string[] = [];
  const mcpChecked = checkMcpTasks(host, ledger, acknowledged, mcpViolations, 10_000);
  const logs = await settleOrLate(host, storage, acknowledged, options, late);
  const results = new Map<string, Record<string, unknown>>();
  const resolved = new Map<string, string[]>();
  const deliveries = new Map<string, number>();
  for (const [sessionId, lines] of logs) {
    const tags = acknowledged.messages.get(sessionId) ?? [];
    if (lines.length === 0) {
      violations.push(acknowledged.messages.has(sessionId) ? `${sessionId}: an acknowledged session is gone` : `${sessionId}: a session record without events`);
      continue;
    }
    const log = parse(lines);
    const received = log.filter((e) => e.type === "message.received").map((e) => String(e.data["text"]));
    for (const tag of tags) {
      if (!received.some((text) => text.includes(tag) && !text.startsWith(DELIVERED))) violations.push(`${sessionId}: acknowledged message ${tag} lost`);
    }
    log.forEach((event, i) => {
      if (event.index !== i) violations.push(`${sessionId}: index ${event.index} at position ${i}`);
    });
    if (!SETTLED.has(log.at(-1)?.type ?? "")) violations.push(`${sessionId}: not at rest (last event ${log.at(-1)?.type})`);
    restartedTurns += log.filter((e) => e.type === "turn.failed" && e.data["message"] === "host restarted").length;
    const open = new Set<string>();
    for (const event of log) {
      if (event.type === "action.result") {
        const callId = String(event.data["toolCallId"]);
        if (results.has(callId)) violations.push(`${sessionId}: call ${callId} has two results`);
        results.set(callId, event.data);
      }
      if (event.type === "action.approval_resolved") {
        const callId = String(event.data["callId"]);
        resolved.set(callId, [...(resolved.get(callId) ?? []), String(event.data["decision"])]);
      }
      if (!event.turnId) continue;
      if (event.type === "turn.started" || event.type === "turn.queued") open.add(event.turnId);
      if (event.type === "turn.completed" || event.type === "turn.failed") open.delete(event.turnId);
    }
    for (const turnId of open) violations.push(`${sessionId}: turn ${turnId} never ended`);
  }

  // What every follower received (keyed `<sessionId>` or `<sessionId>#<follower>`) is a prefix of the log.
  for (const [key, followed] of acknowledged.followed) {
    const sessionId = key.split("#")[0]!;
    const lines = logs.get(sessionId) ?? [];
    const diverged = followed.findIndex((line, i) => line !== lines[i]);
    if (diverged >= 0) violations.push(`${sessionId}: a follower received line ${diverged} as ${followed[diverged]?.slice(0, 80)}, the log holds ${lines[diverged]?.slice(0, 80)}`);
  }

  // Side effects: every run recorded, none repeated, none of a call recorded as never run.
  for (const [callId, { toolName, runs }] of ledger.toolRuns) {
    const result = results.get(callId);
    if (!result) violations.push(`tool call ${callId} (${toolName}) ran ${runs} time(s) and left no result`);
    if (runs > 1 && toolName !== "lookup") violations.push(`tool call ${callId} (${toolName}, not idempotent) ran ${runs} times`);
  }
  for (const [callId, result] of results) {
    const runs = ledger.toolRuns.get(callId)?.runs ?? 0;
    const output = String(result["output"]);
    if (result["outcome"] === "outcome_unknown") {
      unknownOutcomes++;
      if (result["idempotent"] !== (result["toolName"] === "lookup")) violations.push(`call ${callId}: outcome_unknown names idempotent=${String(result["idempotent"])} for ${String(result["toolName"])}`);
    } else if (output.startsWith(NEVER_RAN) || output === "denied" || output.includes("turn interrupted")) {
      if (runs > 0) violations.push(`call ${callId} is recorded as never run but ran ${runs} time(s)`);
    } else if (result["isError"] !== true && LEDGER_TOOLS.has(String(result["toolName"])) && runs !== 1) {
      violations.push(`call ${callId} (${String(result["toolName"])}) has the result ${output.slice(0, 60)} but ran ${runs} times`);
    }
  }

  // Approvals: each decision answered 200 is applied once, as decided; nothing is decided twice.
  for (const [callId, decisions] of resolved) if (decisions.length > 1) violations.push(`approval ${callId} resolved ${decisions.length} times`);
  for (const { sessionId, callId, decision } of acknowledged.decisions) {
    const applied = resolved.get(callId) ?? [];
    if (applied.length !== 1 || applied[0] !== decision) violations.push(`${sessionId}: decision ${decision} on ${callId} acknowledged, applied as [${applied.join(", ")}]`);
    const runs = ledger.toolRuns.get(callId)?.runs ?? 0;
    if (decision === "deny" && runs > 0) violations.push(`${sessionId}: denied call ${callId} ran ${runs} time(s)`);
  }

  // Schedule slots: the recovered host ticks the minute of the crash again, then the next one.
  for (const at of [clock.now, clock.now + MINUTE]) {
    clock.now = at;
    for (const report of await host.tick()) {
      for (const firing of report.schedules) acknowledged.slots.add(`${firing.scheduleId}@${firing.slot}`);
      for (const id of report.reminders) acknowledged.reminders.add(id);
    }
  }
  // What those ticks delivered joins the logs: count reminder deliveries once they rest. A
  // delivery refused by a lease the crash orphaned is retried until the lease expires (the
  // harness's hosts use a short one), so wait for the reported ones a while.
  const reported = new Map<string, string>();
  for (const id of acknowledged.reminders) {
    const record = await storage.get(`reminders/${id}`);
    reported.set(id, record ? String((JSON.parse(record) as { prompt?: unknown }).prompt ?? "") : "");
  }
  const deadline = Date.now() + 15_000;
  let after: Map<string, string[]>;
  for (;;) {
    after = await settleOrLate(host, storage, acknowledged, options, late, " after the reminders fired");
    deliveries.clear();
    for (const lines of after.values()) {
      for (const event of parse(lines)) {
        if (event.type !== "message.received") continue;
        const text = String(event.data["text"]);
        if (text.startsWith(DELIVERED)) deliveries.set(text, (deliveries.get(text) ?? 0) + 1);
      }
    }
    if ([...reported.values()].every((prompt) => !prompt.startsWith(DELIVERED) || deliveries.has(prompt)) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const [sessionId, lines] of after) {
    if (lines.length > 0 && !SETTLED.has(lastType(lines))) violations.push(`${sessionId}: not at rest after the reminders fired (last event ${lastType(lines)})`);
  }
  for (const [reminder, count] of deliveries) if (count > 1) violations.push(`reminder ${reminder} delivered ${count} times`);
  for (const [id, prompt] of reported) {
    if (!prompt.startsWith(DELIVERED)) violations.push(`reminder ${id} was reported fired but its record is ${prompt ? "not the workload's" : "gone"}`);
    else if ((deliveries.get(prompt) ?? 0) !== 1) violations.push(`reminder ${id} (${prompt}) was reported fired but was delivered ${deliveries.get(prompt) ?? 0} times`);
  }
  for (const [slot, runs] of ledger.slotRuns) if (runs > 1) violations.push(`schedule slot ${slot} fired ${runs} times`);
  for (const slot of acknowledged.slots) {
    if (!slot.startsWith("minutely@")) continue;
    if ((ledger.slotRuns.get(slot) ?? 0) !== 1) violations.push(`schedule slot ${slot} was reported fired but ran ${ledger.slotRuns.get(slot) ?? 0} times`);
  }
  // What landed through the channel, the subagent, A2A and MCP tasks, on the logs at rest.
  const inbound = checkInbound(acknowledged, after, violations);
  const delivered = await checkDeliveries(ledger, after, violations, 10_000);
  const subagents = checkSubagents(ledger, after, violations);
  const a2aTasks = await checkA2aTasks(host, acknowledged, after, violations);
  const mcpTasks = await mcpChecked;
  violations.push(...mcpViolations);
  return {
    violations,
    late,
    restartedTurns,
    unknownOutcomes,
    decisions: acknowledged.decisions.length,
    slots: acknowledged.slots.size,
    reminders: deliveries.size,
    inbound,
    ...delivered,
    subagents,
    a2aTasks,
    mcpTasks,
  };
}
