/**
 * The session operations behind the session routes and channel `send`: create, follow up, stop,
 * read and list, with the ownership rules of docs/guide/http-api.md "Auth".
 * @module
 */
import { HTTPError, conflict, notFound } from "../../base/errors.ts";
import type { AbAssignment } from "../../base/definitions/experiments.ts";
import type { AuthContext } from "../../base/auth.ts";
import { newHttpToken, newSessionId } from "../../base/ids.ts";
import { deliveryCursorKey } from "../../base/storage/keys.ts";
import { pendingFilesKey } from "../../base/storage/keys.ts";
import { conversationLogName } from "../../base/storage/keys.ts";
import { type EventLog } from "./event-log.ts";
import { eventLogName } from "../../base/storage/keys.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import type { PlacedCall } from "./placement.ts";
import type { CreateSessionInput, FollowUpInput, SendOptions, SendResult } from "../../base/definitions/sessions.ts";
import type { SessionStore } from "./session-store.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { TurnController } from "./turn-controller.ts";
import type { SessionSummary } from "../../base/definitions/sessions.ts";


/**
 * Draws the sticky A/B arms of a session being created (none for eval traffic); runs before the
 * session's first event.
 */
export type Enroll = (sessionId: string, purpose: string | undefined) => AbAssignment[];

/** Keeps per-send workspace files until the session's next turn writes them. */
export interface WorkspaceFileStaging {
  stage(sessionId: string, files: Record<string, string>): Promise<void>;
}

/** Who may see sessions beyond their own (dev loopback callers, anonymous deployments). */
export interface Viewer {
  auth: AuthContext;
  wide: boolean;
}

/**
 * How a request reaches a session whose turn runs in another process sharing the store
 * (docs/design/processes.md "Forwarding").
 */
export interface ProcessCoordination {
  /** Asks the process `owner` to do `op` for the session; resolves with its answer. */
  forward(owner: string, op: "followUp" | "stop", args: ForwardedArgs): Promise<unknown>;
  /**
   * Recovers the session when the process its marker names (`owner`) let its turn lease expire;
   * true when the lease was free (the session is this process's to take), false while held.
   */
  recoverIfOrphaned(sessionId: string, owner: string): Promise<boolean>;
}

/** How this service reaches sessions that live in another host (./placement.ts). */
export interface PlacedSessions {
  isHere(sessionId: string): boolean;
  send(sessionId: string, call: PlacedCall): Promise<unknown>;
}

export interface ForwardedArgs {
  sessionId: string;
  auth: AuthContext;
  input?: FollowUpInput;
}

export type { CreateSessionInput, FollowUpInput, SendOptions, SendResult } from "../../base/definitions/sessions.ts";

export class SessionService {
  readonly #store: SessionStore;
  readonly #log: EventLog;
  readonly #controller: TurnController;
  readonly #now: () => number;
  readonly #enroll: Enroll | undefined;
  readonly #workspaceFiles: WorkspaceFileStaging | undefined;
  readonly #removeWorkspace: ((sessionId: string) => Promise<void>) | undefined;
  readonly #approvals: { removal(sessionId: string): Promise<{ keys: string[]; logs: string[] }> } | undefined;
  readonly #takeOverParked: ((sessionId: string) => Promise<boolean>) | undefined;
  readonly #newSessionId: () => string;
  readonly #placed: PlacedSessions | undefined;
  #coordination: ProcessCoordination | undefined;

