/**
 * `POST /v1/session/:sessionId/fork` (docs/guide/forking.md): a new session from the source's
 * events up to `atIndex`, answered like a create; with `message`, the fork's first follow-up is
 * sent at once. Owner only. A fork whose message cannot be sent (a task session) is refused before
 * anything is written.
 * @module
 */
import { readJsonBody } from "../../base/body.ts";
import { conflict } from "../../base/errors.ts";
import { json } from "../../base/responses.ts";
import { validate } from "../../base/validate.ts";
import type { CreateSessionResponse } from "../response-types.ts";
import { defineRoute } from "../route.ts";
import { forkSessionBody } from "../schemas/session.ts";
import { sessionParam } from "./sessions.ts";

export const forkSession = defineRoute({
  method: "POST",
  path: "/v1/session/:sessionId/fork",
  auth: "agent",
  summary: "Fork a session at an event (owner only): {atIndex, message?} → like a create",
  bodySchema: forkSessionBody,
  async handler(context) {
    const { agent, auth, url } = context;
    const sourceId = sessionParam(context);
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), forkSessionBody);
    if (body.message !== undefined && (await agent.sessions.owned(sourceId, auth)).mode !== "chat") {
      throw conflict("session_not_followable", "a fork of a task session takes no message");
    }
    const record = await agent.sessions.fork(sourceId, { atIndex: body.atIndex, auth });
    const continuationToken =
      body.message === undefined ? record.continuationToken : await agent.sessions.followUp(record.sessionId, { message: body.message, continuationToken: record.continuationToken, auth });
    const base = `${url.origin}${agent.basePath}`;
    return json({
      ok: true,
      sessionId: record.sessionId,
      continuationToken,
      playgroundUrl: `${base}/playground?sessionId=${record.sessionId}`,
      traceUrl: `${base}/v1/session/${record.sessionId}/events`,
    } satisfies CreateSessionResponse);
  },
});
