/**
 * What every placement strategy shares (docs/design/processes.md "Forwarding",
 * docs/design/cloudflare.md "Where turns run"): each operation answered by the local service it
 * wraps, `send` and `remove` derived from the strategy's own operations. A strategy overrides
 * only what it routes elsewhere.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { PlacedCall } from "../../base/definitions/placement.ts";
import type { Sessions, Viewer } from "../../base/definitions/session-face.ts";
import type { CreateSessionInput, ForkSessionInput, FollowUpInput, SendOptions, SendResult, SessionPage, SessionPageRequest, SessionRecord, SessionSummary } from "../../base/definitions/sessions.ts";
import { channelSend } from "./channel-send.ts";
import type { LocalSessions } from "./local-sessions.ts";

export class WrappedSessions implements Sessions {
  protected readonly local: LocalSessions;

  constructor(local: LocalSessions) {
    this.local = local;
  }

  create(input: CreateSessionInput): Promise<SessionRecord> {
    return this.local.create(input);
  }

  /** Made here: the source is read through storage, which every process sharing it sees. */
  fork(sessionId: string, input: ForkSessionInput): Promise<SessionRecord> {
    return this.local.fork(sessionId, input);
  }

  /** A channel's send, whose follow-up or create goes where this strategy sends it. */
  send(channel: string, message: string, options?: SendOptions): Promise<SendResult> {
    return channelSend(this, (sessionId) => this.local.record(sessionId), channel, message, options);
  }

  followUp(sessionId: string, input: FollowUpInput): Promise<string> {
    return this.local.followUp(sessionId, input);
  }

  stop(sessionId: string, auth: AuthContext): Promise<boolean> {
    return this.local.stop(sessionId, auth);
  }

  /** The owner check, this strategy's stop (wherever the turn runs), then the removal here. */
  async remove(sessionId: string, auth: AuthContext): Promise<void> {
    await this.local.owned(sessionId, auth);
    await this.stop(sessionId, auth);
    await this.local.erase(sessionId);
  }

  interrupt(sessionId: string): Promise<boolean> {
    return this.local.interrupt(sessionId);
  }

  rename(sessionId: string, title: string, auth: AuthContext): Promise<string> {
    return this.local.rename(sessionId, title, auth);
  }

  emitMessage(sessionId: string, text: string): Promise<void> {
    return this.local.emitMessage(sessionId, text);
  }

  busy(sessionId: string): Promise<boolean> {
    return this.local.busy(sessionId);
  }

  lookup(channel: string, key: string): Promise<string | undefined> {
    return this.local.lookup(channel, key);
  }

  find(sessionId: string): Promise<SessionSummary | null> {
    return this.local.find(sessionId);
  }

  readable(sessionId: string, viewer: Viewer): Promise<SessionRecord> {
    return this.local.readable(sessionId, viewer);
  }

  owned(sessionId: string, auth: AuthContext): Promise<SessionRecord> {
    return this.local.owned(sessionId, auth);
  }

  list(viewer: Viewer): Promise<SessionSummary[]> {
    return this.local.list(viewer);
  }

  page(viewer: Viewer, request: SessionPageRequest): Promise<SessionPage> {
    return this.local.page(viewer, request);
  }

  isHere(_sessionId: string): boolean {
    return this.local.isHere();
  }

  sendToHome(sessionId: string, _call: PlacedCall): Promise<unknown> {
    return this.local.sendToHome(sessionId);
  }
}
