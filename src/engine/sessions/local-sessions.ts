/**
 * The session operations of the sessions whose turns run in this process: create, follow up, stop,
 * remove, rename, read and list, with the ownership rules of docs/guide/http-api.md "Auth". Where
 * a session lives is not asked here: a placement strategy wraps this service
 * (./forwarded-sessions.ts, ./placed-sessions.ts) and sends on what is not this process's to run;
 * used bare, it is the strategy of one process (docs/design/processes.md).
 * @module
 */
import type { AbAssignment } from "../../base/definitions/experiments.ts";
import type { AuthContext } from "../../base/auth.ts";
import { newHttpToken, newSessionId } from "../../base/ids.ts";
import { conversationLogName, deliveryCursorKey, eventLogName, pendingFilesKey } from "../../base/storage/keys.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { Sessions, Viewer } from "../../base/definitions/session-face.ts";
import type { CreateSessionInput, FollowUpInput, ForkSessionInput, SendOptions, SendResult, SessionPage, SessionPageRequest, SessionRecord, SessionSummary } from "../../base/definitions/sessions.ts";
import { channelSend } from "./channel-send.ts";
import type { EventLog } from "./event-log.ts";
import { conflict } from "../../base/errors.ts";
import { sessionNotFound, stale } from "./session-errors.ts";
import { SessionReads } from "./session-reads.ts";
import type { SessionStore } from "./session-store.ts";
import type { TurnController } from "./turn-controller.ts";
import type { ConversationLog } from "../turns/conversation.ts";
import { type ForkDeps, forkSession } from "./session-fork.ts";

/**
 * Draws the sticky A/B arms of a session being created (none for eval traffic); runs before the
 * session's first event.
 */
export type Enroll = (sessionId: string, purpose: string | undefined) => AbAssignment[];

/** Keeps per-send workspace files until the session's next turn writes them. */
export interface WorkspaceFileStaging {
  stage(sessionId: string, files: Record<string, string>): Promise<void>;
}

export interface LocalSessionDeps {
  store: SessionStore;
  log: EventLog;
  controller: TurnController;
  now: () => number;
  enroll?: Enroll;
  workspaceFiles?: WorkspaceFileStaging;
  /** Deletes the session's own workspace directory, where the runtime has one. */
  removeWorkspace?: (sessionId: string) => Promise<void>;
  /** The session's parked-call records and decisions log, removed with it. */
  approvals?: { removal(sessionId: string): Promise<{ keys: string[]; logs: string[] }> } & Partial<ForkDeps["approvals"]>;
  /** Continues here a turn parked by a process that stopped; true when it now runs here. */
  takeOverParked?: (sessionId: string) => Promise<boolean>;
  /** The model conversations a fork copies a prefix of. */
  conversation?: ConversationLog;
  /** Keys features keep for the session (A2A push configs, credentials included), removed with it. */
  featureKeys?: (sessionId: string) => Promise<string[]>;
}

export class LocalSessions implements Sessions {
  readonly #deps: LocalSessionDeps;
  readonly #reads: SessionReads;

  constructor(deps: LocalSessionDeps) {
    this.#deps = deps;
    this.#reads = new SessionReads(deps.store, deps.controller);
  }

  create(input: CreateSessionInput): Promise<SessionRecord> {
    return this.createAs(newSessionId(), input);
  }

