/**
 * The placement strategy of sessions that live in hosts of their own (docs/design/cloudflare.md
 * "Where turns run"): what would change a session not held here (create, follow-up, stop,
 * rename, removal, an emitted message) is sent to the host that holds it and answered with that
 * host's answer; reads go through storage, where a session held elsewhere has only its stored
 * status.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { PlacedCall } from "../../base/definitions/placement.ts";
import type { CreateSessionInput, FollowUpInput, ForkSessionInput, SessionPage, SessionPageRequest, SessionRecord, SessionSummary } from "../../base/definitions/sessions.ts";
import type { Viewer } from "../../base/definitions/session-face.ts";
import type { LocalSessions } from "./local-sessions.ts";
import { WrappedSessions } from "./wrapped-sessions.ts";

/** Where each session lives, and how a call reaches the host it lives in. */
export interface SessionHomes {
  isHere(sessionId: string): boolean;
  send(sessionId: string, call: PlacedCall): Promise<unknown>;
  /** Picks a new session's id, which names its home. */
  newSessionId(): string;
}

export class PlacedSessions extends WrappedSessions {
  readonly #homes: SessionHomes;

  constructor(local: LocalSessions, homes: SessionHomes) {
    super(local);
    this.#homes = homes;
  }

  override async create(input: CreateSessionInput): Promise<SessionRecord> {
    const sessionId = this.#homes.newSessionId();
    if (!this.isHere(sessionId)) return (await this.#homes.send(sessionId, { op: "create", input })) as SessionRecord;
    return this.local.createAs(sessionId, input);
  }

  /** Made in the new session's home, which reads the source through storage. */
  override async fork(sessionId: string, input: ForkSessionInput): Promise<SessionRecord> {
    const forkId = this.#homes.newSessionId();
    if (!this.isHere(forkId)) return (await this.#homes.send(forkId, { op: "fork", sourceSessionId: sessionId, input })) as SessionRecord;
    return this.local.forkAs(forkId, sessionId, input);
  }

  override async followUp(sessionId: string, input: FollowUpInput): Promise<string> {
    if (!this.isHere(sessionId)) return (await this.#homes.send(sessionId, { op: "followUp", input })) as string;
    return this.local.followUp(sessionId, input);
  }

  override async stop(sessionId: string, auth: AuthContext): Promise<boolean> {
    if (!this.isHere(sessionId)) return (await this.#homes.send(sessionId, { op: "stop", auth })) === true;
    return this.local.stop(sessionId, auth);
  }

  override async remove(sessionId: string, auth: AuthContext): Promise<void> {
    if (!this.isHere(sessionId)) {
      await this.#homes.send(sessionId, { op: "remove", auth });
      return;
    }
    await this.local.remove(sessionId, auth);
  }

  override async interrupt(sessionId: string): Promise<boolean> {
    if (!this.isHere(sessionId)) return (await this.#homes.send(sessionId, { op: "interrupt" })) === true;
    return this.local.interrupt(sessionId);
  }

  override async rename(sessionId: string, title: string, auth: AuthContext): Promise<string> {
    if (!this.isHere(sessionId)) return (await this.#homes.send(sessionId, { op: "rename", title, auth })) as string;
    return this.local.rename(sessionId, title, auth);
  }

  /** In the host the session lives in. */
  override async emitMessage(sessionId: string, text: string): Promise<void> {
    if (!this.isHere(sessionId)) {
      await this.#homes.send(sessionId, { op: "emitMessage", text });
      return;
    }
    await this.local.emitMessage(sessionId, text);
  }

  /** Whether the session has a turn running or queued: the live view here, the stored status elsewhere. */
  override async busy(sessionId: string): Promise<boolean> {
    if (this.isHere(sessionId)) return this.local.busy(sessionId);
    const status = (await this.local.record(sessionId))?.status;
    return status === "running" || status === "queued";
  }

  override async find(sessionId: string): Promise<SessionSummary | null> {
    const summary = await this.local.find(sessionId);
    return summary && this.#stored(summary);
  }

  override async list(viewer: Viewer): Promise<SessionSummary[]> {
    return (await this.local.list(viewer)).map((summary) => this.#stored(summary));
  }

  override async page(viewer: Viewer, request: SessionPageRequest): Promise<SessionPage> {
    const page = await this.local.page(viewer, request);
    return { ...page, sessions: page.sessions.map((summary) => this.#stored(summary)) };
  }

  override isHere(sessionId: string): boolean {
    return this.#homes.isHere(sessionId);
  }

  override sendToHome(sessionId: string, call: PlacedCall): Promise<unknown> {
    if (this.isHere(sessionId)) return this.local.sendToHome(sessionId);
    return this.#homes.send(sessionId, call);
  }

  /**
   * Elsewhere, the stored status is the only view there is (no turn of it is live here, so the
   * local summary's status is the stored one): the session is queued when that status says so.
   */
  #stored(summary: SessionSummary): SessionSummary {
    return this.isHere(summary.sessionId) ? summary : { ...summary, queued: summary.status === "queued" };
  }
}
