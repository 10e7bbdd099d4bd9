/**
 * Custom channel routes as agent routes (docs/guide/channels.md "Routes"): each authored route is
 * mounted at `/v1/channels/<id><path>` with the channel's auth chain; its query and body are
 * validated before the handler runs, and its return value becomes the response
 * (docs/guide/channels.md "Routes").
 * @module
 */
import { type StandardSchema, validate } from "../../base/validate.ts";
import { badRequest } from "../../base/errors.ts";
import type { AuthPolicy } from "../../base/auth.ts";
import { readBodyText } from "../../base/body.ts";
import { json } from "../../base/responses.ts";
import type { Route, RouteCall } from "../../base/route.ts";
import type { ChannelHost } from "./channel-host.ts";
import { HTTP_CHANNEL } from "./http-channel.ts";
import type { ChannelDefinition, ChannelRoute, ChannelRouteContext } from "../../base/definitions/channels.ts";

/** The mount path of a channel route below the agent's base. */
export function channelRoutePath(channelId: string, path: string): string {
  const tail = path === "/" || path === "" ? "" : path.startsWith("/") ? path : `/${path}`;
  return `/v1/channels/${channelId}${tail}`;
}

/** What a channel route reads of its call: the agent's channels and two host facts. */
export interface ChannelRouteCall extends RouteCall {
  agent: { channels: Pick<ChannelHost, "services" | "sessionUrls"> };
  host: { maxBodyBytes: number; dev: boolean };
}

/** Routes of the agent's table for every authored route of its channels. */
export function channelRouteDefinitions(
  channels: Record<string, ChannelDefinition> | undefined,
  defaultPolicies: readonly AuthPolicy[],
): Array<Route<ChannelRouteCall>> {
  const routes: Array<Route<ChannelRouteCall>> = [];
  for (const [channelId, definition] of Object.entries(channels ?? {})) {
    if (channelId === HTTP_CHANNEL) continue;
    for (const route of definition.routes ?? []) routes.push(toRouteDefinition(channelId, definition.auth ?? defaultPolicies, route));
  }
  // Static segments before parameters, so `/items/new` is not taken by `/items/:id`.
  return routes.sort((a, b) => paramCount(a.path) - paramCount(b.path));
}

// --- internals ---

/** A channel without its own chain runs the start-up default, never the HTTP channel's override. */
function toRouteDefinition(channelId: string, policies: readonly AuthPolicy[], route: ChannelRoute): Route<ChannelRouteCall> {
  return {
    method: route.method,
    path: channelRoutePath(channelId, route.path),
    auth: "agent",
    policies,
    summary: route.description ?? `${route.method} ${route.path} of channel ${channelId}`,
    ...(route.bodySchema ? { bodySchema: route.bodySchema } : {}),
    ...(route.querySchema ? { querySchema: route.querySchema } : {}),
    handler: (context) => runRoute(channelId, route, context),
  };
}

async function runRoute(channelId: string, route: ChannelRoute, context: ChannelRouteCall): Promise<Response> {
  const { request, url, agent, auth, ip, host } = context;
  const rawBody = route.method === "GET" ? "" : await readBodyText(request, host.maxBodyBytes);
  const query = route.querySchema ? await validate(queryObject(url), route.querySchema, "query") : queryObject(url);
  const parsed = parseBody(rawBody, request.headers.get("content-type"), route.bodySchema !== undefined);
  const body = route.bodySchema ? await validate(parsed, route.bodySchema as StandardSchema, "request body") : parsed;
  const services = agent.channels.services(channelId, { origin: url.origin, auth });
  const handlerContext: ChannelRouteContext = {
    ...services,
    body,
    query,
    params: context.params,
    auth,
    requestIp: ip,
    rawBody,
    dev: host.dev,
    sessionUrls: (forRequest, sessionId) => agent.channels.sessionUrls(new URL(forRequest.url).origin, sessionId),
  };
  // The body was read for validation, so the handler gets a request whose body can be read again.
  const handlerRequest = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    ...(rawBody === "" ? {} : { body: rawBody }),
    signal: request.signal,
  });
  const result: unknown = await route.handler(handlerRequest, handlerContext);
  if (result instanceof Response) return result;
  if (result === undefined) return new Response(null, { status: 202 });
  return json(result);
}

/** Query parameters as an object: one value is a string, a repeated name an array. */
function queryObject(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const previous = query[name];
    query[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return query;
}

/**
 * The body value validation sees: JSON, or a form body as an object; empty is `{}` where a body
 * schema applies (docs/guide/channels.md "Before the handler"), else undefined.
 */
function parseBody(text: string, contentType: string | null, hasSchema: boolean): unknown {
  if (text.trim() === "") return hasSchema ? {} : undefined;
  if (contentType?.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    return JSON.parse(text);
  } catch {
    if (!hasSchema) return text;
    throw badRequest("request body is not valid JSON");
  }
}

function paramCount(path: string): number {
  return (path.match(/\/:/g) ?? []).length + (path.includes("*") ? 100 : 0);
}
