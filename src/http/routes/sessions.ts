/** Session routes of docs/guide/http-api.md "Sessions" (create, follow-up, stop, read, list, remove). */
import { validate } from "../../base/validate.ts";
import { HTTP_CHANNEL } from "../../features/channels/http-channel.ts";
import * as v from "valibot";
import { isSessionId } from "../../base/ids.ts";
import { isSessionIndexPosition } from "../../base/storage/keys.ts";
import { cursorOf, pageOf, pageQuery } from "../paging.ts";
import { createSessionBody, followUpBody, renameSessionBody } from "../schemas/session.ts";
import { sessionNotFound } from "../../engine/sessions/session-service.ts";
import type { CreateSessionResponse, FollowUpResponse, SessionListResponse, SessionResponse, StopResponse } from "../response-types.ts";
import { readJsonBody } from "../../base/body.ts";
import { json } from "../../base/responses.ts";
import { type RouteContext, defineRoute } from "../route.ts";

export const createSession = defineRoute({
  method: "POST",
  path: "/v1/session",
  auth: "agent",
  summary: "Open a chat session with a first message",
  bodySchema: createSessionBody,
  async handler({ request, url, agent, auth, host }) {
    const body = await validate(await readJsonBody(request, host.maxBodyBytes), createSessionBody);
    const { message, options } = await agent.channels.transform(HTTP_CHANNEL, { message: body.message, body, auth, request, followUp: false });
    const title = options.title ?? body.title;
    const state = options.state ?? body.state;
    const workspaceFiles = options.workspaceFiles ?? body.workspaceFiles;
    const record = await agent.sessions.create({
      message,
      auth,
      ...(title === undefined ? {} : { title }),
      ...(state === undefined ? {} : { state }),
      ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
      ...(workspaceFiles === undefined ? {} : { workspaceFiles }),
    });
    const base = `${url.origin}${agent.basePath}`;
    return json({
      ok: true,
      sessionId: record.sessionId,
      continuationToken: record.continuationToken,
      playgroundUrl: `${base}/playground?sessionId=${record.sessionId}`,
      traceUrl: `${base}/v1/session/${record.sessionId}/events`,
    } satisfies CreateSessionResponse);
  },
});

export const followUp = defineRoute({
  method: "POST",
  path: "/v1/session/:sessionId",
  auth: "agent",
  summary: "Continue a chat session (rotates the continuation token)",
  bodySchema: followUpBody,
  async handler(context) {
    const sessionId = sessionParam(context);
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), followUpBody);
    const { message, options } = await context.agent.channels.transform(HTTP_CHANNEL, {
      message: body.message,
      body,
      auth: context.auth,
      request: context.request,
      followUp: true,
    });
    const workspaceFiles = options.workspaceFiles ?? body.workspaceFiles;
    const continuationToken = await context.agent.sessions.followUp(sessionId, {
      message,
      continuationToken: body.continuationToken,
      auth: context.auth,
      // A custom channel's key (`ticket:T-1`) stays stable so the channel still reaches the session.
      rotate: !(await context.agent.channels.ownsSession(sessionId)),
      ...(workspaceFiles === undefined ? {} : { workspaceFiles }),
    });
    return json({ ok: true, sessionId, continuationToken } satisfies FollowUpResponse);
  },
});

export const renameSession = defineRoute({
  method: "PATCH",
  path: "/v1/session/:sessionId",
  auth: "agent",
  summary: "Rename a session (owner only): {title} → {ok, sessionId, title}",
  bodySchema: renameSessionBody,
  async handler(context) {
    const sessionId = sessionParam(context);
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), renameSessionBody);
    const title = await context.agent.sessions.rename(sessionId, body.title, context.auth);
    return json({ ok: true, sessionId, title });
  },
});

export const deleteSession = defineRoute({
  method: "DELETE",
  path: "/v1/session/:sessionId",
  auth: "agent",
  summary: "Remove a session: its records, event log, conversation and workspace (owner only)",
  async handler(context) {
    await context.agent.sessions.remove(sessionParam(context), context.auth);
    return json({ ok: true });
  },
});

export const stopSession = defineRoute({
  method: "POST",
  path: "/v1/session/:sessionId/stop",
  auth: "agent",
  summary: "Interrupt the in-flight turn without sending a message",
  async handler(context) {
    const stopped = await context.agent.sessions.stop(sessionParam(context), context.auth);
    return json({ ok: true, stopped } satisfies StopResponse);
  },
});

const listQuery = v.object(pageQuery);

export const listSessions = defineRoute({
  method: "GET",
  path: "/v1/sessions",
  auth: "agent",
  summary: "Sessions visible to the caller, most recently updated first, a page at a time (limit, cursor)",
  querySchema: listQuery,
  async handler(context) {
    const query = await validate(Object.fromEntries(context.url.searchParams), listQuery, "query");
    const page = await context.agent.sessions.page(viewer(context), pageOf(query, (text) => (isSessionIndexPosition(text) ? text : undefined)));
    return json({ sessions: page.sessions, nextCursor: cursorOf(page.next) } satisfies SessionListResponse);
  },
});

export const getSession = defineRoute({
  method: "GET",
  path: "/v1/session/:sessionId",
  auth: "agent",
  summary: "One session's summary, as the listing shows it (owner, or any session for a wide viewer)",
  async handler(context) {
    const sessionId = sessionParam(context);
    await context.agent.sessions.readable(sessionId, viewer(context));
    const session = await context.agent.sessions.find(sessionId);
    if (!session) throw sessionNotFound();
    return json({ session } satisfies SessionResponse);
  },
});

/** The `:sessionId` parameter; anything not shaped like a session id is simply unknown. */
export function sessionParam(context: RouteContext): string {
  const id = context.params["sessionId"] ?? "";
  if (!isSessionId(id)) throw sessionNotFound();
  return id;
}

export const viewer = (context: RouteContext): { auth: RouteContext["auth"]; wide: boolean } => ({
  auth: context.auth,
  wide: context.wide,
});
