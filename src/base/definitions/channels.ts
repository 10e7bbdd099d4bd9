/**
 * Custom channels (`bot/channels/<id>.ts`): authored routes under `/v1/channels/<id>`, and reply
 * delivery driven by the events of the sessions a channel owns (docs/guide/channels.md).
 * @module
 */
import type { StandardSchema } from "../validate.ts";
import type { ArtifactsFacade } from "./artifacts.ts";
import type { AuthContext, AuthPolicy } from "../auth.ts";
import type { JsonValue } from "../ports/model.ts";
import type { EventType, SessionEvent } from "../events/vocabulary.ts";
import type { AdmissionPolicy } from "./sessions.ts";
import type { ToolHostServices } from "./tools.ts";
import type { HostLogger } from "../logging.ts";
import type { RouteMethod } from "../route.ts";

/** A channel route's method: those of every route (../route.ts). */
export type ChannelMethod = RouteMethod;

/** Per-session channel state: plain JSON, persisted on the session record. */
export type ChannelState = Record<string, unknown>;

/** Options of `send` (docs/guide/channels.md "send and session handles"). */
export interface ChannelSendOptions<State extends ChannelState = ChannelState> {
  /**
   * The conversation key, scoped to this channel: the same key reaches the same session; an
   * unknown one starts a new session bound to it. Without one a session starts with a fresh key.
   */
  continuationToken?: string;
  /** What happens when a turn is running: interrupt it (`preempt`) or queue behind it. @default "preempt" */
  admission?: AdmissionPolicy;
  /** Files (workspace-relative path → text) written into the session workspace before the turn. */
  workspaceFiles?: Record<string, string>;
  /** The session's workspace directory (absolute, or relative to the project root). */
  workspaceDir?: string;
  /** Cloud attachment of the session (read by cloud runtimes; ignored by local turns). */
  cloud?: Record<string, unknown>;
  /** The principal the session belongs to. @default the request principal (route handlers) or the channel's service principal */
  auth?: AuthContext;
  /** Backend agent id to bind (cloud runtimes). */
  sdkAgentId?: string;
  /** Merged over the definition's `state` when the session starts, and over the stored state on a follow-up. */
  state?: Partial<State>;
  title?: string;
  /** `eval` marks evaluation traffic (skips sticky A/B enrollment). */
  purpose?: string;
  /** The chat-platform timestamp of the message a coalesced follow-up came from. */
  coalesceSourceTs?: string;
  /** `task` sessions run to completion and cannot be followed up. @default "chat" */
  mode?: "chat" | "task";
}

/** How a turn ended, as `waitForCompletion()` reports it. */
export interface ChannelCompletion {
  status: "finished" | "failed" | "interrupted";
  /** The final reply text (the last `message.completed` that is not a tool-calling step). */
  result?: string;
  errorMessage?: string;
}

/** What `send` resolves to once the message is accepted. */
export interface ChannelSessionHandle {
  /** The session id (same as `sessionId`). */
  id: string;
  sessionId: string;
  continuationToken: string;
  /** Whether this send started the session. */
  created: boolean;
  playgroundUrl: string;
  traceUrl: string;
  /** Resolves when the accepted turn ends. */
  waitForCompletion(options?: { timeoutMs?: number }): Promise<ChannelCompletion>;
}

/** A session of this channel, as `getSession` returns it. */
export interface ChannelSession<State extends ChannelState = ChannelState> {
  id: string;
  sessionId: string;
  channel: string;
  mode: "chat" | "task";
  status: "idle" | "running" | "queued" | "completed" | "failed";
  title: string | null;
  continuationToken: string;
  state: State;
}

/** Links of a session for humans (playground deep link) and tools (its events route). */
export interface ChannelSessionUrls {
  playgroundUrl: string;
  traceUrl: string;
  streamUrl: string;
}

/** The outcome of a direct tool call made by channel code. */
export interface ChannelToolResult {
  isError: boolean;
  result: JsonValue;
}

