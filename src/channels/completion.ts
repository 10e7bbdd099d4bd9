/**
 * `waitForCompletion()` of a channel session handle: follows a session's event log until the
 * accepted turn ends, and reads its final reply (docs/guide/channels.md "Session handles").
 * @module
 */
import type { SessionEvent } from "../sessions/events.ts";
import type { ChannelCompletion } from "./types.ts";

export interface FollowableLog {
  readEvents(sessionId: string, from?: number): Promise<SessionEvent[]>;
  subscribe(sessionId: string, listener: () => void): () => void;
}

/** The turn a send was accepted into: the last `message.received` with its text at or after `from`. */
export async function acceptedTurn(log: FollowableLog, sessionId: string, from: number, message: string): Promise<{ turnId: string; index: number } | undefined> {
  const received = (await log.readEvents(sessionId, from)).filter((event) => event.type === "message.received" && event.turnId);
  const match = received.findLast((event) => event.data.text === message) ?? received.at(-1);
  return match?.turnId ? { turnId: match.turnId, index: match.index } : undefined;
}

/** Resolves when `turnId` ends (`turn.completed` or `turn.failed`), or rejects after `timeoutMs`. */
export async function waitForTurn(log: FollowableLog, sessionId: string, turnId: string, from: number, timeoutMs?: number): Promise<ChannelCompletion> {
  let next = from;
  let reply: string | undefined;
  let dirty = true;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    dirty = true;
    wake?.();
  };
  // Subscribed before the first read, so an event appended in between still wakes the loop.
  const unsubscribe = log.subscribe(sessionId, poke);
  let timedOut = false;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), poke()), timeoutMs);
  try {
    for (;;) {
      if (timedOut) throw new Error(`[agent-serve] [channels] turn ${turnId} of ${sessionId} did not end within ${timeoutMs} ms`);
      if (!dirty) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      dirty = false;
      for (const event of await log.readEvents(sessionId, next)) {
        next = event.index + 1;
        if (event.turnId !== turnId) continue;
        if (event.type === "message.completed" && event.data.finishReason !== "tool_call" && typeof event.data.text === "string") {
          reply = event.data.text;
        }
        if (event.type === "turn.completed") return { status: "finished", ...(reply === undefined ? {} : { result: reply }) };
        if (event.type === "turn.failed") {
          const message = typeof event.data.message === "string" ? event.data.message : "the turn failed";
          return { status: message === "turn interrupted" ? "interrupted" : "failed", errorMessage: message, ...(reply === undefined ? {} : { result: reply }) };
        }
      }
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    unsubscribe();
  }
}
