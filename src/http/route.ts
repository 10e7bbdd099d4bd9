/**
 * The context of an agent's routes: the route shape of ../base/route.ts with the mounted agent and
 * the host's services (docs/design/routing.md).
 * @module
 */
import type { AgentRuntime } from "./agent.ts";
import type { HostLogger, LogBuffer } from "../base/logging.ts";
import type { AuthPolicy, ProtectedResource } from "../base/auth.ts";
import type { Route, RouteCall } from "../base/route.ts";

export interface RouteContext extends RouteCall {
  agent: AgentRuntime;
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
  /** The host's `leaseTtlMs` when it sets one: MCP tool tasks' runner lease follows it (docs/design/mcp-tool-tasks.md "Crash and restart"). */
  leaseTtlMs?: number;
  /**
   * The host-level chain of the start-up flags (loopback, bearer or anonymous), never an
   * authored channel chain: what `/v1/mcp/tools` runs.
   */
  hostPolicies: readonly AuthPolicy[];
  /** With an OAuth verifier: what the MCP endpoints' protected-resource metadata says. */
  oauth?: ProtectedResource;
  /** Which start-up chain `hostPolicies` is, for what the agent card declares (docs/guide/a2a.md "Security"). */
  authMode: "bearer" | "loopback" | "anonymous" | "custom";
}

/** An agent route: path below the agent's base, e.g. `/v1/session/:sessionId`. */
export type RouteDefinition = Route<RouteContext>;

export const defineRoute = (route: RouteDefinition): RouteDefinition => route;
