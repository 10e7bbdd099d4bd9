/**
 * The face of one agent's sessions: what routes, channels, schedules, evals and tools call, and
 * what every placement strategy offers over the local service (docs/design/processes.md
 * "Forwarding", docs/design/cloudflare.md "Where turns run"). Only base types: a feature depends
 * on this, never on the engine's classes.
 * @module
 */
import type { AuthContext } from "../auth.ts";
import type { PlacedCall } from "./placement.ts";
import type { CreateSessionInput, FollowUpInput, ForkSessionInput, SendOptions, SendResult, SessionPage, SessionPageRequest, SessionRecord, SessionSummary } from "./sessions.ts";

/** Who may see sessions beyond their own (dev loopback callers, anonymous deployments). */
export interface Viewer {
  auth: AuthContext;
  wide: boolean;
}

export interface Sessions {
  /** Starts a session with its first message. */
  create(input: CreateSessionInput): Promise<SessionRecord>;
  /**
   * Channel-level send: continues the session the continuation key points at, or starts one
   * (derived from `lookup`, `followUp` and `create`).
   */
  send(channel: string, message: string, options?: SendOptions): Promise<SendResult>;
  /** The session a channel's continuation key points at, if any. */
  lookup(channel: string, key: string): Promise<string | undefined>;
  /** A new session holding `sessionId`'s events and conversation up to `atIndex`; only its owner may (docs/guide/forking.md). */
  fork(sessionId: string, input: ForkSessionInput): Promise<SessionRecord>;
  /** Continues a chat session; resolves with the (possibly rotated) continuation token. */
  followUp(sessionId: string, input: FollowUpInput): Promise<string>;
  /** Stops the session's turn; only its owner may. */
  stop(sessionId: string, auth: AuthContext): Promise<boolean>;
  /** Stops the session's running turn without an owner check (host code: evals, channels). */
  interrupt(sessionId: string): Promise<boolean>;
  /** Removes a session its owner asks to remove, with its records and logs. */
  remove(sessionId: string, auth: AuthContext): Promise<void>;
  /** Renames a session its owner renames; resolves with the new title. */
  rename(sessionId: string, title: string, auth: AuthContext): Promise<string>;
  /** Appends a finished assistant message with no model turn (a channel's `emitAssistantMessage`). */
  emitMessage(sessionId: string, text: string): Promise<void>;
  /** Whether the session has a turn running or queued. */
  busy(sessionId: string): Promise<boolean>;
  /** The summary of a session, or null when it does not exist. */
  find(sessionId: string): Promise<SessionSummary | null>;
  /** The record, if the viewer may read it. */
  readable(sessionId: string, viewer: Viewer): Promise<SessionRecord>;
  /** The record of a session the principal owns. */
  owned(sessionId: string, auth: AuthContext): Promise<SessionRecord>;
  /** The sessions the viewer may see, most recently updated first. */
  list(viewer: Viewer): Promise<SessionSummary[]>;
  /** One page of what `list` answers, read from the listing's index (docs/design/listing.md). */
  page(viewer: Viewer, request: SessionPageRequest): Promise<SessionPage>;
  /** Whether the session's turns run in this host (always, unless sessions live in hosts of their own). */
  isHere(sessionId: string): boolean;
  /** Sends `call` to the host the session lives in; only for a session not here. */
  sendToHome(sessionId: string, call: PlacedCall): Promise<unknown>;
}

/** The session operations tools, reminders and schedules use. */
export type SessionEntry = Pick<Sessions, "send" | "followUp" | "find">;
