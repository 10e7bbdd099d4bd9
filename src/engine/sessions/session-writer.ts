/**
 * The one writer of a session's event log and of what commits with it (docs/design/storage.md
 * "How the sessions use it"): the session service hands it the message a session is created or
 * followed up with, the turn controller a turn's start, queueing and end, the turn runner each
 * step's events (through `turnEmit`). It alone decides which writes share a commit (the record's
 * status and turn count, token bindings, the active marker, conversation messages), so "whole or
 * absent" after a crash is decided in one place; the event log under it assigns the indexes.
 * @module
 */
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { HostLogger } from "../../base/logging.ts";
import { StorageUnavailableError } from "../../base/storage/errors.ts";
import type { LogAppend, RecordWrite } from "../../base/storage/types.ts";
import type { ConversationMessage } from "../../base/ports/model.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import type { TurnEmit } from "../turns/run-turn.ts";
import type { EventLog } from "./event-log.ts";
import { ABORT_MESSAGES, type AbortKind, type Coalesced } from "./live-session.ts";
import { sessionNotFound } from "./session-errors.ts";
import type { SessionStore } from "./session-store.ts";
import type { TurnLeases } from "./turn-leases.ts";

/** What accepting a message records, as drafts: the writer commits them. */
export interface Acceptance {
  /** The events that record the message, in order; the last is its `message.received`. */
  events: EventDraft[];
  /** Other records that commit with them (token bindings). */
  records?: RecordWrite[];
  /** A session being created: its whole record. */
  create?: SessionRecord;
  /** A session followed up: the change to its stored record; throwing refuses the message. */
  change?: (record: SessionRecord) => void;
}

/**
 * A completed turn's last step, its events still being committed (docs/design/speed.md "The
 * turn's end behind its last step"): `failuresBefore` is the event log's failure count from before
 * the turn wrote anything (`EventLog.failures`).
 */
export interface StepInFlight {
  recording: Promise<void>;
  failuresBefore: number;
}

/** A turn that starts in the same commit as its message (its slot was free at once). */
export interface StartNow {
  turnId: string;
  /** The user text the turn answers, recorded in the conversation with `turn.started`. */
  text: string;
  /** Its first step's `step.started` commits with it too (the local agent loop runs the turn). */
  firstStep?: boolean;
}

export interface SessionWriterDeps {
  log: EventLog;
  store: SessionStore;
  conversation: ConversationLog;
  logger: HostLogger;
  leases?: TurnLeases;
  /** The controller's live view: a session it holds keeps its marker and lease. */
  isBusy: (sessionId: string) => boolean;
  /** The agent definition's version, recorded in every `turn.started` (docs/design/deploy-safe-sessions.md). */
  agentVersion?: Promise<string | undefined>;
}

type Status = SessionRecord["status"];

export class SessionWriter {
  readonly #deps: SessionWriterDeps;

  constructor(deps: SessionWriterDeps) {
    this.#deps = deps;
  }

