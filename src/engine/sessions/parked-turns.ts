/**
 * Turns parked for approval outlive the process that ran them (docs/design/tools.md "Approvals"):
 * recovery does not fail such a turn but continues it in this process, still parked, and a
 * resolution made where no process runs the turn any more continues it there.
 * @module
 */
import type { EventLog } from "./event-log.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { closingEvents } from "./recovery.ts";
import type { SessionStore } from "./session-store.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { TurnLeases } from "./turn-leases.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import type { ApprovalRecord, ApprovalStore } from "../approvals/approval-store.ts";

export interface ParkedTurnDeps {
  approvals: ApprovalStore;
  store: SessionStore;
  log: EventLog;
  conversation: ConversationLog;
  leases?: TurnLeases;
  /** Whether this process runs (or is admitting) a turn of the session. */
  isBusy(sessionId: string): boolean;
  /** Continues the parked turn `turnId` in this process (the turn controller's `resumeParked`). */
  resume(record: SessionRecord, turnId: string): Promise<boolean>;
}

/**
 * Recovery's step for a parked turn: when the session's open turn waits on a call (or holds a
 * decision it has not recorded yet), every other open turn is failed as recovery fails them and
 * the parked one resumes here. Resolves false when the session has no parked turn.
 */
export async function resumeParkedTurn(deps: ParkedTurnDeps, record: SessionRecord, events: SessionEvent[]): Promise<boolean> {
  const { sessionId } = record;
  const parked = await findParkedTurn(deps.approvals, sessionId, events);
  if (parked === undefined) return false;
  const { turnId } = parked;
  // Calls parked inside a subagent (whose own steps are not stored) are asked again when the
  // subagent runs again from its prompt: the old ones close.
  const stepCalls = new Set((await deps.conversation.loadParked(sessionId))?.step.content.map((part) => (part.type === "tool-call" ? part.toolCallId : "")));
  await deps.approvals.close(sessionId, parked.records.filter((call) => !stepCalls.has(call.callId)));
  // The stopped process wrote the log since this one last did: its cached length is stale.
  deps.log.forget(sessionId);
  // Messages admitted behind the parked turn were only queued in the stopped process's memory.
  const others = closingEvents(
    events.filter((event) => event.turnId !== turnId),
    record.mode,
  ).filter((draft) => draft.type === "turn.failed");
  if (others.length > 0) await deps.log.append(sessionId, others);
  // The marker names the stopped process; its lease would keep this one from taking over.
  const owner = await deps.store.activeTurn(sessionId);
  if (owner !== undefined && owner !== deps.leases?.owner) await deps.leases?.release(sessionId, owner);
  // Not resumed (the host is closing): it stays parked in storage for the next start.
  await deps.resume(record, turnId);
  return true;
}

/**
 * After a resolution, or for a stop: if no process runs the session's turn (the one that parked
 * it stopped and its turn lease is gone), this process continues the parked turn, so the
 * decision takes effect (or the stop ends it). Resolves true when the turn now runs here.
 */
export async function resumeIfOrphaned(deps: ParkedTurnDeps, sessionId: string): Promise<boolean> {
  if (deps.isBusy(sessionId) || (await deps.store.activeTurn(sessionId)) === undefined) return false;
  // Reads only: the lease is not touched for a session with no call parked.
  if ((await deps.approvals.open(sessionId)).length === 0 || deps.isBusy(sessionId)) return false;
  // Held by a live process: that process's turn is waiting and hears of the decision itself.
  if (deps.leases && !(await deps.leases.take(sessionId))) return false;
  try {
    const record = await deps.store.get(sessionId);
    if (record && !deps.isBusy(sessionId)) await resumeParkedTurn(deps, record, await deps.log.readEvents(sessionId));
  } finally {
    // Resumed, the turn holds the lease; otherwise (nothing parked) it goes back.
    if (!deps.isBusy(sessionId)) await deps.leases?.release(sessionId);
  }
  return deps.isBusy(sessionId);
}

/** The session's open turn that has calls parked (pending, or decided and not yet recorded), and those calls. */
export async function findParkedTurn(
  approvals: ApprovalStore,
  sessionId: string,
  events: readonly SessionEvent[],
): Promise<{ turnId: string; records: ApprovalRecord[] } | undefined> {
  const running = new Set<string>();
  for (const event of events) {
    if (event.turnId === undefined) continue;
    if (event.type === "turn.started") running.add(event.turnId);
    else if (event.type === "turn.completed" || event.type === "turn.failed") running.delete(event.turnId);
  }
  if (running.size === 0) return undefined;
  const records = (await approvals.open(sessionId)).filter((record) => running.has(record.turnId));
  const turnId = records[0]?.turnId;
  return turnId === undefined ? undefined : { turnId, records: records.filter((record) => record.turnId === turnId) };
}
