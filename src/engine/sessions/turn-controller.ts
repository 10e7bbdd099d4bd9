/**
 * Turn admission and lifecycle for the sessions of one agent (docs/design/foundation.md
 * "Admission").
 *
 * Admission policies: `preempt` (default) interrupts the running or queued turn, waits for it to
 * settle, then runs the new message; `coalesce` queues follow-ups and drains them into one turn
 * when the active turn ends. Anything that races an admission in progress gets 409 session_busy.
 * @module
 */
import { newTurnId } from "../../base/ids.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import { STORAGE_UNAVAILABLE_MESSAGE, type TurnOutcome } from "../turns/run-turn.ts";
import type { TurnRunner } from "../turns/turn-runner.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { EventLog } from "./event-log.ts";
import { InFlight } from "./in-flight.ts";
import { ABORT_MESSAGES, type LiveSession, type LiveTurn, abortTurn, busy, busyElsewhere, isHeld, shuttingDown } from "./live-session.ts";
import { type RecoveryDeps, recoverSession } from "./recovery.ts";
import type { SessionStore } from "./session-store.ts";
import { type TurnStart, executeTurn } from "./turn-execution.ts";
import { restingEvent, turnEnding } from "./turn-ending.ts";
import type { TurnLeases } from "./turn-leases.ts";
import { type Acceptance, SessionWriter } from "./session-writer.ts";
import type { Release, SlotPool } from "./turn-slots.ts";
import type { AdmissionPolicy, SessionRecord } from "../../base/definitions/sessions.ts";

/** How often a damaged session's log is retried while the store refuses writes. */
const REPAIR_RETRY_MS = 2_000;

export interface ControllerDeps {
  log: EventLog;
  store: SessionStore;
  conversation: ConversationLog;
  slots: SlotPool;
  runner: TurnRunner;
  logger: HostLogger;
  /** The cross-process turn lease; without it, turns are exclusive within this process only. */
  leases?: TurnLeases;
  /**
   * Closes what a crashed process left open in a session whose lease this process has just taken
   * (its active marker names that process). Only where leases reach other processes.
   */
  recoverOrphan?: (sessionId: string) => Promise<unknown>;
  /** Parked calls: closed when a damaged session's turn is closed (./recovery.ts). */
  approvals?: RecoveryDeps["approvals"];
  /** The agent definition's version, for `turn.started` (./session-writer.ts). */
  agentVersion?: Promise<string | undefined>;
  /**
   * Whether this process's agent loop runs the session's turns (not a cloud runner, which records
   * its own steps): a turn that starts at admission then records its first `step.started` in the
   * message's commit (docs/design/speed.md "The first step starts with its message").
   */
  stepsHere?: (record: SessionRecord) => boolean;
}

/**
 * Called once the message is accepted (under `turnId`): says what records it (its events, a new
 * record or a change to the stored one, token bindings) without writing anything. The session's
 * writer commits it with the active marker of a new turn and, when the turn can start at once,
 * its `turn.started`: a crash never leaves an accepted message without its marker.
 */
export type AcceptStep = (turnId: string) => Promise<Acceptance>;

export class TurnController {
  readonly #deps: ControllerDeps;
  readonly #live = new Map<string, LiveSession>();
  /** Admissions and turns not yet settled; `drain` waits for all of them. */
  readonly #inFlight = new InFlight();
  readonly #writer: SessionWriter;
  #closing = false;

  constructor(deps: ControllerDeps) {
    this.#deps = deps;
    this.#writer = new SessionWriter({ ...deps, isBusy: (sessionId) => this.isBusy(sessionId) });
  }

  /** The one writer of this agent's session logs (./session-writer.ts). */
  get writer(): SessionWriter {
    return this.#writer;
  }

  /** Admissions and turns not yet settled: what `drain` would wait for now. */
  get unsettled(): number {
    return this.#inFlight.size;
  }

  /** True while a turn is running or queued, or a coalesced turn is pending. */
  isBusy(sessionId: string): boolean {
    const live = this.#live.get(sessionId);
    return live !== undefined && isHeld(live);
  }

  isQueued(sessionId: string): boolean {
    return this.#live.get(sessionId)?.turn?.state === "queued";
  }

