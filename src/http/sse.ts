/**
 * Server-Sent Events for `EventSource` clients (see `docs/guide/http-api.md`, "Server-Sent
 * Events"): the same event objects as the NDJSON stream, one frame each, with `id:` set to the
 * event's index so a reconnecting client resumes with `Last-Event-ID`. No `event:` field: every
 * event arrives at `onmessage`, its `type` inside the JSON as on the NDJSON stream.
 * @module
 */

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  // Proxies that buffer (nginx) would hold frames back until the buffer fills.
  "x-accel-buffering": "no",
};

/** The comment that opens a stream, so the headers go out at once. */
export const SSE_OPENING: Uint8Array = new TextEncoder().encode(": agent-serve events\n\n");

/** Whether the client asked for Server-Sent Events (an `EventSource` always does). */
export function wantsEventStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * The index to resume from after `Last-Event-ID` (the last index the client saw, plus one), or
 * undefined when the header is absent or not an index.
 */
export function resumeIndex(request: Request): number | undefined {
  const last = request.headers.get("last-event-id")?.trim();
  return last !== undefined && /^\d{1,15}$/.test(last) ? Number(last) + 1 : undefined;
}

/** One event as an SSE frame; `serialized` is its JSON when the caller already has it. */
export function sseFrame(event: { index: number }, serialized: string = JSON.stringify(event)): string {
  return `id: ${event.index}\ndata: ${serialized}\n\n`;
}
