/**
 * `POST /v1/channels/<id>/webhook` of the GitHub pack: verify, dedupe, hand the delivery to a
 * hook, and start the turn or task it asks for (docs/guide/github.md).
 * @module
 */
import type { Octokit } from "@octokit/core";
import { badRequest, createError } from "../../../base/errors.ts";
import { json } from "../../../base/responses.ts";
import { handleOnce, ignored, invalidSignature, isDirectLoopback, parseJsonBody } from "../packs/ingress.ts";
import { isDeliveryId } from "../packs/delivery-claims.ts";
import type { ChannelRouteContext } from "../../../base/definitions/channels.ts";
import { type GitHubPayload, threadOfDelivery, toGitHubContinuationKey } from "./conversation.ts";
import { isFromBot, runGitHubHook } from "./hooks.ts";
import { defaultGitHubMessage } from "./messages.ts";
import { verifyGitHubSignature } from "./signature.ts";
import type { GitHubChannelOptions, GitHubHookContext, GitHubHookResult } from "./types.ts";

/** What the route needs besides the request: options and settings resolved from the environment. */
export interface GitHubWebhookSettings {
  options: GitHubChannelOptions;
  secret: () => string | undefined;
  client: () => Octokit;
  /** Lower-case `owner/repo` names to handle; undefined handles every repository. */
  repos: ReadonlySet<string> | undefined;
}

export async function handleGitHubWebhook(
  request: Request,
  context: ChannelRouteContext,
  settings: GitHubWebhookSettings,
): Promise<Response> {
  await authenticateDelivery(request, context, settings.secret());
  const event = request.headers.get("x-github-event");
  const deliveryId = request.headers.get("x-github-delivery");
  if (!event) throw badRequest("missing X-GitHub-Event header");
  if (!deliveryId || !isDeliveryId(deliveryId)) throw badRequest("missing or malformed X-GitHub-Delivery header");
  const payload = parsePayload(request, context.rawBody);
  // GitHub's `ping` on webhook creation: nothing to claim, nothing to run.
  if (event === "ping") return json({ ok: true, ping: true });

  return handleOnce(
    context.host,
    context.channel.id,
    deliveryId,
    async () => {
      if (isFromBot(payload, settings.options.botName) || !isWatchedRepository(payload, settings.repos)) return ignored();
      const hookContext = toHookContext(context, settings, event, deliveryId, payload);
      const result = await runGitHubHook(settings.options, hookContext);
      return start(result, hookContext);
    },
    settings.options.dedupeWindowMs,
  );
}

// --- internals ---

/**
 * With a secret, the signature must match. Without one, only direct loopback callers under
 * `--dev` are admitted (a developer replaying deliveries by hand).
 */
async function authenticateDelivery(request: Request, context: ChannelRouteContext, secret: string | undefined): Promise<void> {
  if (secret) {
    if (!(await verifyGitHubSignature(secret, context.rawBody, request.headers.get("x-hub-signature-256")))) {
      throw invalidSignature("missing or wrong X-Hub-Signature-256");
    }
    return;
  }
  if (!context.dev || !isDirectLoopback(request, context.requestIp)) {
    throw invalidSignature("no webhook secret is configured: unsigned deliveries are admitted only under --dev from loopback");
  }
}

/** JSON bodies, and the form-encoded `payload=<json>` GitHub sends when the webhook is set up so. */
function parsePayload(request: Request, rawBody: string): GitHubPayload {
  const type = request.headers.get("content-type") ?? "";
  const text = type.includes("application/x-www-form-urlencoded") ? (new URLSearchParams(rawBody).get("payload") ?? "") : rawBody;
  const payload = parseJsonBody(text);
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) throw badRequest("the payload is not a JSON object");
  return payload as GitHubPayload;
}

function isWatchedRepository(payload: GitHubPayload, repos: ReadonlySet<string> | undefined): boolean {
  if (!repos) return true;
  const name = payload.repository?.full_name;
  return typeof name === "string" && repos.has(name.toLowerCase());
}

function toHookContext(
  context: ChannelRouteContext,
  settings: GitHubWebhookSettings,
  event: string,
  deliveryId: string,
  payload: GitHubPayload,
): GitHubHookContext {
  const thread = threadOfDelivery(event, payload);
  const owner = payload.repository?.owner?.login;
  const name = payload.repository?.name;
  return {
    send: context.send,
    getSession: context.getSession,
    receive: context.receive,
    callTool: context.callTool,
    host: context.host,
    artifacts: context.artifacts,
    waitUntil: context.waitUntil,
    logger: context.logger,
    channel: context.channel,
    event,
    action: typeof payload.action === "string" ? payload.action : undefined,
    deliveryId,
    payload,
    sender: payload.sender,
    repository: typeof owner === "string" && typeof name === "string" ? { owner, name, fullName: `${owner}/${name}` } : undefined,
    thread,
    continuationToken: thread ? toGitHubContinuationKey(thread) : undefined,
    get github() {
      return settings.client();
    },
  };
}

async function start(result: GitHubHookResult, context: GitHubHookContext): Promise<Response> {
  if (!result) return ignored();
  if ("task" in result) {
    if (typeof result.task !== "function") throw hookError("a hook's task must be a function");
    const task = result.task;
    context.waitUntil(
      Promise.resolve()
        .then(() => task(context))
        .catch((error: unknown) => context.logger.error(`github task for delivery ${context.deliveryId} failed`, error)),
    );
    return json({ ok: true, task: true }, 202);
  }
  if (!result.auth || typeof result.auth.principalId !== "string") throw hookError("a hook's turn needs an auth principal");
  const title = result.title ?? threadTitle(context);
  // An empty message (a comment with no body) would be refused by `send`: describe the event instead.
  const message = result.message?.trim() ? result.message : defaultGitHubMessage(context.event, context.payload, context.thread);
  const session = await context.send(message, {
    auth: result.auth,
    admission: "coalesce",
    ...(context.continuationToken ?? result.continuationToken
      ? { continuationToken: context.continuationToken ?? result.continuationToken }
      : {}),
    ...(title ? { title } : {}),
    ...(context.thread ? { state: { github: context.thread } } : {}),
  });
  return json({ ok: true, sessionId: session.sessionId, continuationToken: session.continuationToken }, 202);
}

function threadTitle(context: GitHubHookContext): string | undefined {
  if (!context.thread) return undefined;
  const item = context.payload.pull_request ?? context.payload.issue;
  const title = typeof item?.title === "string" ? `: ${item.title}` : "";
  return `${context.repository?.fullName ?? ""}#${context.thread.number}${title}`;
}

/** An authoring mistake in a hook: logged and answered 500, so the delivery is released for a retry. */
function hookError(message: string): Error {
  return createError("github", message);
}
