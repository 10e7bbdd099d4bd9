/**
 * What the session operations read: records with the ownership rules of docs/guide/http-api.md
 * "Auth", and summaries whose status is the live view of this process's turns where there is one.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { Viewer } from "../../base/definitions/session-face.ts";
import type { SessionPage, SessionPageRequest, SessionRecord, SessionSummary } from "../../base/definitions/sessions.ts";
import type { IndexedSession } from "./session-index.ts";
import { forbidden, sessionNotFound } from "./session-errors.ts";
import type { SessionStore } from "./session-store.ts";

/** The live view of this process's turns (./turn-controller.ts). */
export interface LiveView {
  isBusy(sessionId: string): boolean;
  isQueued(sessionId: string): boolean;
}

export class SessionReads {
  readonly #store: SessionStore;
  readonly #live: LiveView;

  constructor(store: SessionStore, live: LiveView) {
    this.#store = store;
    this.#live = live;
  }

  /** The session a channel's continuation key points at, if any (before a `send` with that key). */
  lookup(channel: string, key: string): Promise<string | undefined> {
    return this.#store.findByToken(channel, key);
  }

  /** The record, if the viewer may read it (stream, events, cost). */
  async readable(sessionId: string, viewer: Viewer): Promise<SessionRecord> {
    const record = await this.#store.get(sessionId);
    if (!record) throw sessionNotFound();
    if (!viewer.wide && record.owner.principalId !== viewer.auth.principalId) throw forbidden();
    return record;
  }

  /** The record of a session the principal owns (actions such as session-bound tool calls). */
  async owned(sessionId: string, auth: AuthContext): Promise<SessionRecord> {
    const record = await this.#store.get(sessionId);
    if (!record) throw sessionNotFound();
    if (record.owner.principalId !== auth.principalId) throw forbidden();
    return record;
  }

  /** The summary of a session, or null when it does not exist (host code, tool contexts). */
  async find(sessionId: string): Promise<SessionSummary | null> {
    const record = await this.#store.get(sessionId);
    return record ? this.#summary(record) : null;
  }

  async list(viewer: Viewer): Promise<SessionSummary[]> {
    const records = await this.#store.list();
    return records
      .filter((record) => viewer.wide || record.owner.principalId === viewer.auth.principalId)
      .map((record) => this.#summary(record))
      .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  /** One page of `list`, from the listing's index: one bounded read however many sessions there are. */
  async page(viewer: Viewer, request: SessionPageRequest): Promise<SessionPage> {
    const page = await this.#store.index.page(viewer.wide ? undefined : viewer.auth.principalId, request.limit, request.after);
    return { sessions: page.sessions.map((session) => this.#summary(session)), ...(page.next === undefined ? {} : { next: page.next }) };
  }

  #summary(record: SessionRecord | IndexedSession): SessionSummary {
    const queued = this.#live.isQueued(record.sessionId);
    const live = this.#live.isBusy(record.sessionId);
    // A stored "running" status without a live turn here is stale (another process, or a crash
    // not yet recovered); the live view wins when there is one.
    const status = queued ? "queued" : live && record.status === "idle" ? "running" : record.status;
    return summaryOf(record, status, queued);
  }
}

/** A session's summary with the given status. */
export function summaryOf(record: SessionRecord | IndexedSession, status: SessionRecord["status"], queued: boolean): SessionSummary {
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