  /**
   * An accepted message, with `marker` (the active marker of a new turn) and, when its turn
   * starts at once, `turn.started`, the running status and the user's conversation message: one
   * commit, so a crash never leaves a message without its marker or a started turn without it.
   * `takeLease` (a new session's) runs in the same synchronous run as the create's commit is sent,
   * after every await here, so the two share a group commit (docs/design/speed.md "Group commit").
   */
  async admit(sessionId: string, acceptance: Acceptance, marker?: RecordWrite, start?: StartNow, takeLease?: () => void): Promise<void> {
    const { store, log } = this.#deps;
    const drafts = start ? [...acceptance.events, await this.#started(start.turnId), ...(start.firstStep ? [firstStepStarted(start.turnId)] : [])] : acceptance.events;
    const commit = (writes: RecordWrite[]) =>
      log.append(sessionId, drafts, {
        records: [...writes, ...(acceptance.records ?? []), ...(marker ? [marker] : [])],
        ...(start ? { appends: [this.#userMessage(sessionId, start.text)] } : {}),
      });
    if (acceptance.create) {
      const record: SessionRecord = start ? { ...acceptance.create, status: "running" } : acceptance.create;
      // A new id has no log yet: its first commit goes out without reading the length first.
      log.fresh(sessionId);
      takeLease?.();
      await commit(store.newRecordWrites(record));
      return;
    }
    takeLease?.();
    const updated = await store.updateWith(
      sessionId,
      (record) => {
        acceptance.change?.(record);
        if (start) record.status = "running";
      },
      commit,
    );
    if (!updated) throw sessionNotFound();
  }

  /**
   * A fork (./session-fork.ts): its whole record, the events it copies (keeping their times) and
   * its own, and the conversation as it stood, in one commit: a crash leaves all of it or none.
   */
  fork(sessionId: string, record: SessionRecord, drafts: EventDraft[], times: ReadonlyArray<string | undefined>, conversation: ConversationMessage[], records: RecordWrite[]): Promise<unknown> {
    return this.#deps.log.append(sessionId, drafts, {
      records: [...this.#deps.store.newRecordWrites(record), ...records],
      appends: conversation.length === 0 ? [] : [this.#deps.conversation.appendWrite(sessionId, conversation)],
      at: times,
    });
  }

  /** `turn.started` of a turn that waited for its slot, its status and the user's message. */
  async start(sessionId: string, turn: StartNow): Promise<unknown> {
    return this.#withStatus(sessionId, [await this.#started(turn.turnId)], "running", [this.#userMessage(sessionId, turn.text)]);
  }

  /** `turn.queued` and the queued status: listings never lag the stream. */
  queued(sessionId: string, turnId: string, position: number): Promise<unknown> {
    return this.#withStatus(sessionId, [{ type: "turn.queued", turnId, data: { position } }], "queued");
  }

  emit(sessionId: string, draft: EventDraft): Promise<unknown> {
    return this.#deps.log.append(sessionId, [draft]);
  }

  /** A message written with no model turn (a channel's `emitAssistantMessage`). */
  message(sessionId: string, draft: EventDraft): Promise<unknown> {
    // Another process may have written the log since this one last did (no lease is taken here).
    this.#deps.log.forget(sessionId);
    return this.emit(sessionId, draft);
  }

  /** What a running turn records: each event with the conversation and records of its step. */
  turnEmit(sessionId: string): TurnEmit {
    return (draft, also) =>
      this.#deps.log.append(sessionId, Array.isArray(draft) ? draft : [draft], {
        ...(also?.conversation ? { appends: [this.#deps.conversation.appendWrite(sessionId, also.conversation)] } : {}),
        ...(also?.records ? { records: also.records } : {}),
      });
  }

  /** The turn's end (`drafts`, maybe none) with its count, the session staying busy (a preempting turn runs next). */
  async count(sessionId: string, drafts: EventDraft[]): Promise<void> {
    const { store, log } = this.#deps;
    if (drafts.length === 0) await store.update(sessionId, countTurn);
    else await this.#keepingEnd(sessionId, drafts, () => store.updateWith(sessionId, countTurn, (records) => log.append(sessionId, drafts, { records })));
  }

  /**
   * The turn's end and the session's resting event (`drafts`), its status and turn count, and
   * the removal of its active marker, in one commit: `GET /v1/sessions` never lags the stream,
   * and a crash cannot split them. With turn leases the lease is given back in that commit too
   * where the store can (`releasesInCommit`, docs/design/speed.md "The lease goes with the turn's
   * end"); elsewhere marker and lease go right after it (`releaseIfIdle`). `behind`: the turn's
   * last step is still being committed; this commit is sent right behind it without waiting, and
   * refused if any write of the turn failed, so a turn never reads as completed without its last
   * step.
   */
  async rest(sessionId: string, drafts: EventDraft[], status: Status, counted: boolean, behind?: StepInFlight): Promise<void> {
    const { store, log, leases } = this.#deps;
    const ending = drafts.slice(0, -1);
    const chained = behind ? { unlessFailedSince: behind.failuresBefore } : {};
    let released = false;
    const updated = await this.#keepingEnd(sessionId, ending, () => store.updateWith(
      sessionId,
      (r) => {
        if (counted) countTurn(r);
        r.status = status;
      },
      // Decided when the commit is queued: a follow-up admitted before has marked the session
      // active again (and holds the lease) and both stay; one admitted after commits its marker
      // after this, and takes the lease after it too, as long as this commit reaches the driver
      // at once (a lease goes to the driver directly, not through the event log's queue).
      (records) => {
        const idle = !this.#deps.isBusy(sessionId);
        const release = idle && leases && log.sendsAtOnce(sessionId) ? leases.releaseWrite(sessionId) : undefined;
        released = release !== undefined;
        const clear = idle && (!leases || released);
        return log.append(sessionId, drafts, {
          records: clear ? [...records, store.activeWrite(sessionId, null)] : records,
          ...(release ? { releases: [release] } : {}),
          ...chained,
        });
      },
    ), behind);
    // Settled already when the commit above was: it was applied behind these writes.
    await behind?.recording;
    if (!updated) this.#deps.logger.warn(`session ${sessionId} was removed before its turn settled`);
    if (!released) await this.releaseIfIdle(sessionId);
  }

  /**
   * Gives the turn lease back unless a message admitted meanwhile keeps the session busy (it holds
   * the lease already: owners are processes, so taking it again was a renewal), then drops the
   * active marker. In that order: a crash in between leaves the marker, and restart recovery
   * releases the lease it names; the other way round, a dead process's lease would refuse the
   * session's follow-ups (409 `session_busy`) until it expired. Both are sent at once: the driver
   * applies one caller's writes in call order (docs/design/storage.md "Commit"), so the order
   * holds and they can share a group commit instead of waiting for each other. A message admitted
   * after this (the session was not busy when they were sent) takes the lease and writes its
   * marker after them, so its marker stays.
   */
  async releaseIfIdle(sessionId: string): Promise<void> {
    const leases = this.#deps.leases;
    if (!leases || this.#deps.isBusy(sessionId)) return;
    await Promise.all([leases.release(sessionId), this.#deps.store.clearActive(sessionId)]);
  }

  async closeCoalesced(sessionId: string, pending: Coalesced, kind: AbortKind = "interrupt"): Promise<void> {
    // The messages were accepted: keep them in the model's history even though no turn runs them.
    await this.#deps.conversation.append(sessionId, [{ role: "user", content: pending.texts.join("\n") }]);
    await this.emit(sessionId, { type: "turn.failed", turnId: pending.turnId, data: { message: ABORT_MESSAGES[kind] } });
  }

  // --- internals ---

  /**
   * Runs the commit of a turn's end with the record it changes; when the store refuses it (an
   * outage that refuses records, docs/design/faults.md), the turn's own end (`ending`) is still
   * committed alone, as the turn did end: it keeps its `turn.completed`, and the session is
   * closed as after a crash once the store takes writes again.
   */
  async #keepingEnd<T>(sessionId: string, ending: EventDraft[], commit: () => Promise<T>, behind?: StepInFlight): Promise<T> {
    try {
      return await commit();
    } catch (error) {
      // Only behind a last step that landed: a turn never reads as completed without it.
      const landed = await (behind?.recording ?? Promise.resolve()).then(() => true, () => false);
      if (landed && ending.length > 0 && StorageUnavailableError.isError(error)) await this.#deps.log.append(sessionId, ending).catch(() => {});
      throw error;
    }
  }

  #withStatus(sessionId: string, drafts: EventDraft[], status: Status, appends: LogAppend[] = []): Promise<unknown> {
    return this.#deps.store.updateWith(
      sessionId,
      (r) => {
        r.status = status;
      },
      (records) => this.#deps.log.append(sessionId, drafts, { records, appends }),
    );
  }

  async #started(turnId: string): Promise<EventDraft> {
    const agentVersion = await this.#deps.agentVersion;
    return { type: "turn.started", turnId, data: agentVersion === undefined ? {} : { agentVersion } };
  }

  #userMessage(sessionId: string, text: string): LogAppend {
    return this.#deps.conversation.appendWrite(sessionId, [{ role: "user", content: text }]);
  }
}

/** Step 0's start, recorded with its turn's start (docs/design/speed.md "The first step starts with its message"). */
const firstStepStarted = (turnId: string): EventDraft => ({ type: "step.started", turnId, data: { stepIndex: 0 } });

const countTurn = (record: SessionRecord): void => {
  record.turnCount += 1;
};
