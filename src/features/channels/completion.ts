/**
 * `waitForCompletion()` of a channel session handle: follows a session's event log until the
 * accepted turn ends, and reads its final reply (docs/guide/channels.md "Session handles").
 * @module
 */
import { type SessionEvent, isEvent } from "../../base/events/vocabulary.ts";
import { type FollowableLog as FollowableLines, followLog } from "../../base/events/follow.ts";
import type { ChannelCompletion } from "../../base/definitions/channels.ts";

/** What a channel handle reads of the event log: the stored events, and the follow primitive's needs. */
export interface FollowableLog extends FollowableLines {
  readEvents(sessionId: string, from?: number): Promise<SessionEvent[]>;
}

/** The turn a send was accepted into: the last `message.received` with its text at or after `from`. */
export async function acceptedTurn(log: FollowableLog, sessionId: string, from: number, message: string): Promise<{ turnId: string; index: number } | undefined> {
  const received = (await log.readEvents(sessionId, from)).filter(
    (event): event is SessionEvent<"message.received"> => isEvent(event, "message.received") && event.turnId !== undefined,
  );
  const match = received.findLast((event) => event.data.text === message) ?? received.at(-1);
  return match?.turnId ? { turnId: match.turnId, index: match.index } : undefined;
}

/** Resolves when `turnId` ends (`turn.completed` or `turn.failed`), or rejects after `timeoutMs`. */
export async function waitForTurn(log: FollowableLog, sessionId: string, turnId: string, from: number, timeoutMs?: number): Promise<ChannelCompletion> {
  const stop = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => stop.abort(), timeoutMs);
  let reply: string | undefined;
  try {
    for await (const { lines } of followLog(log, sessionId, { from, live: true, signal: stop.signal })) {
      for (const line of lines) {
        const event = JSON.parse(line) as SessionEvent;
        if (event.turnId !== turnId) continue;
        if (isEvent(event, "message.completed") && event.data.finishReason !== "tool_call") reply = event.data.text;
        if (isEvent(event, "turn.completed")) return { status: "finished", ...(reply === undefined ? {} : { result: reply }) };
        if (isEvent(event, "turn.failed")) {
          const message = event.data.message;
          return { status: message === "turn interrupted" ? "interrupted" : "failed", errorMessage: message, ...(reply === undefined ? {} : { result: reply }) };
        }
      }
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  throw new Error(`[agent-serve] [channels] turn ${turnId} of ${sessionId} did not end within ${timeoutMs} ms`);
}
