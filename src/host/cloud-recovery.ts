/**
 * A host restarted while a cloud turn ran (docs/design/cloud-runtime.md "Leases and crashes"):
 * instead of failing the turn, recovery continues it here, and its remote loop reattaches to the
 * runner after the last line the log holds, so no event is lost or written twice.
 * @module
 */
import type { SessionEvent } from "../base/events/vocabulary.ts";
import type { SessionRecord } from "../base/definitions/sessions.ts";
import { cloudTurnKey } from "../base/storage/keys.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { EventLog } from "../engine/sessions/event-log.ts";
import { closingEvents } from "../engine/sessions/recovery.ts";
import type { SessionStore } from "../engine/sessions/session-store.ts";
import type { TurnLeases } from "../engine/sessions/turn-leases.ts";
import type { CloudTurnState } from "../features/cloud/remote-turn.ts";

export interface CloudRecoveryDeps {
  storage: Pick<StorageDriver, "get">;
  store: SessionStore;
  log: EventLog;
  leases?: TurnLeases;
  /** Continues the turn in this process (the turn controller's `resumeParked`). */
  resume(record: SessionRecord, turnId: string): Promise<boolean>;
}

/** Resolves false when the session's open turn is not a cloud turn a runner took. */
export async function resumeCloudTurn(deps: CloudRecoveryDeps, record: SessionRecord, events: SessionEvent[]): Promise<boolean> {
  const { sessionId } = record;
  const raw = await deps.storage.get(cloudTurnKey(sessionId));
  if (raw === undefined) return false;
  const state = JSON.parse(raw) as CloudTurnState;
  const open = new Set<string>();
  for (const event of events) {
    if (event.turnId === undefined) continue;
    if (event.type === "turn.started") open.add(event.turnId);
    else if (event.type === "turn.completed" || event.type === "turn.failed") open.delete(event.turnId);
  }
  if (!open.has(state.turnId)) return false;
  // The stopped process wrote the log since this one last did: its cached length is stale.
  deps.log.forget(sessionId);
  // Messages admitted behind the running turn were only queued in the stopped process's memory.
  const others = closingEvents(events.filter((event) => event.turnId !== state.turnId), record.mode).filter((draft) => draft.type === "turn.failed");
  if (others.length > 0) await deps.log.append(sessionId, others);
  const owner = await deps.store.activeTurn(sessionId);
  if (owner !== undefined && owner !== deps.leases?.owner) await deps.leases?.release(sessionId, owner);
  await deps.resume(record, state.turnId);
  return true;
}
