/**
 * The event envelope of SPEC "Event envelope" and the draft the core appends.
 * @module
 */

export type EventType =
  | "session.started"
  | "ab.assigned"
  | "session.waiting"
  | "session.completed"
  | "session.failed"
  | "agent.bound"
  | "message.received"
  | "turn.queued"
  | "turn.started"
  | "turn.completed"
  | "turn.failed"
  | "step.started"
  | "step.completed"
  | "reasoning.appended"
  | "reasoning.completed"
  | "message.appended"
  | "message.completed"
  | "actions.requested"
  | "action.result"
  | "action.approval_requested"
  | "action.approval_resolved"
  | "subagent.called"
  | "subagent.completed"
  | "artifact.tagged";

export interface SessionEvent<Data = Record<string, unknown>> {
  type: EventType;
  index: number;
  sessionId: string;
  turnId?: string;
  at: string;
  data: Data;
}

/** An event before the log gives it an index. */
export interface EventDraft {
  type: EventType;
  turnId?: string;
  data: Record<string, unknown>;
}

/**
 * Serializes with `type` first so a reader can classify a line by prefix without parsing it
 * (the stream route ends task streams on their terminal event this way).
 */
export function serializeEvent(event: SessionEvent): string {
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
