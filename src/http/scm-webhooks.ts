/**
 * `POST /v1/webhooks/scm` (host level): one URL for source-control deliveries, handed with its
 * headers and raw body unchanged to the webhook route of every mounted GitHub channel, each of
 * which verifies and dedupes it on its own (docs/guide/github.md "One URL for every agent").
 * Direct loopback callers only: a relay or proxy on the same machine forwards here.
 * @module
 */
import type { AgentRuntime } from "./agent.ts";
import { channelPackOf } from "../features/channels/packs/marker.ts";
import { channelRoutePath } from "../features/channels/routes.ts";
import { type ErrorLogger, HTTPError } from "../base/errors.ts";
import { localDevStrict } from "../base/auth-policies.ts";
import { readBodyText } from "../base/body.ts";
import { json } from "../base/responses.ts";

export const SCM_WEBHOOKS_PATH = "/v1/webhooks/scm";

export interface ScmTarget {
  agent: AgentRuntime;
  app: (request: Request, ip: string | undefined) => Promise<Response>;
}

export type ScmWebhooksHandler = (request: Request, ip: string | undefined) => Promise<Response>;

export function createScmWebhooks(targets: readonly ScmTarget[], host: { maxBodyBytes: number; logger: ErrorLogger }): ScmWebhooksHandler {
  const loopback = localDevStrict();
  const routes = targets.flatMap(({ agent, app }) =>
    Object.entries(agent.project.channels ?? {}).flatMap(([channelId, definition]) => {
      const pack = channelPackOf(definition);
      return pack?.kind === "github" ? [{ slug: agent.slug, channel: channelId, path: `${agent.basePath}${channelRoutePath(channelId, pack.ingressPath)}`, app }] : [];
    }),
  );
  return async (request: Request, ip: string | undefined): Promise<Response> => {
    if (request.method !== "POST") {
      throw new HTTPError({ status: 405, code: "method_not_allowed", message: "use POST", headers: { allow: "POST" } });
    }
    if (!(await loopback(request, ip === undefined ? {} : { ip }))) {
      throw new HTTPError({ status: 403, code: "forbidden", message: "only direct loopback callers may post to /v1/webhooks/scm" });
    }
    const body = await readBodyText(request, host.maxBodyBytes);
    const origin = new URL(request.url).origin;
    const deliveries = await Promise.all(
      routes.map(async ({ slug, channel, path, app }) => {
        const forwarded = new Request(`${origin}${path}`, { method: "POST", headers: request.headers, ...(body === "" ? {} : { body }) });
        const response = await app(forwarded, ip).catch((error: unknown) => toStatus(error, host.logger));
        return { slug, channel, status: response.status };
      }),
    );
    return json({ ok: true, deliveries });
  };
}

// --- internals ---

/** An agent app renders its own errors; anything that still escapes counts as that channel's 500. */
function toStatus(error: unknown, logger: ErrorLogger): Response {
  if (HTTPError.isError(error)) return new Response(null, { status: error.status });
  logger.error("[agent-serve] /v1/webhooks/scm: a channel's webhook route failed", error);
  return new Response(null, { status: 500 });
}
