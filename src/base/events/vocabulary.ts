/**
 * The event vocabulary: the envelope of docs/guide/http-api.md "Events", every type's payload, and
 * the draft
the core appends. Users read it as `agent-serve/events`.
 * @module
 */
import type { FinishReason, JsonValue, Usage } from "../ports/model.ts";

/** A tool call as `actions.requested` records it: the validated input (docs/guide/http-api.md "Events"). */
export interface ActionRequest {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** `action.result`: what a tool call returned (or the error it gave the model). */
export type ActionResultData = {
  toolCallId: string;
  toolName: string;
  output: JsonValue;
  isError: boolean;
  /**
   * Recovery's mark on a call a crash cut short while it ran: whether it took effect is unknown,
   * and it is never run again on its own (docs/design/tools.md "Side effects and crashes").
   */
  outcome?: "outcome_unknown";
  /** With `outcome`: the tool declared itself idempotent, so calling it again is safe. */
  idempotent?: boolean;
};

/**
 * `budget.exceeded` (docs/guide/budgets.md): which scope's which limit was reached, what was used
 * and the limit (`max`); per-day scopes say when their window starts again.
 */
export type BudgetExceededData = {
  scope: "turn" | "session" | "principalPerDay" | "agentPerDay";
  limit: "tokens" | "costUsd" | "toolCalls" | "seconds";
  used: number;
  max: number;
  /** The next UTC midnight; absent for `turn` and `session`, which no time resets. */
  resetsAt?: string;
};

/** An artifact as `artifact.tagged` carries it (the record without its bookkeeping). */
export interface ArtifactEventView {
  id: string;
  kind: string;
  key: string;
  title: string;
  data: unknown;
  source: "host" | "model";
}

/**
 * The event format's version (docs/design/event-format.md): the envelope and payloads below. It
 * changes only additively (new types, new optional fields), so a reader of version 1 reads every
 * line any host of version 1 wrote or will write; a change that is not additive would be 2.
 */
export const EVENT_FORMAT_VERSION = 1;

/**
 * The `data` payload of every event type (docs/guide/http-api.md "Events"). Members marked optional
 * may be absent from records a host wrote before it tracked them.
 */
export interface EventDataMap {
  "session.started": { mode: string; channel: string; title?: string };
  /** The session is a fork: the events before this one are `sourceSessionId`'s up to `atIndex` (docs/guide/forking.md). */
  "session.forked": { sourceSessionId: string; atIndex: number };
  "ab.assigned": { experimentId: string; armId: string };
  "session.waiting": Record<string, never>;
  "session.completed": Record<string, never>;
  "session.failed": { message: string };
  "agent.bound": Record<string, unknown>;
  "message.received": { text: string };
  "turn.queued": { position: number };
  /**
   * `agentVersion`: the version of the agent definition the turn started on (a content hash,
   * docs/design/deploy-safe-sessions.md); absent from records written before it was tracked.
   */
  "turn.started": { agentVersion?: string };
  /** `usage` and `model` are absent from records written before usage tracking (unpriced). */
  "turn.completed": { usage?: Usage; model?: string };
  "turn.failed": { message: string };
  "step.started": { stepIndex: number };
  "step.completed": { stepIndex: number; durationMs: number; finishReason: FinishReason };
  "reasoning.appended": { delta: string };
  "reasoning.completed": { text: string };
  "message.appended": { delta: string };
  "message.completed": { text: string; finishReason: FinishReason };
  "actions.requested": { actions: ActionRequest[] };
  "action.result": ActionResultData;
  "action.approval_requested": { callId: string; toolName: string; input: unknown };
  "action.approval_resolved": { callId: string; decision: "approve" | "deny" };
  /** A call of a tool the front end runs; its `action.result` comes when the front end answers. */
  "action.client_requested": { callId: string; toolName: string; input: unknown };
  "subagent.called": { subagent: string; prompt: string };
  /** A run that failed carries `error`; one that answered carries `result`, `usage` and `model`. */
  "subagent.completed": { subagent: string; isError: boolean; result?: string; error?: string; usage?: Usage; model?: string };
  "artifact.tagged": { artifact: ArtifactEventView };
  /** A budget limit was reached: the turn ends after it, and sends answer 429 until the window resets (docs/guide/budgets.md). */
  "budget.exceeded": BudgetExceededData;
}

export type EventType = keyof EventDataMap;

/** One event as the log stores and streams it; narrows on `type` to its payload. */
export type SessionEvent<T extends EventType = EventType> = {
  [K in T]: { type: K; index: number; sessionId: string; turnId?: string; at: string; data: EventDataMap[K] };
}[T];

/**
 * An event as a reader of any host version sees it: the envelope, with a `type` it may not know
 * and a payload it has to check (the CLI, the playground, tests).
 */
export interface EventEnvelope {
  type: string;
  index: number;
  sessionId: string;
  turnId?: string;
  at: string;
  data: Record<string, unknown>;
}

/** An event before the log gives it an index. */
export type EventDraft<T extends EventType = EventType> = {
  [K in T]: { type: K; turnId?: string; data: EventDataMap[K] };
}[T];

/** Narrows an event to one type, and so its payload. */
export function isEvent<T extends EventType>(event: { type: string }, type: T): event is SessionEvent<T> {
  return event.type === type;
}

/** The events after which a session is idle (or over) again. */
export const SETTLING_EVENTS: ReadonlySet<string> = new Set<EventType>(["session.waiting", "session.completed", "session.failed"]);

/**
 * Serializes with `type` first so a reader can classify a line by prefix without parsing it
 * (the stream route ends task streams on their terminal event this way).
 */
export function serializeEvent(event: SessionEvent | EventEnvelope): string {
  return JSON.stringify({
    type: event.type,
    index: event.index,
    sessionId: event.sessionId,
    ...(event.turnId === undefined ? {} : { turnId: event.turnId }),
    at: event.at,
    data: event.data,
  });
}

export function isEventType(line: string, type: EventType): boolean {
  return line.startsWith(`{"type":"${type}"`);
}