  constructor(deps: {
    /** Deletes the session's own workspace directory, where the runtime has one. */
    removeWorkspace?: (sessionId: string) => Promise<void>;
    store: SessionStore;
    log: EventLog;
    controller: TurnController;
    now: () => number;
    enroll?: Enroll;
    workspaceFiles?: WorkspaceFileStaging;
    /** The session's parked-call records and decisions log, removed with it. */
    approvals?: { removal(sessionId: string): Promise<{ keys: string[]; logs: string[] }> };
    /** Continues here a turn parked by a process that stopped; true when it now runs here. */
    takeOverParked?: (sessionId: string) => Promise<boolean>;
    /** Picks a new session's id (docs/design/cloudflare.md: a Durable Object names its session). */
    newSessionId?: () => string;
    /** Set where sessions live in hosts of their own: what changes one not here is sent there. */
    placed?: PlacedSessions;
  }) {
    this.#placed = deps.placed;
    this.#approvals = deps.approvals;
    this.#takeOverParked = deps.takeOverParked;
    this.#store = deps.store;
    this.#log = deps.log;
    this.#controller = deps.controller;
    this.#now = deps.now;
    this.#enroll = deps.enroll;
    this.#workspaceFiles = deps.workspaceFiles;
    this.#removeWorkspace = deps.removeWorkspace;
    this.#newSessionId = deps.newSessionId ?? newSessionId;
  }

  /** Lets requests for sessions run by other processes reach them (set once the inbox exists). */
  coordinate(coordination: ProcessCoordination): void {
    this.#coordination = coordination;
  }

  /** What another process forwarded here (./process-inbox.ts): answered as if asked here. */
  handleForwarded(op: string, args: ForwardedArgs): Promise<unknown> {
    if (op === "followUp" && args.input) return this.followUp(args.sessionId, args.input, { forwarded: true });
    if (op === "stop") return this.stop(args.sessionId, args.auth, { forwarded: true });
    return Promise.reject(new HTTPError({ status: 400, code: "invalid_request", message: `unknown forwarded operation ${op}` }));
  }

