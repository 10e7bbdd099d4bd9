/**
 * The status of the live deployment (docs/guide/cloudflare.md "Deployments and the alias
 * token"): `stopped` when the worker says so, `degraded` when its health answers but an agent
 * reports warnings or errors or cannot read its store, else `running`.
 * @module
 */
import { ALIAS_TOKEN_HEADER } from "../../adapters/cloudflare/deployment-gate.ts";
import { isRecord } from "../api-client.ts";
import type { DeploymentState } from "./deployment-state.ts";

export type DeploymentStatus = "running" | "degraded" | "stopped";

export interface StatusReport {
  status: DeploymentStatus;
  /** Why, when not plainly running. */
  reasons: string[];
}

export async function deploymentStatus(state: DeploymentState, bearerToken: string | undefined): Promise<StatusReport> {
  if (!state.url) return { status: "degraded", reasons: ["no URL recorded for the worker: its status cannot be checked"] };
  const base = state.url.replace(/\/+$/, "");
  const headers: Record<string, string> = { [ALIAS_TOKEN_HEADER]: state.aliasToken };
  if (bearerToken) headers.authorization = `Bearer ${bearerToken}`;
  const get = async (path: string): Promise<{ status: number; body: unknown } | { error: string }> => {
    try {
      const response = await fetch(`${base}${path}`, { headers });
      return { status: response.status, body: await response.json().catch(() => undefined) };
    } catch (error) {
      return { error: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error) };
    }
  };
  const agents = state.mode === "single" ? [""] : state.slugs.map((slug) => `/${slug}`);
  const reasons: string[] = [];
  for (const prefix of agents) {
    const name = prefix === "" ? "the agent" : prefix.slice(1);
    const health = await get(`${prefix}/v1/health`);
    if ("error" in health) return { status: "degraded", reasons: [`${base} cannot be reached: ${health.error}`] };
    if (isRecord(health.body) && health.body.error === "deployment_stopped") return { status: "stopped", reasons: ["stopped with agent-serve stop; agent-serve deploy serves again"] };
    if (health.status !== 200) {
      reasons.push(`${name}: GET /v1/health answered ${health.status}`);
      continue;
    }
    const info = await get(`${prefix}/v1/info`);
    if ("error" in info) reasons.push(`${name}: GET /v1/info failed: ${info.error}`);
    else if (info.status === 401) reasons.push(`${name}: diagnostics not checked (GET /v1/info answered 401: pass --bearer-token)`);
    else if (info.status !== 200) reasons.push(`${name}: GET /v1/info answered ${info.status}${isRecord(info.body) && typeof info.body.message === "string" ? `: ${info.body.message}` : ""}`);
    else {
      const diagnostics = isRecord(info.body) && Array.isArray(info.body.diagnostics) ? info.body.diagnostics : [];
      for (const d of diagnostics) {
        if (isRecord(d) && (d.severity === "error" || d.severity === "warning")) reasons.push(`${name}: ${String(d.severity)} ${String(d.code)}: ${String(d.message)}`);
      }
    }
  }
  // An unchecked diagnostic is a note, not a fault.
  const faults = reasons.filter((reason) => !reason.includes("diagnostics not checked"));
  return { status: faults.length > 0 ? "degraded" : "running", reasons };
}