  /** Creates the session under an id a strategy chose (the one naming its home). */
  async createAs(sessionId: string, input: CreateSessionInput): Promise<SessionRecord> {
    const { store, controller } = this.#deps;
    const at = new Date(this.#deps.now()).toISOString();
    const channel = input.channel ?? "http";
    const ab = this.#deps.enroll?.(sessionId, input.purpose) ?? [];
    const record: SessionRecord = {
      sessionId,
      channel,
      mode: input.mode ?? "chat",
      ...(input.title === undefined ? {} : { title: input.title }),
      owner: input.auth,
      continuationToken: input.continuationToken ?? newHttpToken(),
      status: "queued",
      turnCount: 0,
      createdAt: at,
      updatedAt: at,
      ...(input.state === undefined ? {} : { state: input.state }),
      ...(input.purpose === undefined ? {} : { purpose: input.purpose }),
      ...(ab.length === 0 ? {} : { ab }),
      ...(input.workspaceDir === undefined ? {} : { workspaceDir: input.workspaceDir }),
      ...(input.cloud === undefined ? {} : { cloud: input.cloud }),
      ...(input.clientTools === undefined || input.clientTools.length === 0 ? {} : { clientTools: input.clientTools }),
    };
    if (input.workspaceFiles) await this.#deps.workspaceFiles?.stage(sessionId, input.workspaceFiles);
    // One commit (the session's writer makes it): the record, its token, its active marker,
    // `session.started` and the message. A crash leaves the whole session or nothing of it
    // (docs/design/storage.md).
    await controller.admit(
      record,
      input.message,
      "preempt",
      async (turnId) => ({
        create: record,
        events: [
          { type: "session.started", data: { mode: record.mode, channel, ...(record.title ? { title: record.title } : {}) } },
          ...ab.map((assignment) => ({ type: "ab.assigned" as const, data: { experimentId: assignment.experimentId, armId: assignment.armId } })),
          received(turnId, input.message),
        ],
        records: [store.tokenWrite(channel, record.continuationToken, sessionId)],
      }),
      { fresh: true },
    );
    return record;
  }

  fork(sessionId: string, input: ForkSessionInput): Promise<SessionRecord> {
    return this.forkAs(newSessionId(), sessionId, input);
  }

  /** Forks `sourceSessionId` into a session under an id a strategy chose (docs/guide/forking.md). */
  async forkAs(sessionId: string, sourceSessionId: string, input: ForkSessionInput): Promise<SessionRecord> {
    const { store, log, controller, conversation, now } = this.#deps;
    if (!conversation) throw new Error("[agent-serve] [sessions] forking needs the conversation log");
    const source = await this.owned(sourceSessionId, input.auth);
    const approvals = this.#deps.approvals?.parkWrite ? { parkWrite: this.#deps.approvals.parkWrite.bind(this.#deps.approvals) } : undefined;
    return forkSession({ store, log, conversation, writer: controller.writer, now, ...(approvals ? { approvals } : {}) }, source, sessionId, input.atIndex, input.auth);
  }

  send(channel: string, message: string, options?: SendOptions): Promise<SendResult> {
    return channelSend(this, (sessionId) => this.record(sessionId), channel, message, options);
  }

  /** Continues a chat session here; resolves with the (possibly rotated) continuation token. */
  async followUp(sessionId: string, input: FollowUpInput): Promise<string> {
    const { store, controller } = this.#deps;
    const record = await this.owned(sessionId, input.auth);
    if (record.mode !== "chat") {
      throw conflict("session_not_followable", "task sessions run to completion and cannot be followed up");
    }
    // Checked before admission too, so a stale token never interrupts the running turn.
    if (record.continuationToken !== input.continuationToken) throw stale();
    // A turn parked by a process that has stopped is preempted (or coalesced behind) here, as if
    // it ran here, rather than left open under the new turn.
    if (record.status === "running") await this.#deps.takeOverParked?.(sessionId);
    // The turn runs with this record: it offers the message's front-end tools, as the stored one will.
    if (input.clientTools !== undefined) record.clientTools = input.clientTools;
    // The turn runs with this record: a send that attaches the cloud sends this turn there.
    if (input.cloud !== undefined) record.cloud = input.cloud;
    const token = input.continuationToken;
    let rotated = token;
    await controller.admit(record, input.message, input.admission ?? "preempt", async (turnId) => {
      rotated = input.rotate === false ? token : newHttpToken();
      if (input.workspaceFiles) await this.#deps.workspaceFiles?.stage(sessionId, input.workspaceFiles);
      // The rotated token, its binding, the old binding's removal and the message commit together:
      // a token a client was given always has its message (docs/design/storage.md).
      return {
        events: [received(turnId, input.message)],
        records: rotated === token ? [] : [store.tokenWrite(record.channel, rotated, sessionId), store.tokenWrite(record.channel, token, null)],
        change: (current) => {
          if (current.continuationToken !== token) throw stale();
          current.continuationToken = rotated;
          if (input.workspaceDir !== undefined) current.workspaceDir = input.workspaceDir;
          if (input.cloud !== undefined) current.cloud = input.cloud;
          if (input.state !== undefined) current.state = { ...current.state, ...input.state };
          if (input.clientTools !== undefined) current.clientTools = input.clientTools;
        },
      };
    });
    return rotated;
  }

  /** Stopping is an action, like a follow-up: only the owner may, however widely reads are open. */
  async stop(sessionId: string, auth: AuthContext): Promise<boolean> {
    return (await this.stopLive(sessionId, auth)) || this.stopParked(sessionId);
  }

  /** The owner's stop of a turn live in this process; false when none is. */
  async stopLive(sessionId: string, auth: AuthContext): Promise<boolean> {
    await this.owned(sessionId, auth);
    return this.#deps.controller.stop(sessionId);
  }

  /** A turn parked by a process that has stopped is still a running turn: take it over, end it. */
  async stopParked(sessionId: string): Promise<boolean> {
    return (await this.#deps.takeOverParked?.(sessionId)) === true && this.#deps.controller.stop(sessionId);
  }

  /**
   * Removes a session the principal owns: a running turn is stopped first, then its workspace,
   * records (one commit: from then on it answers 404) and logs go (docs/guide/http-api.md).
   */
  async remove(sessionId: string, auth: AuthContext): Promise<void> {
    await this.owned(sessionId, auth);
    await this.stop(sessionId, auth);
    await this.erase(sessionId);
  }

  /** The removal proper, once the session's turn is stopped (wherever it ran). */
  erase(sessionId: string): Promise<void> {
    const { store, log, controller } = this.#deps;
    return controller.runExclusive(sessionId, async () => {
      const record = await store.get(sessionId);
      if (!record) throw sessionNotFound();
      await this.#deps.removeWorkspace?.(sessionId);
      const approvals = (await this.#deps.approvals?.removal(sessionId)) ?? { keys: [], logs: [] };
      const keys = [pendingFilesKey(sessionId), deliveryCursorKey(record.channel, sessionId), ...approvals.keys, ...((await this.#deps.featureKeys?.(sessionId)) ?? [])];
      await store.remove(record, keys, [eventLogName(sessionId), conversationLogName(sessionId), ...approvals.logs]);
      log.forget(sessionId);
    }, { lease: true });
  }

  /** Appends a finished assistant message with no model turn (a channel's `emitAssistantMessage`). */
  async emitMessage(sessionId: string, text: string): Promise<void> {
    await this.#deps.controller.writer.message(sessionId, { type: "message.completed", data: { text, finishReason: "stop" } });
  }

  /** Stops the session's running turn without an owner check (host code: evals, channels). */
  interrupt(sessionId: string): Promise<boolean> {
    return this.#deps.controller.stop(sessionId);
  }

  /** Continues a turn a process that stopped left parked, if nothing runs it; true when it runs here. */
  resumeParked(sessionId: string): Promise<boolean> {
    return this.#deps.takeOverParked?.(sessionId) ?? Promise.resolve(false);
  }

  /** Whether the session has a turn running or queued here. */
  async busy(sessionId: string): Promise<boolean> {
    return this.#deps.controller.isBusy(sessionId);
  }

  async rename(sessionId: string, title: string, auth: AuthContext): Promise<string> {
    await this.owned(sessionId, auth);
    const updated = await this.#deps.store.update(sessionId, (record) => {
      record.title = title;
    });
    if (!updated) throw sessionNotFound();
    return title;
  }

  /** The stored record, with no owner check (host code). */
  record(sessionId: string): Promise<SessionRecord | undefined> {
    return this.#deps.store.get(sessionId);
  }

  lookup(channel: string, key: string): Promise<string | undefined> {
    return this.#reads.lookup(channel, key);
  }

  readable(sessionId: string, viewer: Viewer): Promise<SessionRecord> {
    return this.#reads.readable(sessionId, viewer);
  }

  owned(sessionId: string, auth: AuthContext): Promise<SessionRecord> {
    return this.#reads.owned(sessionId, auth);
  }

  find(sessionId: string): Promise<SessionSummary | null> {
    return this.#reads.find(sessionId);
  }

  list(viewer: Viewer): Promise<SessionSummary[]> {
    return this.#reads.list(viewer);
  }

  page(viewer: Viewer, request: SessionPageRequest): Promise<SessionPage> {
    return this.#reads.page(viewer, request);
  }

  /** Every session this service is asked about runs here. */
  isHere(): boolean {
    return true;
  }

  sendToHome(sessionId: string): Promise<unknown> {
    return Promise.reject(new Error(`[agent-serve] [sessions] session ${sessionId} lives in this host`));
  }
}

const received = (turnId: string, text: string): EventDraft => ({ type: "message.received", turnId, data: { text } });
