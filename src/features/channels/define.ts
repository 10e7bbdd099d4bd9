/**
 * `defineChannel` and the route helpers of `agent-serve/channels` (docs/guide/channels.md).
 * Routes are data: the helpers only record method, path, schemas and handler; the loader checks
 * the schema rules and the host mounts, validates and describes the routes from that data.
 * @module
 */
import type { StandardSchema } from "../../base/validate.ts";
import type { InferOutput } from "../../engine/tools/define.ts";
import type { ChannelDefinition, ChannelMethod, ChannelRoute, ChannelRouteContext, ChannelState } from "../../base/definitions/channels.ts";

/** Route options of `GET`: a query schema is required (an open object admits any query). */
export interface QueryRouteOptions<Query extends StandardSchema> {
  description?: string;
  querySchema: Query;
  handler(request: Request, context: ChannelRouteContext<undefined, InferOutput<Query>>): unknown;
}

/** Route options of `POST`, `PUT` and `PATCH`: a body schema is required, a query schema optional. */
export interface BodyRouteOptions<Body extends StandardSchema, Query extends StandardSchema | undefined = undefined> {
  description?: string;
  bodySchema: Body;
  querySchema?: Query;
  handler(request: Request, context: ChannelRouteContext<InferOutput<Body>, QueryOf<Query>>): unknown;
}

/** Route options of `DELETE`: both schemas optional. */
export interface DeleteRouteOptions<Body extends StandardSchema | undefined = undefined, Query extends StandardSchema | undefined = undefined> {
  description?: string;
  bodySchema?: Body;
  querySchema?: Query;
  handler(request: Request, context: ChannelRouteContext<Body extends StandardSchema ? InferOutput<Body> : undefined, QueryOf<Query>>): unknown;
}

type QueryOf<Query> = Query extends StandardSchema ? InferOutput<Query> : Record<string, string>;

/**
 * Declares the channel of `bot/channels/<id>.ts`; the file name is the channel id and the route
 * prefix `/v1/channels/<id>`.
 * @example
 * export default defineChannel({
 *   auth: [localDevStrict()],
 *   routes: [
 *     POST("/ask", {
 *       bodySchema: v.object({ question: v.string() }),
 *       handler: async (_request, { body, send }) => {
 *         const session = await send(body.question);
 *         return { sessionId: session.sessionId, ...(await session.waitForCompletion()) };
 *       },
 *     }),
 *   ],
 * });
 */
export function defineChannel<State extends ChannelState = ChannelState>(definition: ChannelDefinition<State>): ChannelDefinition<State> {
  return definition;
}

/** `GET <path>` with a required query schema. */
export function GET<Query extends StandardSchema>(path: string, options: QueryRouteOptions<Query>): ChannelRoute {
  return route("GET", path, options);
}

/** `POST <path>` with a required body schema; an empty body is validated as `{}`. */
export function POST<Body extends StandardSchema, Query extends StandardSchema | undefined = undefined>(
  path: string,
  options: BodyRouteOptions<Body, Query>,
): ChannelRoute {
  return route("POST", path, options);
}

/** `PUT <path>` with a required body schema. */
export function PUT<Body extends StandardSchema, Query extends StandardSchema | undefined = undefined>(
  path: string,
  options: BodyRouteOptions<Body, Query>,
): ChannelRoute {
  return route("PUT", path, options);
}

/** `PATCH <path>` with a required body schema. */
export function PATCH<Body extends StandardSchema, Query extends StandardSchema | undefined = undefined>(
  path: string,
  options: BodyRouteOptions<Body, Query>,
): ChannelRoute {
  return route("PATCH", path, options);
}

/** `DELETE <path>`; body and query schemas are optional. */
export function DELETE<Body extends StandardSchema | undefined = undefined, Query extends StandardSchema | undefined = undefined>(
  path: string,
  options: DeleteRouteOptions<Body, Query>,
): ChannelRoute {
  return route("DELETE", path, options);
}

// --- internals ---

interface AnyRouteOptions {
  description?: string;
  bodySchema?: unknown;
  querySchema?: unknown;
  handler: unknown;
}

function route(method: ChannelMethod, path: string, options: AnyRouteOptions): ChannelRoute {
  // SAFETY: the route is data checked by the loader (validateChannel) before it is mounted; the
  // helpers' signatures already typed the handler against its schemas.
  return { ...(options as Omit<ChannelRoute, "method" | "path">), method, path };
}