/** Input of `receive`: hands a message into a channel so its delivery events fire. */
export interface ChannelReceiveInput<State extends ChannelState = ChannelState> extends ChannelSendOptions<State> {
  message: string;
}

/** What channel code may do with sessions and tools, wherever it runs (routes, events, onStart). */
export interface ChannelServices<State extends ChannelState = ChannelState> {
  /** Starts or continues a session of this channel. */
  send(message: string, options?: ChannelSendOptions<State>): Promise<ChannelSessionHandle>;
  /** A session of this channel, or null (unknown, or another channel's). */
  getSession(sessionId: string): Promise<ChannelSession<State> | null>;
  /** Hands a message into another channel of this agent (a definition, or its id). */
  receive(channel: ChannelDefinition | string, input: ChannelReceiveInput): Promise<ChannelSessionHandle>;
  /** Calls a server tool directly, with no model turn; with `sessionId` it runs inside that session. */
  callTool(name: string, input?: unknown, options?: { sessionId?: string }): Promise<ChannelToolResult>;
  /** Host services (the same object tools see as `ctx.host`: reminders, kv, ...). */
  host: ToolHostServices;
  /** Unbound artifacts facade: `tag` needs a `sessionId`. */
  artifacts: ArtifactsFacade;
  /** Keeps background work alive after the caller returns; the host awaits it when it drains. */
  waitUntil(promise: Promise<unknown>): void;
  logger: HostLogger;
  /** The channel itself. */
  channel: { id: string };
}

/** The second argument of a route handler. */
export interface ChannelRouteContext<Body = unknown, Query = unknown, State extends ChannelState = ChannelState>
  extends ChannelServices<State> {
  /** The validated (and transformed) body; `{}` for an empty POST body; undefined without a body schema and body. */
  body: Body;
  /** The validated query. */
  query: Query;
  /** URL-decoded `:params` of the route path. */
  params: Record<string, string>;
  /** The principal the channel's auth chain admitted. */
  auth: AuthContext;
  /** The TCP peer address, when known. */
  requestIp: string | undefined;
  /** The exact request body text, for signature checks (`""` when there is none). */
  rawBody: string;
  /** Whether the host runs under `--dev`. */
  dev: boolean;
  /** Playground and events links of a session, built from the request's origin. */
  sessionUrls(request: Request, sessionId: string): ChannelSessionUrls;
}

/**
 * A route handler. A returned `Response` is sent as is; any other value is sent as 200 JSON;
 * `undefined` is 202 with an empty body.
 */
export type ChannelRouteHandler<Body = unknown, Query = unknown, State extends ChannelState = ChannelState> = (
  request: Request,
  context: ChannelRouteContext<Body, Query, State>,
) => unknown;

/** A route as data: what the router mounts and `/v1/info` describes. */
export interface ChannelRoute<Body = unknown, Query = unknown, State extends ChannelState = ChannelState> {
  method: ChannelMethod;
  /** Below `/v1/channels/<id>`; may hold `:params`. */
  path: string;
  description?: string;
  bodySchema?: StandardSchema<Body>;
  querySchema?: StandardSchema<Query>;
  // A method, so checked bivariantly: a route typed by its schemas stays assignable to `ChannelRoute`.
  handler(request: Request, context: ChannelRouteContext<Body, Query, State>): unknown;
}

/** The session an event belongs to, as the channel sees it. Mutate `state` to persist it. */
export interface ChannelBinding<State extends ChannelState = ChannelState> {
  id: string;
  sessionId: string;
  continuationToken: string;
  state: State;
}

/** The third argument of an event handler. */
export interface ChannelEventContext<State extends ChannelState = ChannelState> extends ChannelServices<State> {
  /** How many times this event was attempted before (0 on the first delivery). */
  attempt: number;
}

/**
 * Handles one event of a session the channel owns; `event.index` is the idempotency key (delivery
 * is at least once).
 */
