/**
 * A session's event log as the floors above the engine see it: they read and follow it; only the
 * engine appends (docs/design/architecture.md "The engine's face").
 * @module
 */
import type { FollowableLog } from "./follow.ts";
import type { EventDraft, SessionEvent } from "./vocabulary.ts";

export interface EventLogView extends FollowableLog {
  /** The session's events from `from`, parsed. */
  readEvents(sessionId: string, from?: number): Promise<SessionEvent[]>;
  /** Every event this process appends, to any session, after it is durable. */
  onEvent(listener: (event: SessionEvent) => void): () => void;
}

/**
 * Hands finished events to a session's one writer (the engine's event log), which assigns their
 * indexes and commits them; a feature never picks an index itself.
 */
export interface EventSink {
  append(sessionId: string, drafts: EventDraft[]): Promise<unknown>;
}
