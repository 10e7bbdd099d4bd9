/**
 * The account bridge of a deployed worker (docs/guide/cloudflare.md "The account bridge and the
 * pod credential"): `POST [/<slug>]/v1/host-account/:connection/mcp` relays one MCP request to
 * the agent's HTTP connection `:connection` with the credentials the deployment holds (its
 * headers' `${NAME}` templates resolved from the worker's secrets), so a runtime outside the
 * worker reaches the agent's connections without holding their credentials. The caller proves
 * itself with the pod credential, `Authorization: Bearer <AGENT_SERVE_POD_CREDENTIAL>`, compared
 * in constant time; the agent's auth chain never runs here and never admits a caller here.
 * `agent-serve rotate-pod-credential` replaces the secret, and the old one is refused at once.
 * @module
 */
import { HTTPError } from "../../src/base/errors.ts";
import type { ConnectionDefinition } from "../../src/base/definitions/harness.ts";
import { constantTimeEqual } from "../../src/base/constant-time.ts";
import type { CloudflareProject } from "./host-options.ts";

/** The worker secret holding the pod credential. */
export const POD_CREDENTIAL_SECRET = "AGENT_SERVE_POD_CREDENTIAL";
/** The path segment naming the bridge: `/v1/host-account/:connection/mcp`. */
export const ACCOUNT_SEGMENT = "host-account";
/** The largest MCP request relayed. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Request headers an MCP client sends that the relay passes on; everything else stays here. */
const PASSED_HEADERS = ["content-type", "accept", "mcp-protocol-version", "mcp-session-id", "last-event-id"];
/** Answer headers passed back. */
const ANSWERED_HEADERS = ["content-type", "mcp-session-id", "cache-control"];

export interface BridgeTarget {
  /** The agent's slug (multi mode), or undefined (single mode). */
  slug: string | undefined;
  connection: string;
}

/** The bridge target of `url`, or undefined when it is not a bridge path. */
export function matchAccountBridge(url: URL, mode: "single" | "multi"): BridgeTarget | undefined {
  const match = new RegExp(`^${mode === "multi" ? "/([^/]+)" : "()"}/v1/${ACCOUNT_SEGMENT}/([^/]+)/mcp/?$`).exec(url.pathname);
  if (!match) return undefined;
  return { slug: mode === "multi" ? decodeURIComponent(match[1]!) : undefined, connection: decodeURIComponent(match[2]!) };
}

/** Relays the request, or throws the {@link HTTPError} it gets. */
export async function relayAccountRequest(request: Request, target: BridgeTarget, projects: CloudflareProject[], env: Record<string, unknown>): Promise<Response> {
  const expected = env[POD_CREDENTIAL_SECRET];
  if (typeof expected !== "string" || expected === "") {
    throw new HTTPError({ status: 503, code: "pod_credential_not_set", message: `this deployment has no pod credential yet: run agent-serve rotate-pod-credential to set one (the ${POD_CREDENTIAL_SECRET} secret)` });
  }
  const given = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!constantTimeEqual(given, expected)) {
    throw new HTTPError({ status: 401, code: "pod_credential_invalid", message: "missing or wrong pod credential: send Authorization: Bearer <the deployment's pod credential>", headers: { "www-authenticate": 'Bearer realm="agent-serve-account-bridge"' } });
  }
  if (request.method !== "POST") throw new HTTPError({ status: 405, code: "method_not_allowed", message: "the account bridge takes MCP requests as POST", headers: { allow: "POST" } });
  const project = target.slug === undefined ? projects[0] : projects.find((p) => p.slug === target.slug);
  const connections = project?.project.connections ?? {};
  const connection: ConnectionDefinition | undefined = Object.hasOwn(connections, target.connection) ? connections[target.connection] : undefined;
  if (!project || !connection || !("url" in connection)) {
    const known = Object.entries(connections).filter(([, c]) => "url" in c && !c.oauth).map(([name]) => name).sort().join(", ") || "none";
    throw new HTTPError({ status: 404, code: "connection_not_found", message: `no HTTP connection "${target.connection}" on this agent (bridged connections: ${known})` });
  }
  if (connection.oauth) {
    throw new HTTPError({ status: 404, code: "connection_not_found", message: `connection "${target.connection}" takes OAuth, whose tokens a worker does not hold: the bridge relays connections whose credentials are worker secrets` });
  }
  const body = await request.arrayBuffer();
  if (body.byteLength > MAX_BODY_BYTES) throw new HTTPError({ status: 413, code: "payload_too_large", message: `an MCP request through the bridge may be at most ${MAX_BODY_BYTES} bytes` });
  const headers = new Headers();
  for (const name of PASSED_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  for (const [name, value] of Object.entries(connection.headers ?? {})) headers.set(name, resolveTemplate(value, env, target.connection));
  let answer: Response;
  try {
    answer = await fetch(connection.url, { method: "POST", headers, body });
  } catch (error) {
    throw new HTTPError({ status: 502, code: "connection_unreachable", message: `connection "${target.connection}" could not be reached`, cause: error });
  }
  const passed = new Headers();
  for (const name of ANSWERED_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) passed.set(name, value);
  }
  return new Response(answer.body, { status: answer.status, headers: passed });
}

// --- internals ---

/** `${NAME}` from the worker's secrets and variables; a missing one is the deployment's fault, said so. */
function resolveTemplate(value: string, env: Record<string, unknown>, connection: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    const found = env[name];
    if (typeof found !== "string") {
      throw new HTTPError({ status: 503, code: "connection_unavailable", message: `connection "${connection}" needs the ${name} secret, which this deployment does not set: agent-serve secrets set ${name} --target cloudflare` });
    }
    return found;
  });
}