export type ChannelEventHandler<State extends ChannelState = ChannelState, T extends EventType = EventType> = {
  // Checked like a method (bivariantly), so a channel typed by its state fits `ChannelDefinition`.
  handle(event: Readonly<SessionEvent<T>>, channel: ChannelBinding<State>, context: ChannelEventContext<State>): unknown;
}["handle"];

/** `onStart` arguments: the channel services plus the conversation controls (docs/guide/channels.md "onStart and onStop"). */
export interface ChannelStartContext<State extends ChannelState = ChannelState> extends ChannelServices<State> {
  /** Appends a finished assistant message to a session's stream (no model turn). */
  emitAssistantMessage(sessionId: string, text: string): Promise<void>;
  /** Whether the continuation key points at a session of this channel. */
  hasContinuationSession(continuationToken: string): Promise<boolean>;
  /** Whether that session has a turn running or pending. */
  isContinuationBusy(continuationToken: string): Promise<boolean>;
  /** The `at` timestamp (ISO 8601) of that session's last assistant message, or null. */
  getContinuationLastBotMessageTs(continuationToken: string): Promise<string | null>;
  /** Interrupts that session's running turn; false when nothing was running. */
  interruptContinuation(continuationToken: string): Promise<boolean>;
  /** Resolves a parked tool approval as the given principal (who must own the session). */
  resolveApproval(
    sessionId: string,
    callId: string,
    decision: "approve" | "deny",
    auth: AuthContext,
    options?: { reason?: string },
  ): Promise<void>;
}

/** The input of the HTTP channel's `onMessage` transform. */
export interface HttpChannelMessage {
  message: string;
  /** The whole parsed request body. */
  body: Record<string, unknown>;
  auth: AuthContext;
  request: Request;
  /** Whether this is a follow-up (`POST /v1/session/:sessionId`) rather than a new session. */
  followUp: boolean;
}

/** What `onMessage` returns: the message to use (a string, or with options), or null to refuse (400). */
export type HttpChannelMessageResult =
  | string
  | { message: string; options?: Pick<ChannelSendOptions, "title" | "state" | "purpose" | "workspaceFiles"> }
  | null;

export interface ChannelDefinition<State extends ChannelState = ChannelState> {
  /** Starting per-session state, merged with `send`'s `state`. */
  state?: State;
  /** The channel's auth chain; unset uses the host's default chain (changed by `--bearer-token` / `--allow-anonymous`). */
  auth?: AuthPolicy[];
  /** Built with `GET`, `POST`, `PUT`, `PATCH` and `DELETE`. */
  routes?: Array<ChannelRoute<unknown, unknown, NoInfer<State>>>;
  /** Event type (or `*`) → handler, for the sessions this channel owns. */
  events?: { [K in EventType]?: ChannelEventHandler<State, K> } & { "*"?: ChannelEventHandler<State> };
  /** Runs once the channel is mounted. */
  onStart?(context: ChannelStartContext<State>): unknown;
  /** Runs when the host drains. */
  onStop?(): unknown;
  /** Only `bot/channels/http.ts`: transforms (or refuses, with null) each message of the built-in HTTP channel. */
  onMessage?(input: HttpChannelMessage, context: ChannelServices<State>): HttpChannelMessageResult | Promise<HttpChannelMessageResult>;
}

/** The host service channel code reaches as `ctx.host.deliveries`. */
export interface DeliveryClaims {
  /**
   * Claims delivery `id` of `scope` (a channel id). Resolves null when the delivery was already
   * accepted, or is being handled right now.
   */
  claim(scope: string, id: string, options?: { keepMs?: number }): Promise<DeliveryClaim | null>;
}

export interface DeliveryClaim {
  /** The delivery was accepted: remember it for the dedupe window. */
  accept(): Promise<void>;
  /** The delivery failed: forget the claim so a retry is handled. */
  release(): Promise<void>;
}
