/**
 * How the agent closes what a crash left open and continues parked turns
 * (docs/design/foundation.md "Guarantees", docs/design/processes.md "Recovery by lease"): at
 * start, by the periodic sweep where leases reach other processes, and when a request finds a
 * session whose lease holder is gone.
 * @module
 */
import type { HostLogger } from "../base/logging.ts";
import type { ApprovalStore } from "../engine/approvals/approval-store.ts";
import { type ParkedTurnDeps, resumeIfOrphaned, resumeParkedTurn } from "../engine/sessions/parked-turns.ts";
import type { EventLog } from "../engine/sessions/event-log.ts";
import { recoverSession, recoverSessions } from "../engine/sessions/recovery.ts";
import { recoverIfOrphaned, startSweeping, sweeperOwner, sweepOrphans, type SweepDeps } from "../engine/sessions/recovery-sweep.ts";
import type { SessionStore } from "../engine/sessions/session-store.ts";
import type { TurnController } from "../engine/sessions/turn-controller.ts";
import type { ConversationLog } from "../engine/turns/conversation.ts";
import type { Coordination } from "./coordination.ts";
import { resumeCloudTurn } from "./cloud-recovery.ts";
import type { SessionEvent } from "../base/events/vocabulary.ts";
import type { SessionRecord } from "../base/definitions/sessions.ts";
import type { StorageDriver } from "../base/storage/types.ts";

export interface RecoveryParts {
  store: SessionStore;
  log: EventLog;
  logger: HostLogger;
  conversation: ConversationLog;
  approvals: ApprovalStore;
  coordination: Coordination;
  /** Which tools declared `idempotent` (docs/design/tools.md "Side effects and crashes"). */
  isIdempotent: (toolName: string) => boolean;
  /** Where cloud turns keep their runner, so a restart reattaches them (./cloud-recovery.ts). */
  storage: Pick<StorageDriver, "get">;
}

export interface AgentRecovery {
  /** Continues here a turn parked by a process that stopped; true when it now runs here. */
  takeOverParked(sessionId: string): Promise<boolean>;
  /** Recovers the session if the process `owner` let its lease expire; true when it was free. */
  recoverIfOrphaned(sessionId: string, owner: string): Promise<boolean>;
  /** Recovery at start, then the periodic sweep where leases reach other processes. */
  start(): Promise<void>;
  /** Stops the periodic sweep. */
  stop(): void;
}

/**
 * Closes what a crashed process left open in a session whose lease this process has just taken
 * (its active marker names that process): only where other processes run the agent's turns.
 */
export function orphanRecovery(parts: RecoveryParts): ((sessionId: string) => Promise<unknown>) | undefined {
  const { store, log, logger, conversation, approvals, coordination, isIdempotent } = parts;
  if (!coordination.crossProcess) return undefined;
  return (sessionId) => recoverSession({ store, log, logger, conversation, leases: coordination.leases, approvals, isIdempotent }, sessionId);
}

export function createRecovery(parts: RecoveryParts, controller: TurnController): AgentRecovery {
  const { store, log, logger, conversation, approvals, coordination, isIdempotent } = parts;
  const { leases, sharedSlots, placement } = coordination;
  // Parked turns outlive their process: recovery and resolutions continue them here.
  const parked: ParkedTurnDeps = {
    approvals,
    store,
    log,
    conversation,
    leases,
    isBusy: (sessionId) => controller.isBusy(sessionId),
    resume: (record, turnId) => controller.resumeParked(record, turnId),
  };
  // The sweep recovers under its own lease owner: a parked turn it resumes here needs that lease
  // handed to this process's owner first.
  const sweptParked: ParkedTurnDeps = {
    ...parked,
    resume: async (record, turnId) => {
      await leases.release(record.sessionId, sweeperOwner(leases));
      return controller.resumeParked(record, turnId);
    },
  };
  // What recovery at start and the periodic sweep both close sessions with.
  const recovery = { store, log, logger, conversation, leases, approvals, isIdempotent };
  // A cloud turn still running on its runner is reattached first: it may be parked for approval
  // too, and then its runner, not this process, continues it.
  const resumeOpen =
    (deps: ParkedTurnDeps) =>
    async (record: SessionRecord, events: SessionEvent[]): Promise<boolean> =>
      (await resumeCloudTurn({ storage: parts.storage, store, log, leases, resume: deps.resume }, record, events)) || resumeParkedTurn(deps, record, events);
  const sweepDeps: SweepDeps = {
    ...recovery,
    resumeParked: resumeOpen(sweptParked),
    isLocal: (sessionId) => controller.isBusy(sessionId),
    ...(sharedSlots ? { slots: sharedSlots } : {}),
  };
  let stopSweeping = (): void => {};
  return {
    takeOverParked: (sessionId) => resumeIfOrphaned(parked, sessionId),
    recoverIfOrphaned: (sessionId, owner) => recoverIfOrphaned(sweepDeps, sessionId, owner),
    async start() {
      // A store built for many processes: only turns whose lease expired are ours to close. A
      // process-local one (memory, sqlite) serves one host: what it left open at a crash is closed now.
      // A placed host sees only its own session's marker and is its only runner: an open turn, and
      // a turn slot held under its owner, are its dead predecessor's.
      if (placement) {
        await sharedSlots?.forget((slot) => slot.owner === leases.owner).catch(() => {});
        await recoverSessions({ ...recovery, resumeParked: resumeOpen(parked) });
      } else if (coordination.sharedFollow) await sweepOrphans(sweepDeps);
      else {
        await recoverSessions({ ...recovery, resumeParked: resumeOpen(parked) });
        await sharedSlots?.forget((slot) => slot.owner !== leases.owner).catch(() => {});
      }
      if (coordination.sharedLeases && !placement) stopSweeping = startSweeping(sweepDeps, leases.ttlMs);
    },
    stop() {
      stopSweeping();
    },
  };
}
