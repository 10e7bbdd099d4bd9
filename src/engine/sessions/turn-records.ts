/**
 * What the turn controller commits for a turn's life on the session's log and record
 * (docs/design/storage.md): events with the session's status in one commit, the resting event
 * with the turn count, the release of the turn lease and the active marker, and coalesced
 * messages closed without a turn.
 * @module
 */
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import type { TurnEmit } from "../turns/run-turn.ts";
import type { EventLog } from "./event-log.ts";
import { ABORT_MESSAGES, type AbortKind, type Coalesced } from "./live-session.ts";
import type { SessionStore } from "./session-store.ts";
import type { TurnLeases } from "./turn-leases.ts";

export interface TurnRecordDeps {
  log: EventLog;
  store: SessionStore;
  conversation: ConversationLog;
  logger: HostLogger;
  leases?: TurnLeases;
  /** The controller's live view: a session it holds keeps its marker and lease. */
  isBusy: (sessionId: string) => boolean;
}

export class TurnRecords {
  readonly #deps: TurnRecordDeps;

  constructor(deps: TurnRecordDeps) {
    this.#deps = deps;
  }

  emit(sessionId: string, draft: EventDraft): Promise<unknown> {
    return this.#deps.log.append(sessionId, [draft]);
  }

  /** An event and the session's new status, in one commit: listings never lag the stream. */
  emitWithStatus(sessionId: string, draft: EventDraft, status: SessionRecord["status"]): Promise<unknown> {
    return this.#deps.store.updateWith(
      sessionId,
      (r) => {
        r.status = status;
      },
      (records) => this.#deps.log.append(sessionId, [draft], { records }),
    );
  }

  /** A turn's event carrying the conversation messages that commit with it. */
  turnEmit(sessionId: string): TurnEmit {
    return (draft, also) =>
      this.#deps.log.append(sessionId, [draft], {
        ...(also?.conversation ? { appends: [this.#deps.conversation.appendWrite(sessionId, also.conversation)] } : {}),
        ...(also?.records ? { records: also.records } : {}),
      });
  }

  /** Counts the turn that ended, with nothing else written (a preempting turn runs next). */
  async countTurn(sessionId: string): Promise<void> {
    await this.#deps.store.update(sessionId, countTurn);
  }

  /**
   * The session's resting event, its status and turn count, and (without turn leases) the removal
   * of its active marker, in one commit: `GET /v1/sessions` never lags the stream, and a crash
   * cannot split them. With leases the marker goes after the lease (`releaseIfIdle`).
   */
  async settle(sessionId: string, last: EventDraft, status: SessionRecord["status"], counted: boolean): Promise<void> {
    const { store, log } = this.#deps;
    const updated = await store.updateWith(
      sessionId,
      (r) => {
        if (counted) countTurn(r);
        r.status = status;
      },
      // Decided when the commit is queued: a follow-up admitted before has marked the session
      // active again and its marker stays; one admitted after commits its marker after this.
      (records) => {
        const clear = !this.#deps.isBusy(sessionId) && !this.#deps.leases;
        return log.append(sessionId, [last], { records: clear ? [...records, store.activeWrite(sessionId, null)] : records });
      },
    );
    if (!updated) this.#deps.logger.warn(`session ${sessionId} was removed before its turn settled`);
  }

  /**
   * Gives the turn lease back unless a message admitted meanwhile keeps the session busy (it holds
   * the lease already: owners are processes, so taking it again was a renewal), then drops the
   * active marker. In that order: a crash in between leaves the marker, and restart recovery
   * releases the lease it names; the other way round, a dead process's lease would refuse the
   * session's follow-ups (409 `session_busy`) until it expired.
   */
  async releaseIfIdle(sessionId: string): Promise<void> {
    const leases = this.#deps.leases;
    if (!leases || this.#deps.isBusy(sessionId)) return;
    await leases.release(sessionId);
    // A message admitted meanwhile wrote its own marker, which stays.
    if (!this.#deps.isBusy(sessionId)) await this.#deps.store.clearActive(sessionId);
  }

  async closeCoalesced(sessionId: string, pending: Coalesced, kind: AbortKind = "interrupt"): Promise<void> {
    // The messages were accepted: keep them in the model's history even though no turn runs them.
    await this.#deps.conversation.append(sessionId, [{ role: "user", content: pending.texts.join("\n") }]);
    await this.emit(sessionId, { type: "turn.failed", turnId: pending.turnId, data: { message: ABORT_MESSAGES[kind] } });
  }
}

const countTurn = (record: SessionRecord): void => {
  record.turnCount += 1;
};
