/**
 * Waiting for an eval session to settle after a message: reads the event log from the index the
 * message was sent at until the session waits again (or ends), following it live in between.
 * @module
 */
import type { EventLog } from "../sessions/event-log.ts";
import type { SessionEvent } from "../sessions/events.ts";

/** What one `t.send` observed. */
export interface TurnObservation {
  /** Every event from the send up to and including the settling one. */
  events: SessionEvent[];
  /** The last assistant message that is not a tool-calling step; `""` when there was none. */
  reply: string;
  /** Whether the last turn completed; false when it failed or was interrupted. */
  succeeded: boolean;
  /** The `turn.failed` message of the last turn, when it failed. */
  error?: string;
  /** Tool calls the model requested. */
  toolCalls: Array<{ toolName: string; input: unknown }>;
}

const SETTLED = new Set(["session.waiting", "session.completed", "session.failed"]);

/** Resolves once the session settles after the events from `from`; rejects when `signal` aborts. */
export async function observeTurn(log: EventLog, sessionId: string, from: number, signal: AbortSignal): Promise<TurnObservation> {
  const events: SessionEvent[] = [];
  let next = from;
  let dirty = true;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    dirty = true;
    wake?.();
  };
  // Subscribed before the first read, so an event appended in between still wakes the loop.
  const unsubscribe = log.subscribe(sessionId, poke);
  signal.addEventListener("abort", poke);
  try {
    for (;;) {
      signal.throwIfAborted();
      if (dirty) {
        dirty = false;
        for (const event of await log.readEvents(sessionId, next)) {
          events.push(event);
          next = event.index + 1;
          if (SETTLED.has(event.type)) return fold(events);
        }
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", poke);
  }
}

// --- internals ---

function fold(events: SessionEvent[]): TurnObservation {
  const observation: TurnObservation = { events, reply: "", succeeded: false, toolCalls: [] };
  for (const event of events) {
    switch (event.type) {
      case "message.received":
        // A preempting message starts over: only the turn that settled counts.
        observation.reply = "";
        observation.succeeded = false;
        delete observation.error;
        break;
      case "message.completed":
        if (event.data.finishReason !== "tool_call" && typeof event.data.text === "string") observation.reply = event.data.text;
        break;
      case "actions.requested":
        for (const action of Array.isArray(event.data.actions) ? event.data.actions : []) {
          if (isRecord(action) && typeof action.toolName === "string") observation.toolCalls.push({ toolName: action.toolName, input: action.input });
        }
        break;
      case "turn.completed":
        observation.succeeded = true;
        delete observation.error;
        break;
      case "turn.failed":
        observation.succeeded = false;
        observation.error = typeof event.data.message === "string" ? event.data.message : "the turn failed";
        break;
      default:
        break;
    }
  }
  return observation;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
