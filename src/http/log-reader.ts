/**
 * Who may read the host log (`GET /v1/logs`): its lines name every principal's sessions, so only
 * the host's operator reads it (docs/design/logging.md "Who reads the log").
 * @module
 */
import { HTTPError } from "../base/errors.ts";
import type { RouteContext } from "./route.ts";

/**
 * The operator: a caller that already sees every session (dev loopback callers, anonymous
 * deployments), a loopback caller (the machine whose terminal prints the same lines), or the
 * holder of a single shared bearer token (the one credential the operator configured). A
 * principal a verifier told apart from others (OAuth, a custom chain) is one user among many.
 */
export function isLogReader(call: Pick<RouteContext, "auth" | "wide">): boolean {
  if (call.wide) return true;
  if (call.auth.principalType === "local") return true;
  return call.auth.authenticator === "bearerAuth" && call.auth.principalId === "bearer";
}

export function assertLogReader(call: Pick<RouteContext, "auth" | "wide">): void {
  if (isLogReader(call)) return;
  throw new HTTPError({ status: 403, code: "forbidden", message: "the host log is the operator's: it names other principals' sessions" });
}
