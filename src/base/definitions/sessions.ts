/**
 * What callers pass to and get back from the session operations (./session-face.ts): the
 * inputs of create, follow-up and a channel's send.
 * @module
 */
import type { AuthContext } from "../auth.ts";
import type { AbAssignment } from "./experiments.ts";

export interface CreateSessionInput {
  message: string;
  auth: AuthContext;
  channel?: string;
  mode?: "chat" | "task";
  title?: string;
  state?: Record<string, unknown>;
  purpose?: string;
  /** Channel continuation key; the HTTP channel mints an opaque rotating token when omitted. */
  continuationToken?: string;
  /** Files (workspace-relative path → text) written into the workspace before the turn. */
  workspaceFiles?: Record<string, string>;
  /** The session's workspace directory, over the agent's local options (host code only). */
  workspaceDir?: string;
  /**
   * A cloud attachment: this session's turns run on a cloud runner with this block over the
   * agent's `cloud` (docs/guide/cloud-runtime.md "Hybrid agents"). Security: host code only.
   */
  cloud?: Record<string, unknown>;
  /**
   * Tools the front end runs, offered with this message (docs/guide/ag-ui.md "Front-end tools"):
   * the model may call them, and a call waits for the front end's result. Replaces the session's
   * set when given.
   */
  clientTools?: ClientToolSpec[];
}

export interface FollowUpInput {
  message: string;
  auth: AuthContext;
  /** The caller's token; must match the current one (HTTP tokens rotate on every follow-up). */
  continuationToken: string;
  admission?: AdmissionPolicy;
  /** Rotate the token on acceptance (the built-in HTTP channel does). @default true */
  rotate?: boolean;
  /** Files (workspace-relative path → text) written into the workspace before the turn. */
  workspaceFiles?: Record<string, string>;
  /** Moves the session's workspace directory from this turn on (host code only). */
  workspaceDir?: string;
  /**
   * A cloud attachment: this session's turns run on a cloud runner with this block over the
   * agent's `cloud` (docs/guide/cloud-runtime.md "Hybrid agents"). Security: host code only.
   */
  cloud?: Record<string, unknown>;
  /** Top-level keys merged into the session's channel state with the message (a channel's send). */
  state?: Record<string, unknown>;
  /**
   * Tools the front end runs, offered with this message (docs/guide/ag-ui.md "Front-end tools"):
   * the model may call them, and a call waits for the front end's result. Replaces the session's
   * set when given.
   */
  clientTools?: ClientToolSpec[];
}

export interface SendOptions {
  /** Continue the conversation this key points at; without one (or an unknown one) a session starts. */
  continuationToken?: string;
  /** What happens when a turn is running. @default "preempt" */
  admission?: AdmissionPolicy;
  /** The principal the session belongs to. @default the channel's own service principal */
  auth?: AuthContext;
  title?: string;
  state?: Record<string, unknown>;
  /** `eval` marks evaluation traffic. */
  purpose?: string;
  /** `task` sessions run to completion and cannot be followed up (fire-and-forget dispatch). @default "chat" */
  mode?: "chat" | "task";
  /** Files (workspace-relative path → text) written into the session workspace before the turn. */
  workspaceFiles?: Record<string, string>;
  /**
   * The session's workspace directory (absolute, or relative to the project root); wins over
   * `local.workspaceDir` and `local.cwd` from this send on. Security: host code only, never taken
   * from HTTP input.
   */
  workspaceDir?: string;
  /**
   * A cloud attachment: this session's turns run on a cloud runner with this block over the
   * agent's `cloud` (docs/guide/cloud-runtime.md "Hybrid agents"). Security: host code only.
   */
  cloud?: Record<string, unknown>;
  /**
   * Tools the front end runs, offered with this message (docs/guide/ag-ui.md "Front-end tools"):
   * the model may call them, and a call waits for the front end's result. Replaces the session's
   * set when given.
   */
  clientTools?: ClientToolSpec[];
}

export interface SendResult {
  sessionId: string;
  continuationToken: string;
  /** Whether this send started a new session. */
  created: boolean;
}

export type AdmissionPolicy = "preempt" | "coalesce";

export interface SessionSummary {
  sessionId: string;
  channel: string;
  mode: "chat" | "task";
  title: string | null;
  status: SessionRecord["status"];
  queued: boolean;
  turnCount: number;
  createdAt: string;
  updatedAt: string;
  continuationToken: string;
}

/** One page of the session listing (docs/design/listing.md). */
export interface SessionPageRequest {
  /** At most this many sessions: a positive integer. */
  limit: number;
  /** Where the previous page ended (its `next`); from the newest session without it. */
  after?: string;
}

export interface SessionPage {
  /** Newest-updated first. */
  sessions: SessionSummary[];
  /** The `after` of the next page; absent on the last page. */
  next?: string;
}

export interface SessionRecord {
  sessionId: string;
  channel: string;
  mode: "chat" | "task";
  title?: string;
  owner: AuthContext;
  continuationToken: string;
  status: SessionStatus;
  turnCount: number;
  createdAt: string;
  updatedAt: string;
  /** Per-session channel state (JSON), as declared by the channel. */
  state?: Record<string, unknown>;
  /** `eval` traffic is marked so hooks and A/B enrollment can skip it. */
  purpose?: string;
  /** Sticky A/B arms drawn at creation, one per experiment; every turn of the session uses them. */
  ab?: AbAssignment[];
  /** A workspace directory a send chose for this session (host code); wins over the local options. */
  workspaceDir?: string;
  /**
   * A per-send cloud attachment (docs/guide/cloud-runtime.md "Hybrid agents"): the session's turns
   * run on a cloud runner, with this block over the agent's `cloud`. Security: may hold env values.
   */
  cloud?: Record<string, unknown>;
  /** The front end's tools its latest message offered (docs/guide/ag-ui.md "Front-end tools"). */
  clientTools?: ClientToolSpec[];
}

/** A tool the front end runs: its name, description and input JSON Schema, as the model sees them. */
export interface ClientToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type SessionStatus = "idle" | "running" | "queued" | "completed" | "failed";

/**
 * Session records as the floors above the engine see them (docs/design/architecture.md "The
 * engine's face"): looked up, listed, and updated in the fields a channel owns.
 */
export interface SessionRecordsView {
  get(sessionId: string): Promise<SessionRecord | undefined>;
  list(): Promise<SessionRecord[]>;
  /** The session a channel's continuation key points at. */
  findByToken(channel: string, token: string): Promise<string | undefined>;
  /** Applies `mutate` to the stored record; undefined when the session is gone. */
  update(sessionId: string, mutate: (record: SessionRecord) => void): Promise<SessionRecord | undefined>;
}

/** A session's live turn as seen from outside the engine: queued behind another, or running here. */
export interface TurnActivity {
  isQueued(sessionId: string): boolean;
  isBusy(sessionId: string): boolean;
}

/** Decides a parked approval, on the same path as the approvals route (docs/design/tools.md "Approvals"). */
export interface ApprovalDecisions {
  resolve(sessionId: string, callId: string, decision: "approve" | "deny"): Promise<void>;
}

/** `POST /v1/session/:sessionId/fork` (docs/guide/forking.md). */
export interface ForkSessionInput {
  /** The index of the source's last event the fork keeps. */
  atIndex: number;
  /** The source's owner (only the owner forks). */
  auth: AuthContext;
}
