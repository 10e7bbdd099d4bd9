/**
 * The agent's A2A endpoints (docs/guide/a2a.md): its agent card, public as the protocol's
 * discovery requires, and the JSON-RPC binding behind the agent's auth chain.
 * @module
 */
import { readBodyText } from "../../base/body.ts";
import { HTTPError } from "../../base/errors.ts";
import { AGENT_CARD_PATH, type CardInput, JSONRPC_PATH, buildAgentCard, hasExtendedCard } from "../../features/a2a/card.ts";
import { handleJsonRpc } from "../../features/a2a/jsonrpc.ts";
import type { AuthContext } from "../../base/auth.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { TagInput } from "../../base/definitions/artifacts.ts";
import type { A2AAgent } from "../../features/a2a/agent.ts";
import { type RouteContext, defineRoute } from "../route.ts";

export const agentCard = defineRoute({
  method: "GET",
  path: AGENT_CARD_PATH,
  auth: "none",
  summary: "The A2A agent card: name, skills, capabilities, endpoints and security (ETag, cacheable)",
  handler({ request, url, agent, host }) {
    const card = buildAgentCard({
      project: agent.project, agentUrl: `${url.origin}${agent.basePath}`, version: host.version, auth: cardAuth(agent.project.channels?.["http"]?.auth, host.authMode),
    });
    const body = JSON.stringify(card);
    const etag = `"${fnv1a(body)}"`;
    const headers = { etag, "cache-control": "public, max-age=300", vary: "host, x-forwarded-host, x-forwarded-proto" };
    if (request.headers.get("if-none-match")?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(body, { headers: { ...headers, "content-type": "application/json; charset=utf-8" } });
  },
});

export const a2aJsonRpc = defineRoute({
  method: "POST",
  path: JSONRPC_PATH,
  auth: "agent",
  summary: "A2A JSON-RPC 2.0 (1.0 methods and the 0.3 names): SendMessage, SendStreamingMessage (SSE), GetTask, ListTasks, CancelTask, SubscribeToTask (SSE)",
  async handler({ request, url, agent, auth, host }) {
    requireJson(request);
    const body = await readBodyText(request, host.maxBodyBytes);
    return handleJsonRpc({ ...a2aCall({ request, url, agent, auth, host }), request }, body);
  },
});

/**
 * What an A2A operation runs with: the agent's face, the principal, and a signal that ends its
 * waits (a blocking send, a stream) when the client leaves or the host closes; `release` drops
 * the listeners once the answer is complete.
 */
export function a2aCall({ request, url, agent, auth, host }: Pick<RouteContext, "request" | "url" | "agent" | "auth" | "host">): {
  agent: A2AAgent;
  auth: AuthContext;
  signal: AbortSignal;
  logger: HostLogger;
  release(): void;
} {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  request.signal.addEventListener("abort", onAbort, { once: true });
  const unsubscribe = host.closing.subscribe(onAbort);
  return {
    agent: {
      sessions: agent.sessions,
      log: agent.log,
      approvals: agent.approvals,
      storage: agent.storage,
      allowPrivatePush: host.dev || agent.project.agent.a2a?.allowPrivatePushTargets === true,
      catchUpPush: (config) => agent.a2aPush.catchUp(config),
      ...(acceptsAttachments(agent) ? { attachments: { tag: (input: TagInput) => agent.artifacts.tag(input, { source: "host" }) } } : {}),
      ...(agent.runtime?.resolveHost ? { resolveHost: (hostname: string) => agent.runtime!.resolveHost!(hostname) } : {}),
      extendedCard: () => (hasExtendedCard(agent.project) ? buildAgentCard(cardInput({ url, agent, host }), true) : undefined),
    },
    auth,
    signal: stop.signal,
    logger: host.logger,
    release() {
      unsubscribe();
      request.signal.removeEventListener("abort", onAbort);
    },
  };
}

/** A2A bodies are JSON (`application/json`, or the protocol's `application/a2a+json`): anything else is 415. */
export function requireJson(request: Request): void {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && type !== "application/a2a+json") {
    throw new HTTPError({ status: 415, code: "unsupported_media_type", message: "A2A requests are application/json (or application/a2a+json)" });
  }
}

// --- internals ---

/** File parts are kept as artifacts of kind `attachment`: a project declaring kinds must declare it. */
function acceptsAttachments(agent: RouteContext["agent"]): boolean {
  const kinds = agent.project.artifacts?.kinds;
  return !kinds || Object.keys(kinds).length === 0 || Object.hasOwn(kinds, "attachment");
}

function cardInput({ url, agent, host }: Pick<RouteContext, "url" | "agent" | "host">): CardInput {
  return { project: agent.project, agentUrl: `${url.origin}${agent.basePath}`, version: host.version, auth: cardAuth(agent.project.channels?.["http"]?.auth, host.authMode) };
}

/** An authored HTTP channel chain is code the card cannot describe. */
function cardAuth(authored: unknown, started: "bearer" | "loopback" | "anonymous" | "custom"): "bearer" | "loopback" | "anonymous" | "custom" {
  return authored === undefined ? started : "custom";
}

/** A short content hash for the ETag (FNV-1a, 32 bits): a cache validator, not a security measure. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
