/**
 * The one shape of a route, host-level or agent-level: method, path, auth, schemas, summary and
 * handler, declared as data so the router, `GET /v1/info` and the docs' route reference read the
 * same table (docs/design/routing.md). It is generic in what its handler receives, so a feature can
 * declare routes against the narrow context it needs; the HTTP floor passes a context that has at
 * least that.
 * @module
 */
import type { AuthContext, AuthPolicy } from "./auth.ts";

export type RouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What every route handler receives, whichever table the route is in. */
export interface RouteCall {
  request: Request;
  url: URL;
  /** URL-decoded path parameters. */
  params: Record<string, string>;
  /** The principal, for routes with `auth: "agent"`; anonymous for `auth: "none"`. */
  auth: AuthContext;
  /** TCP peer address, when known. */
  ip: string | undefined;
}

/** A route declared as data; a GET route answers HEAD too. */
export interface Route<Context extends RouteCall = RouteCall> {
  method: RouteMethod;
  /**
   * Path pattern in its table's scope: static segments, `:name` for one segment, a trailing `*`
   * for the rest (docs/design/routing.md "Patterns").
   */
  path: string;
  /** `agent` runs the agent's auth chain (or `policies`) before the handler; `none` is public. */
  auth: "agent" | "none";
  summary: string;
  /** With `auth: "agent"`: the chain this route runs instead of the agent's (a channel's authored chain). */
  policies?: readonly AuthPolicy[];
  /** Declared schemas (Standard Schema), described as JSON Schema wherever routes are listed. */
  bodySchema?: unknown;
  querySchema?: unknown;
  // A method, so checked bivariantly: a route written against a narrower context fits a table
  // whose context has more.
  handler(context: Context): Promise<Response> | Response;
}