  /**
   * Admits `text` into the session under `policy`. `accept` runs once the message is accepted and
   * before the turn starts; if it throws, nothing was admitted.
   */
  admit(record: SessionRecord, text: string, policy: AdmissionPolicy, accept: AcceptStep, options: { fresh?: boolean } = {}): Promise<void> {
    if (this.#closing) return Promise.reject(shuttingDown());
    return this.#track(this.#admit(record, text, policy, accept, options.fresh === true));
  }

  /** `fresh`: a session being created, which no other process can know yet. */
  async #admit(record: SessionRecord, text: string, policy: AdmissionPolicy, accept: AcceptStep, fresh: boolean): Promise<void> {
    const sessionId = record.sessionId;
    const live = this.#session(sessionId);
    if (live.admitting) throw busy();
    live.admitting = true;
    try {
      if (live.damaged) await this.#repair(sessionId, live);
      if (live.turn && policy === "coalesce") {
        const pending = (live.coalesced ??= { turnId: newTurnId(), texts: [] });
        await this.#writer.admit(sessionId, await accept(pending.turnId));
        pending.texts.push(text);
        return;
      }
      // A loop: the interrupted turn may hand over to a drained coalesced turn while settling.
      while (live.turn) {
        const current = live.turn;
        current.followedBy = true;
        abortTurn(current, "interrupt");
        await current.settled;
        if (this.#closing) throw shuttingDown();
      }
      const turnId = newTurnId();
      const leases = this.#deps.leases;
      if (leases && !fresh && !(await this.#takeLease(sessionId))) throw busyElsewhere();
      let slot: Release | undefined;
      let firstStep = false;
      try {
        if (leases && !fresh && this.#deps.recoverOrphan) {
          // The lease was free, but the marker names another process: it crashed mid-turn.
          const previous = await this.#deps.store.activeTurn(sessionId);
          if (previous !== undefined && previous !== leases.owner) await this.#deps.recoverOrphan(sessionId);
        }
        const acceptance = await accept(turnId);
        // A free slot now: the turn starts in the message's commit (docs/design/storage.md), and
        // so does its first step where this process runs it.
        slot = this.#deps.slots.tryAcquire();
        firstStep = slot !== undefined && this.#deps.stepsHere?.(record) === true;
        // The marker names who runs the turn: recovery releases that owner's lease.
        const marker = this.#deps.store.activeWrite(sessionId, leases?.owner ?? turnId);
        // A new session's lease cannot be held elsewhere: it is taken without waiting, in the same
        // synchronous run as the session's commit, so both land in one group commit (the driver
        // applies writes in call order; docs/design/speed.md "Group commit").
        const takeLease = leases && fresh ? () => void leases.take(sessionId).catch(() => {}) : undefined;
        await this.#writer.admit(sessionId, acceptance, marker, slot && { turnId, text, firstStep }, takeLease);
      } catch (error) {
        slot?.();
        if (!live.turn) await leases?.release(sessionId);
        throw error;
      }
      this.#start(record, live, turnId, { text, resume: false, ...(slot ? { slot, firstStepRecorded: firstStep } : {}) });
    } finally {
      live.admitting = false;
      this.#forgetIfIdle(sessionId, live);
    }
  }

  /**
   * Continues, in this process, a turn that was parked for approval when the process running it
   * stopped (docs/design/tools.md "Approvals"): it takes the session's turn lease, marks the
   * session active under it and resumes from the stored conversation, still parked. False when
   * the session is busy here, the host is closing or another process holds the lease.
   */
  async resumeParked(record: SessionRecord, turnId: string): Promise<boolean> {
    const { sessionId } = record;
    if (this.#closing || this.isBusy(sessionId)) return false;
    const live = this.#session(sessionId);
    live.admitting = true;
    try {
      const leases = this.#deps.leases;
      if (leases && !(await this.#takeLease(sessionId))) return false;
      await this.#deps.store.markActive(sessionId, leases?.owner ?? turnId);
      this.#start(record, live, turnId, { text: "", resume: true });
      return true;
    } finally {
      live.admitting = false;
      this.#forgetIfIdle(sessionId, live);
    }
  }

  /**
   * Runs `work` with the session held busy: it serializes with model turns, so it is refused with
   * 409 session_busy while a turn is running or pending, and follow-ups are refused while it runs.
   */
  runExclusive<T>(sessionId: string, work: () => Promise<T>, options: { lease?: boolean } = {}): Promise<T> {
    if (this.#closing) return Promise.reject(shuttingDown());
    const live = this.#session(sessionId);
    if (isHeld(live)) return Promise.reject(busy());
    live.admitting = true;
    const leases = options.lease ? this.#deps.leases : undefined;
    // With `lease`, no process sharing the store runs a turn of the session meanwhile either.
    const exclusive = leases
      ? this.#takeLease(sessionId).then(async (held) => {
          if (!held) throw busyElsewhere();
          try {
            return await work();
          } finally {
            await leases.release(sessionId);
          }
        })
      : work();
    return this.#track(
      exclusive.finally(() => {
        live.admitting = false;
        this.#forgetIfIdle(sessionId, live);
      }),
    );
  }

  /** Interrupts the in-flight turn (and drops pending coalesced messages into the history). */
  async stop(sessionId: string): Promise<boolean> {
    const live = this.#live.get(sessionId);
    if (!live || (!live.turn && !live.coalesced)) return false;
    const pending = live.coalesced;
    live.coalesced = undefined;
    const turn = live.turn;
    if (turn) {
      // With coalesced messages to close first, the session goes idle after them, not before.
      if (pending) turn.followedBy = true;
      abortTurn(turn, "interrupt");
      await turn.settled;
    }
    if (pending) {
      await this.#writer.closeCoalesced(sessionId, pending);
      await this.#writer.rest(sessionId, [{ type: "session.waiting", data: {} }], "idle", false);
      this.#forgetIfIdle(sessionId, live);
    }
    return true;
  }

  /**
   * Refuses new work, lets turns finish for `timeoutMs`, then interrupts the rest. Waits until
   * nothing is in flight, including turns started by admissions that were already under way.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.#closing = true;
    await this.#inFlight.settle(timeoutMs, () => {
      for (const live of this.#live.values()) if (live.turn) abortTurn(live.turn, "shutdown");
    });
  }

  // --- internals ---

  #track<T>(work: Promise<T>): Promise<T> {
    return this.#inFlight.track(work);
  }

  #session(sessionId: string): LiveSession {
    let live = this.#live.get(sessionId);
    if (!live) this.#live.set(sessionId, (live = { admitting: false }));
    return live;
  }

  /**
   * Takes the session's turn lease. Once it is held, another process that ran the session's
   * turns meanwhile has written its last event: this process's cached end of the event log may
   * be behind, so the next write reads it again (docs/design/processes.md "Forwarding").
   */
  async #takeLease(sessionId: string): Promise<boolean> {
    const held = await this.#deps.leases!.take(sessionId);
    if (held) this.#deps.log.forget(sessionId);
    return held;
  }

  #forgetIfIdle(sessionId: string, live: LiveSession): void {
    if (!isHeld(live) && this.#live.get(sessionId) === live) {
      this.#live.delete(sessionId);
    }
  }

  #start(record: SessionRecord, live: LiveSession, turnId: string, start: TurnStart): void {
    const turn: LiveTurn = {
      turnId,
      abort: new AbortController(),
      state: "queued",
      followedBy: false,
      settled: Promise.resolve(),
      stopRenewing: () => {},
    };
    const leases = this.#deps.leases;
    turn.stopRenewing = leases
      ? leases.keep(
          record.sessionId,
          () => abortTurn(turn, "lost"),
          async () => (await this.#deps.store.activeTurn(record.sessionId)) === leases.owner,
        )
      : () => {};
    live.turn = turn;
    turn.settled = this.#track(
      this.#run(record, live, turn, start).catch((error: unknown) => {
        this.#deps.logger.error(`turn ${turnId} of ${record.sessionId} crashed`, error);
        this.#release(record.sessionId, live, turn);
      }),
    );
  }

  async #run(record: SessionRecord, live: LiveSession, turn: LiveTurn, start: TurnStart): Promise<void> {
    const { log, conversation, slots, runner } = this.#deps;
    // Taken before the turn writes anything: its end is refused if one of its writes failed.
    const failuresBefore = log.failures(record.sessionId);
    const outcome = await executeTurn({ log, conversation, slots, runner, writer: this.#writer }, record, turn, start);
    await this.#finish(record, live, turn, outcome, failuresBefore);
  }

  /**
   * A turn whose end could not be recorded (its writes failed) lets go of the session instead of
   * holding it busy forever. The session stays `damaged` until its log is closed as restart
   * recovery would close it: by the next admission, or by a retry once the store takes writes
   * again, so no restart is needed (docs/design/faults.md).
   */
  #release(sessionId: string, live: LiveSession, turn: LiveTurn): void {
    // A newer turn settles the session itself. With none, the failed write may have been the
    // resting status after the turn let go (the events were written, the record not).
    if (live.turn !== undefined && live.turn !== turn) return;
    live.turn = undefined;
    live.coalesced = undefined;
    live.damaged = true;
    // Recovery releases the lease once the log is closed; until then no other process may run.
    turn.stopRenewing();
    this.#retryRepair(sessionId, live);
  }

  async #repair(sessionId: string, live: LiveSession): Promise<void> {
    await recoverSession(this.#deps, sessionId, STORAGE_UNAVAILABLE_MESSAGE);
    live.damaged = false;
  }

  #retryRepair(sessionId: string, live: LiveSession): void {
    if (this.#closing) return;
    setTimeout(() => {
      if (!live.damaged || this.#closing) return;
      // An admission under way repairs first; this retry only waits for it.
      if (live.admitting) return this.#retryRepair(sessionId, live);
      live.admitting = true;
      void this.#track(this.#repair(sessionId, live))
        .catch(() => this.#retryRepair(sessionId, live))
        .finally(() => {
          live.admitting = false;
          this.#forgetIfIdle(sessionId, live);
        });
    }, REPAIR_RETRY_MS);
  }

  async #finish(record: SessionRecord, live: LiveSession, turn: LiveTurn, outcome: TurnOutcome, failuresBefore: number): Promise<void> {
    const { sessionId } = record;
    // The last step may still be committing (docs/design/speed.md "The turn's end behind its last
    // step"): only the resting commit below is chained behind it; every other ending waits for it.
    const recording = outcome.status === "completed" ? outcome.recording : undefined;
    if (turn.abort.signal.reason === "lost") {
      // Another process's recovery holds the session now and has closed this turn: write nothing.
      this.#deps.logger.warn(`turn ${turn.turnId} of ${sessionId} lost its lease to another process's recovery`);
      turn.stopRenewing();
      live.turn = undefined;
      live.coalesced = undefined;
      await this.#deps.leases?.release(sessionId);
      this.#forgetIfIdle(sessionId, live);
      return;
    }
    if (outcome.status === "suspended") return this.#suspend(sessionId, live, turn);
    // A resumed turn can end before it reaches its parked call: nothing is left to resolve.
    // (Best effort: a store refusing writes is repaired, which closes them, docs/design/faults.md.)
    if (outcome.status !== "completed") await this.#deps.approvals?.closeAll(sessionId).catch(() => {});
    const ending = turnEnding(turn, outcome);
    const pending = live.coalesced;
    turn.stopRenewing();
    if (pending && !this.#closing) {
      // The turn stays current during this write, so follow-ups keep joining `pending`; from its
      // end to starting the drained turn nothing awaits, so no admission can slip in between.
      await recording;
      await this.#writer.count(sessionId, [ending]);
      live.turn = undefined;
      live.coalesced = undefined;
      this.#start(record, live, pending.turnId, { text: pending.texts.join("\n"), resume: false });
      return;
    }
    live.turn = undefined;
    live.coalesced = undefined;
    // The turn's end commits with what follows it (docs/design/storage.md), unless coalesced
    // messages closed at shutdown come in between.
    const ends: EventDraft[] = [ending];
    if (pending) {
      await recording;
      await this.#writer.emit(sessionId, ends.pop()!);
      await this.#writer.closeCoalesced(sessionId, pending, "shutdown");
    }
    if (turn.followedBy) {
      await recording;
      await this.#writer.count(sessionId, ends);
      await this.#writer.releaseIfIdle(sessionId);
      return;
    }
    const [last, status] = restingEvent(record, outcome);
    await this.#writer.rest(sessionId, [...ends, last], status, true, recording && { recording, failuresBefore });
    this.#forgetIfIdle(sessionId, live);
  }

  /**
   * A turn parked for approval while the host closes records no ending: its session stays
   * running with its active marker, and the next start (or another process) resumes it. Only the
   * lease goes, so that can happen at once. Coalesced messages behind it end as at shutdown.
   */
  async #suspend(sessionId: string, live: LiveSession, turn: LiveTurn): Promise<void> {
    turn.stopRenewing();
    const pending = live.coalesced;
    live.turn = undefined;
    live.coalesced = undefined;
    if (pending) await this.#writer.emit(sessionId, { type: "turn.failed", turnId: pending.turnId, data: { message: ABORT_MESSAGES.shutdown } });
    await this.#deps.leases?.release(sessionId);
    this.#forgetIfIdle(sessionId, live);
  }

}