  /**
   * What another host sent here for a session that lives here (./placement.ts), answered as if
   * asked here.
   */
  handlePlaced(sessionId: string, call: PlacedCall): Promise<unknown> {
    if (!this.#here(sessionId)) return Promise.reject(new Error(`[agent-serve] [sessions] session ${sessionId} does not live in this host`));
    switch (call.op) {
      case "create":
        return this.#createHere(sessionId, call.input);
      case "followUp":
        return this.followUp(sessionId, call.input);
      case "stop":
        return this.stop(sessionId, call.auth);
      case "interrupt":
        return this.interrupt(sessionId);
      case "resume":
        return this.#takeOverParked?.(sessionId) ?? Promise.resolve(false);
      case "remove":
        return this.remove(sessionId, call.auth);
      case "rename":
        return this.rename(sessionId, call.title, call.auth);
      case "emitMessage":
        return this.emitMessage(sessionId, call.text);
      case "callTool":
        return Promise.reject(new Error("[agent-serve] [sessions] a placed tool call is answered by the host"));
    }
  }

  async create(input: CreateSessionInput): Promise<SessionRecord> {
    const sessionId = this.#newSessionId();
    if (!this.#here(sessionId)) return (await this.#placed!.send(sessionId, { op: "create", input })) as SessionRecord;
    return this.#createHere(sessionId, input);
  }

  async #createHere(sessionId: string, input: CreateSessionInput): Promise<SessionRecord> {
    const at = new Date(this.#now()).toISOString();
    const channel = input.channel ?? "http";
    const ab = this.#enroll?.(sessionId, input.purpose) ?? [];
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
    };
    if (input.workspaceFiles) await this.#workspaceFiles?.stage(sessionId, input.workspaceFiles);
    // One commit: the record, its token, its active marker, `session.started` and the message.
    // A crash leaves the whole session or nothing of it (docs/design/storage.md).
    await this.#controller.admit(record, input.message, "preempt", (turnId, writes) =>
      this.#log.append(
        sessionId,
        [
          { type: "session.started", data: { mode: record.mode, channel, ...(record.title ? { title: record.title } : {}) } },
          ...ab.map((assignment) => ({ type: "ab.assigned" as const, data: { experimentId: assignment.experimentId, armId: assignment.armId } })),
          received(turnId, input.message),
        ],
        { records: [this.#store.recordWrite(record), this.#store.tokenWrite(channel, record.continuationToken, sessionId), ...writes] },
      ),
      { fresh: true },
    );
    return record;
  }

  /**
   * Channel-level send: continues the session the continuation key points at, or starts one.
   * The built-in HTTP channel rotates its opaque token on every accepted follow-up; other channels
   * keep their own keys (`pr:owner/repo#1`) stable.
   */
  async send(channel: string, message: string, options: SendOptions = {}): Promise<SendResult> {
    const auth = options.auth ?? channelPrincipal(channel);
    const key = options.continuationToken;
    const existing = key === undefined ? undefined : await this.#store.findByToken(channel, key);
    if (existing && key !== undefined) {
      const record = await this.#store.get(existing);
      if (record) {
        const continuationToken = await this.followUp(existing, {
          message,
          auth: record.owner.principalId === auth.principalId ? auth : record.owner,
          continuationToken: key,
          ...(options.state === undefined ? {} : { state: options.state }),
          ...(options.admission ? { admission: options.admission } : {}),
          rotate: channel === "http",
          ...(options.workspaceFiles === undefined ? {} : { workspaceFiles: options.workspaceFiles }),
          ...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir }),
        });
        return { sessionId: existing, continuationToken, created: false };
      }
    }
    const record = await this.create({
      message,
      auth,
      channel,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.state === undefined ? {} : { state: options.state }),
      ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
      ...(key === undefined || channel === "http" ? {} : { continuationToken: key }),
      ...(options.workspaceFiles === undefined ? {} : { workspaceFiles: options.workspaceFiles }),
      ...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir }),
    });
    return { sessionId: record.sessionId, continuationToken: record.continuationToken, created: true };
  }

  /** The session a channel's continuation key points at, if any (before a `send` with that key). */
  lookup(channel: string, key: string): Promise<string | undefined> {
    return this.#store.findByToken(channel, key);
  }

  /**
   * Continues a chat session; resolves with the (possibly rotated) continuation token. When the
   * session's turn runs in another process, the follow-up is forwarded to it and admitted there
   * under the same policy (`forwarded`: this call is that forwarded one, answered here only).
   */
  async followUp(sessionId: string, input: FollowUpInput, options: { forwarded?: boolean } = {}): Promise<string> {
    if (!this.#here(sessionId)) return (await this.#placed!.send(sessionId, { op: "followUp", input })) as string;
    try {
      return await this.#followUpHere(sessionId, input);
    } catch (error) {
      const owner = options.forwarded ? undefined : await this.#elsewhere(sessionId, error);
      if (owner === undefined) throw error;
      if (await this.#coordination!.recoverIfOrphaned(sessionId, owner)) return this.#followUpHere(sessionId, input);
      return (await this.#coordination!.forward(owner, "followUp", { sessionId, auth: input.auth, input })) as string;
    }
  }

  /** The process running the session's turn, when `error` is the refusal its lease caused. */
  async #elsewhere(sessionId: string, error: unknown): Promise<string | undefined> {
    if (!this.#coordination || !(error instanceof HTTPError) || error.code !== "session_busy") return undefined;
    return this.#controller.runningElsewhere(sessionId);
  }

  async #followUpHere(sessionId: string, input: FollowUpInput): Promise<string> {
    const record = await this.#owned(sessionId, input.auth);
    if (record.mode !== "chat") {
      throw conflict("session_not_followable", "task sessions run to completion and cannot be followed up");
    }
    // Checked before admission too, so a stale token never interrupts the running turn.
    if (record.continuationToken !== input.continuationToken) throw stale();
    // A turn parked by a process that has stopped is preempted (or coalesced behind) here, as if
    // it ran here, rather than left open under the new turn.
    if (record.status === "running") await this.#takeOverParked?.(sessionId);
    let token = input.continuationToken;
    await this.#controller.admit(record, input.message, input.admission ?? "preempt", async (turnId, writes) => {
      const rotated = input.rotate === false ? token : newHttpToken();
      if (input.workspaceFiles) await this.#workspaceFiles?.stage(sessionId, input.workspaceFiles);
      // The rotated token, its binding, the old binding's removal and the message commit together:
      // a token a client was given always has its message (docs/design/storage.md).
      const updated = await this.#store.updateWith(
        sessionId,
        (current) => {
          if (current.continuationToken !== input.continuationToken) throw stale();
          current.continuationToken = rotated;
          if (input.workspaceDir !== undefined) current.workspaceDir = input.workspaceDir;
          if (input.state !== undefined) current.state = { ...current.state, ...input.state };
        },
        (records) => {
          const tokens = rotated === token ? [] : [this.#store.tokenWrite(record.channel, rotated, sessionId), this.#store.tokenWrite(record.channel, token, null)];
          return this.#log.append(sessionId, [received(turnId, input.message)], { records: [...records, ...tokens, ...writes] });
        },
      );
      if (!updated) throw sessionNotFound();
      token = rotated;
    });
    return token;
  }

  /**
   * Removes a session the principal owns: a running turn is stopped first, then its workspace,
   * records (one commit: from then on it answers 404) and logs go (docs/guide/http-api.md).
   */
  async remove(sessionId: string, auth: AuthContext): Promise<void> {
    if (!this.#here(sessionId)) {
      await this.#placed!.send(sessionId, { op: "remove", auth });
      return;
    }
    await this.#owned(sessionId, auth);
    await this.stop(sessionId, auth);
    await this.#controller.runExclusive(sessionId, async () => {
      const record = await this.#store.get(sessionId);
      if (!record) throw sessionNotFound();
      await this.#removeWorkspace?.(sessionId);
      const approvals = (await this.#approvals?.removal(sessionId)) ?? { keys: [], logs: [] };
      const keys = [pendingFilesKey(sessionId), deliveryCursorKey(record.channel, sessionId), ...approvals.keys];
      await this.#store.remove(record, keys, [eventLogName(sessionId), conversationLogName(sessionId), ...approvals.logs]);
      this.#log.forget(sessionId);
    }, { lease: true });
  }

  /**
   * Stopping is an action, like a follow-up: only the owner may, however widely reads are open.
   * A turn run by another process is stopped there (forwarded, like a follow-up).
   */
  async stop(sessionId: string, auth: AuthContext, options: { forwarded?: boolean } = {}): Promise<boolean> {
    if (!this.#here(sessionId)) return (await this.#placed!.send(sessionId, { op: "stop", auth })) === true;
    await this.#owned(sessionId, auth);
    if (await this.#controller.stop(sessionId)) return true;
    if (!options.forwarded && this.#coordination) {
      const owner = await this.#controller.runningElsewhere(sessionId);
      if (owner !== undefined) {
        if (!(await this.#coordination.recoverIfOrphaned(sessionId, owner))) {
          return (await this.#coordination.forward(owner, "stop", { sessionId, auth })) === true;
        }
        // Recovered here: a parked turn the recovery resumed here is stopped like any other.
        if (await this.#controller.stop(sessionId)) return true;
      }
    }
    // A turn parked by a process that has stopped is still a running turn: take it over, end it.
    return (await this.#takeOverParked?.(sessionId)) === true && this.#controller.stop(sessionId);
  }

  /**
   * Appends a finished assistant message with no model turn (a channel's `emitAssistantMessage`),
   * in the host the session lives in.
   */
  async emitMessage(sessionId: string, text: string): Promise<void> {
    if (!this.#here(sessionId)) {
      await this.#placed!.send(sessionId, { op: "emitMessage", text });
      return;
    }
    // Another process may have written the log since this one last did (no lease is taken here).
    this.#log.forget(sessionId);
    await this.#log.append(sessionId, [{ type: "message.completed", data: { text, finishReason: "stop" } }]);
  }

  /** Stops the session's running turn, wherever it runs, without an owner check (host code: evals, channels). */
  async interrupt(sessionId: string): Promise<boolean> {
    if (!this.#here(sessionId)) return (await this.#placed!.send(sessionId, { op: "interrupt" })) === true;
    return this.#controller.stop(sessionId);
  }

  /** Whether the session has a turn running or queued: the live view here, the stored status elsewhere. */
  async busy(sessionId: string): Promise<boolean> {
    if (this.#here(sessionId)) return this.#controller.isBusy(sessionId);
    const status = (await this.#store.get(sessionId))?.status;
    return status === "running" || status === "queued";
  }

  /** Sends `call` to the host the session lives in (./placement.ts); only for a session not here. */
  sendToHome(sessionId: string, call: PlacedCall): Promise<unknown> {
    if (this.#here(sessionId)) return Promise.reject(new Error(`[agent-serve] [sessions] session ${sessionId} lives in this host`));
    return this.#placed!.send(sessionId, call);
  }

  /** Whether the session's turns run in this host (always, unless sessions live in hosts of their own). */
  isHere(sessionId: string): boolean {
    return this.#here(sessionId);
  }

  /** The record, if the viewer may read it (stream, events, cost). */
  async readable(sessionId: string, viewer: Viewer): Promise<SessionRecord> {
    const record = await this.#store.get(sessionId);
    if (!record) throw sessionNotFound();
    if (!viewer.wide && record.owner.principalId !== viewer.auth.principalId) throw forbidden();
    return record;
  }

  /** The summary of a session, or null when it does not exist (host code, tool contexts). */
  async find(sessionId: string): Promise<SessionSummary | null> {
    const record = await this.#store.get(sessionId);
    return record ? this.#summary(record) : null;
  }

  /** Renames a session the principal owns; resolves with its new title. */
  async rename(sessionId: string, title: string, auth: AuthContext): Promise<string> {
    if (!this.#here(sessionId)) return (await this.#placed!.send(sessionId, { op: "rename", title, auth })) as string;
    await this.#owned(sessionId, auth);
    const updated = await this.#store.update(sessionId, (record) => {
      record.title = title;
    });
    if (!updated) throw sessionNotFound();
    return title;
  }

  /** The record of a session the principal owns (actions such as session-bound tool calls). */
  owned(sessionId: string, auth: AuthContext): Promise<SessionRecord> {
    return this.#owned(sessionId, auth);
  }

  async list(viewer: Viewer): Promise<SessionSummary[]> {
    const records = await this.#store.list();
    return records
      .filter((record) => viewer.wide || record.owner.principalId === viewer.auth.principalId)
      .map((record) => this.#summary(record))
      .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  // --- internals ---

  #here(sessionId: string): boolean {
    return this.#placed === undefined || this.#placed.isHere(sessionId);
  }

  async #owned(sessionId: string, auth: AuthContext): Promise<SessionRecord> {
    const record = await this.#store.get(sessionId);
    if (!record) throw sessionNotFound();
    if (record.owner.principalId !== auth.principalId) throw forbidden();
    return record;
  }

  #summary(record: SessionRecord): SessionSummary {
    // Elsewhere, the stored status is the only view there is.
    if (!this.#here(record.sessionId)) return summaryOf(record, record.status, record.status === "queued");
    const queued = this.#controller.isQueued(record.sessionId);
    const live = this.#controller.isBusy(record.sessionId);
    // A stored "running" status without a live turn here is stale (another process, or a crash
    // not yet recovered); the live view wins when there is one.
    const status = queued ? "queued" : live && record.status === "idle" ? "running" : record.status;
    return summaryOf(record, status, queued);
  }
}

function summaryOf(record: SessionRecord, status: SessionRecord["status"], queued: boolean): SessionSummary {
  return {
    sessionId: record.sessionId,
    channel: record.channel,
    mode: record.mode,
    title: record.title ?? null,
    status,
    queued,
    turnCount: record.turnCount,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    continuationToken: record.continuationToken,
  };
}

const received = (turnId: string, text: string): EventDraft => ({ type: "message.received", turnId, data: { text } });

const channelPrincipal = (channel: string): AuthContext => ({
  authenticator: "channel",
  principalId: `channel:${channel}`,
  principalType: "service",
});

export const sessionNotFound = (): HTTPError => notFound("session_not_found", "no such session");
const forbidden = (): HTTPError => new HTTPError({ status: 403, code: "forbidden", message: "the session belongs to another principal" });
const stale = (): HTTPError =>
  conflict("stale_continuation_token", "the continuation token is not current; use the token from the latest response");
