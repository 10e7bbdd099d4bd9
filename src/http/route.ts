import type { AgentRuntime } from "./agent.ts";
import type { HostLogger, LogBuffer } from "../base/logging.ts";
import type { AuthContext, AuthPolicy } from "../base/auth.ts";

export interface RouteContext {
  request: Request;
  url: URL;
  /** URL-decoded path parameters. */
  params: Record<string, string>;
  agent: AgentRuntime;
  /** The principal, for routes with `auth: "agent"`. */
  auth: AuthContext;
  /** TCP peer address, when known. */
  ip: string | undefined;
  /** Whether this caller sees every session (dev loopback callers, anonymous deployments). */
  wide: boolean;
  host: HostServices;
}

/** Host-wide facts and services a route may need. */
export interface HostServices {
  dev: boolean;
  maxBodyBytes: number;
  closing: { subscribe(listener: () => void): () => void };
  /** Recent server log lines (`GET /v1/logs`). */
  logs: LogBuffer;
  /** The package version (`GET /v1/meta`). */
  version: string;
  logger: HostLogger;
  /**
   * The host-level chain of the start-up flags (loopback, bearer or anonymous), never an
   * authored channel chain: what `/v1/mcp/tools` runs.
   */
  hostPolicies: readonly AuthPolicy[];
}

/** A route declared as data, so docs and the playground can list endpoints from the same table. */
export interface RouteDefinition {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below the agent's base, e.g. `/v1/session/:sessionId`. */
  path: string;
  /** `agent` runs the agent's auth chain; `none` is public (health, meta). */
  auth: "agent" | "none";
  summary: string;
  /** With `auth: "agent"`: the chain this route runs instead of the agent's (a channel's authored chain). */
  policies?: readonly AuthPolicy[];
  /** Declared schemas (Standard Schema), described as JSON Schema wherever routes are listed. */
  bodySchema?: unknown;
  querySchema?: unknown;
  handler(context: RouteContext): Promise<Response> | Response;
}

export const defineRoute = (route: RouteDefinition): RouteDefinition => route;
