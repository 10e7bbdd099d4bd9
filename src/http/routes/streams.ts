/** Event routes: the live NDJSON stream and the one-shot dump. */
import { validate } from "../../base/validate.ts";
import { streamQuery } from "../schemas/session.ts";
import { eventStreamResponse } from "../event-stream.ts";
import { resumeIndex, wantsEventStream } from "../sse.ts";
import { defineRoute } from "../route.ts";
import { sessionParam, viewer } from "./sessions.ts";

export const streamSession = defineRoute({
  method: "GET",
  path: "/v1/session/:sessionId/stream",
  auth: "agent",
  summary: "Live events from startIndex, then following: NDJSON, or Server-Sent Events for Accept: text/event-stream (resume with Last-Event-ID)",
  querySchema: streamQuery,
  async handler(context) {
    const sessionId = sessionParam(context);
    const query = await validate(Object.fromEntries(context.url.searchParams), streamQuery, "query");
    const record = await context.agent.sessions.readable(sessionId, viewer(context));
    const sse = wantsEventStream(context.request);
    // An EventSource reconnects with Last-Event-ID; it wins over the URL the client keeps reusing.
    const startIndex = (sse ? resumeIndex(context.request) : undefined) ?? query.startIndex ?? 0;
    // A finished task has nothing more to send: 204 tells an EventSource to stop reconnecting.
    if (sse && record.mode === "task" && (record.status === "completed" || record.status === "failed") && startIndex >= (await context.agent.log.length(sessionId))) {
      return new Response(null, { status: 204 });
    }
    return eventStreamResponse(context.agent.log, sessionId, {
      startIndex,
      follow: true,
      endOnTerminal: record.mode === "task",
      closing: context.host.closing,
      format: sse ? "sse" : "ndjson",
    });
  },
});

export const sessionEvents = defineRoute({
  method: "GET",
  path: "/v1/session/:sessionId/events",
  auth: "agent",
  summary: "Every recorded event as a one-shot NDJSON dump",
  async handler(context) {
    const sessionId = sessionParam(context);
    await context.agent.sessions.readable(sessionId, viewer(context));
    return eventStreamResponse(context.agent.log, sessionId, {
      startIndex: 0,
      follow: false,
      endOnTerminal: false,
      closing: context.host.closing,
    });
  },
});
