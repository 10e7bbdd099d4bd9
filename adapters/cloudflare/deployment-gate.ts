/**
 * The gate in front of a deployed worker (docs/guide/cloudflare.md "Deployments and the alias
 * token"): every request but the health checks must carry the deployment's alias token in
 * `X-Agent-Alias-Token`, compared in constant time before the agent's own auth chain; and a
 * deployment stopped with `agent-serve stop` answers 503 and fires no schedules until the next
 * deploy. Both read the worker's secrets: the token from `AGENT_SERVE_ALIAS_TOKEN`, and the stop
 * switch from `AGENT_SERVE_STOPPED`, which stops the worker only while it names this build's id
 * (a new deploy is a new build, so it serves again without anyone clearing the switch).
 * @module
 */
import { constantTimeEqual } from "../../src/base/constant-time.ts";
import { HTTPError } from "../../src/base/errors.ts";

/** The request header carrying the alias token; removed before a request goes further. */
export const ALIAS_TOKEN_HEADER = "x-agent-alias-token";
/**
 * The query parameter that may carry the token instead, for callers that cannot add a header: the
 * Slack and GitHub webhook URLs `slack manifest` and `github manifest` print. Their signatures
 * cover the body only, so removing it from the URL at the gate leaves them valid.
 */
export const ALIAS_TOKEN_PARAM = "agent_alias_token";
/** The worker secret holding the alias token. */
export const ALIAS_TOKEN_SECRET = "AGENT_SERVE_ALIAS_TOKEN";
/** The worker secret naming the stopped build. */
export const STOPPED_SECRET = "AGENT_SERVE_STOPPED";

export interface DeploymentOptions {
  /** This build's id: the stop switch stops the worker while it names this id. */
  buildId: string;
}

/** True while `agent-serve stop` has stopped this build. */
/** `request` without the token's query parameter (the header is removed by the caller). */
export function withoutTokenParam(request: Request): Request {
  const url = new URL(request.url);
  if (!url.searchParams.has(ALIAS_TOKEN_PARAM)) return request;
  url.searchParams.delete(ALIAS_TOKEN_PARAM);
  return new Request(url, request);
}

export function isStopped(deployment: DeploymentOptions, env: Record<string, unknown>): boolean {
  return env[STOPPED_SECRET] === deployment.buildId;
}

/**
 * Throws the {@link HTTPError} a request gets at the gate, or returns when it may pass. The
 * health checks (`/v1/health`, `/<slug>/v1/health`) stay open so a monitor needs no token.
 */
export async function checkGate(request: Request, deployment: DeploymentOptions, env: Record<string, unknown>): Promise<void> {
  const url = new URL(request.url);
  const health = /^(\/[^/]+)?\/v1\/health\/?$/.test(url.pathname);
  if (!health) {
    const expected = env[ALIAS_TOKEN_SECRET];
    if (typeof expected !== "string" || expected === "") {
      throw new HTTPError({ status: 503, code: "alias_token_not_set", message: `this deployment has no alias token yet: run agent-serve rotate-token to set one (the ${ALIAS_TOKEN_SECRET} secret)` });
    }
    const given = request.headers.get(ALIAS_TOKEN_HEADER) ?? url.searchParams.get(ALIAS_TOKEN_PARAM) ?? "";
    if (!constantTimeEqual(given, expected)) {
      throw new HTTPError({ status: 401, code: "alias_token_invalid", message: `missing or wrong ${ALIAS_TOKEN_HEADER} header: send the deployment's alias token (agent-serve … --prod sends it for you)` });
    }
  }
  if (isStopped(deployment, env)) {
    throw new HTTPError({ status: 503, code: "deployment_stopped", message: "this deployment is stopped (agent-serve stop): run agent-serve deploy to serve again" });
  }
}

