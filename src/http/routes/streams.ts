/** Event routes: the live NDJSON stream and the one-shot dump. */
import { validate } from "../../_validate.ts";
import { streamQuery } from "../../schemas/session.ts";
import { eventStreamResponse } from "../event-stream.ts";
import { defineRoute } from "../route.ts";
import { sessionParam, viewer } from "./sessions.ts";

export const streamSession = defineRoute({
  method: "GET",
  path: "/v1/session/:sessionId/stream",
  auth: "agent",
  summary: "Live NDJSON events from startIndex, then following",
  async handler(context) {
    const sessionId = sessionParam(context);
    const query = await validate(Object.fromEntries(context.url.searchParams), streamQuery, "query");
    const record = await context.agent.sessions.readable(sessionId, viewer(context));
    return eventStreamResponse(context.agent.log, sessionId, {
      startIndex: query.startIndex ?? 0,
      follow: true,
      endOnTerminal: record.mode === "task",
      closing: context.host.closing,
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
