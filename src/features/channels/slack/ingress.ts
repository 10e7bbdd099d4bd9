/**
 * `POST /v1/channels/<id>/events` of the Slack pack: the Events API request URL. Verifies the
 * v0 signature, answers `url_verification`, and turns a waking message into a coalesced turn on
 * its thread's conversation (docs/guide/slack.md).
 * @module
 */
import { badRequest } from "../../../base/errors.ts";
import type { AuthContext } from "../../../base/auth.ts";
import { json } from "../../../base/responses.ts";
import { handleOnce, ignored, invalidSignature, isDirectLoopback, parseJsonBody } from "../packs/ingress.ts";
import type { ChannelRouteContext } from "../../../base/definitions/channels.ts";
import { type SlackEnvelope, type SlackMessage, classifySlackEvent } from "./events.ts";
import { verifySlackSignature } from "./signature.ts";

export interface SlackIngressSettings {
  secret: () => string | undefined;
  watchChannels: readonly string[];
  /** Whether a conversation already has a session (thread replies continue only those). */
  hasConversation: (conversation: string) => Promise<boolean>;
  dedupeWindowMs: number;
}

/** The per-session state the replies read: where the thread is and which message to react to. */
export interface SlackThreadState {
  channel: string;
  threadTs: string;
  /** The latest message that woke the agent in this thread. */
  lastTs: string;
}

export async function handleSlackEvents(request: Request, context: ChannelRouteContext, settings: SlackIngressSettings): Promise<Response> {
  await authenticate(request, context, settings.secret());
  const envelope = parseJsonBody(context.rawBody);
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) throw badRequest("the body is not a JSON object");
  const body = envelope as SlackEnvelope;
  if (body.type === "url_verification") {
    if (typeof body.challenge !== "string") throw badRequest("url_verification without a challenge");
    return json({ challenge: body.challenge });
  }
  if (body.type !== "event_callback") return ignored();
  const classified = classifySlackEvent(body, settings.watchChannels);
  if ("ignore" in classified) return ignored();
  const { message } = classified;
  if (message.reason === "thread" && !(await settings.hasConversation(message.conversation))) return ignored();

  // One claim per message, not per event id: a retried event repeats the message, and Slack sends
  // a mention in a watched channel twice (app_mention and message) under two event ids.
  const deliveryId = `m_${message.channel}_${message.ts}`;
  return handleOnce(
    context.host,
    context.channel.id,
    deliveryId,
    async () => {
      const thread: SlackThreadState = { channel: message.channel, threadTs: message.threadTs, lastTs: message.ts };
      const session = await context.send(message.text, {
        continuationToken: message.conversation,
        admission: "coalesce",
        coalesceSourceTs: message.ts,
        auth: slackPrincipal(message),
        title: message.text.slice(0, 80),
        state: { slack: thread },
      });
      return json({ ok: true, sessionId: session.sessionId, continuationToken: session.continuationToken });
    },
    settings.dedupeWindowMs,
  );
}

// --- internals ---

async function authenticate(request: Request, context: ChannelRouteContext, secret: string | undefined): Promise<void> {
  if (!secret) {
    if (context.dev && isDirectLoopback(request, context.requestIp)) return;
    throw invalidSignature("no signing secret is configured: unsigned requests are admitted only under --dev from loopback");
  }
  const check = await verifySlackSignature(secret, {
    timestamp: request.headers.get("x-slack-request-timestamp"),
    signature: request.headers.get("x-slack-signature"),
    rawBody: context.rawBody,
  });
  if (!check.ok) throw invalidSignature(check.reason);
}

/** The Slack user who wrote the message; the session belongs to the first one in the thread. */
function slackPrincipal(message: SlackMessage): AuthContext {
  return {
    authenticator: "slack",
    principalId: `slack:${message.team ?? "unknown"}:${message.user}`,
    principalType: "user",
    attributes: { user: message.user, ...(message.team ? { team: message.team } : {}) },
  };
}
