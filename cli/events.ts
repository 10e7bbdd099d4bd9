/**
 * Reading a session's recorded events (`/events`, one shot) and following its live stream
 * (`/stream?startIndex=N`), as parsed envelopes or raw lines.
 * @module
 */
import { explainSessionError, sessionPath } from "./api-client.ts";
import type { ApiClient } from "./api-client.ts";
import { type EventEnvelope, SETTLING_EVENTS, parseEventLine } from "../src/entries/events.ts";

/** The event envelope as the CLI reads it, from a host of any version. */
export type CliEvent = EventEnvelope;

/** Every recorded event of a session. */
export async function readEvents(client: ApiClient, sessionId: string): Promise<CliEvent[]> {
  const events: CliEvent[] = [];
  try {
    for await (const line of client.lines(sessionPath(sessionId, "/events"))) events.push(parseEvent(line));
  } catch (error) {
    throw explainSessionError(error, sessionId);
  }
  return events;
}

/** The live stream from `startIndex`: replays, then follows until `signal` aborts or the server ends it. */
export async function* followEvents(client: ApiClient, sessionId: string, startIndex: number, signal: AbortSignal): AsyncGenerator<CliEvent> {
  for await (const line of followLines(client, sessionId, startIndex, signal)) yield parseEvent(line);
}

/** Like {@link followEvents}, as the raw NDJSON lines. */
export function followLines(client: ApiClient, sessionId: string, startIndex: number, signal: AbortSignal): AsyncGenerator<string> {
  return client.lines(sessionPath(sessionId, `/stream?startIndex=${startIndex}`), signal);
}

export const parseEvent: (line: string) => CliEvent = parseEventLine;

/** The event that ends a turn's activity: the session is idle (or over) again. */
export function isSettled(event: CliEvent): boolean {
  return SETTLING_EVENTS.has(event.type);
}
