/**
 * `createCloudflareWorker`: the module worker and its two Durable Object classes
 * (docs/design/cloudflare.md "Routing"). The worker itself holds nothing: a request about one
 * session goes to that session's object, a new session to the object named by the id picked
 * here, everything else to the coordinator; the cron trigger ticks the coordinator's host.
 * @module
 */
import { toErrorResponse } from "../../src/base/errors.ts";
import { isSessionId, newSessionId } from "../../src/base/ids.ts";
import { endWhenClientLeaves } from "./client-gone.ts";
import { COORDINATOR_NAME, coordinatorClass } from "./coordinator.ts";
import { coordinatorStub, sessionStub } from "./object-storage.ts";
import { PLACED_HEADER } from "./placed-calls.ts";
import type { CloudflareWorkerOptions } from "./host-options.ts";
import type { CloudflareEnv, DurableObjectClass, ExecutionContextLike, ScheduledControllerLike } from "./platform.ts";
import { NEW_SESSION_HEADER, SESSION_HEADER, sessionClass } from "./session-object.ts";
import { STORAGE_HEADER } from "../../drivers/durable-object/storage-wire.ts";
import { ALIAS_TOKEN_HEADER, checkGate, isStopped, withoutTokenParam } from "./deployment-gate.ts";
import { matchAccountBridge, relayAccountRequest } from "./account-bridge.ts";
import { loadProjects } from "./host-options.ts";
import type { CloudflareProject } from "./host-options.ts";

export interface CloudflareWorker {
  fetch(request: Request, env: CloudflareEnv, ctx: ExecutionContextLike): Promise<Response>;
  scheduled(controller: ScheduledControllerLike, env: CloudflareEnv, ctx: ExecutionContextLike): Promise<void>;
}

export interface CloudflareApp {
  /** `export default app.worker`. */
  worker: CloudflareWorker;
  /** The session object class, bound as `AGENT_SESSION`. */
  AgentSession: DurableObjectClass;
  /** The coordinator class, bound as `AGENT_COORDINATOR`. */
  AgentCoordinator: DurableObjectClass;
}

/** Headers only this adapter may set; stripped from every request that comes from outside. */
const INTERNAL_HEADERS = [STORAGE_HEADER, SESSION_HEADER, NEW_SESSION_HEADER, PLACED_HEADER];

export function createCloudflareWorker(options: CloudflareWorkerOptions): CloudflareApp {
  const mode = options.mode ?? "multi";
  // Loaded by the first account-bridge request only: the worker itself otherwise holds no project.
  let projects: Promise<CloudflareProject[]> | undefined;
  const worker: CloudflareWorker = {
    async fetch(request, env) {
      // The alias token ends at the gate: no channel, hook or tool ever sees it.
      const inbound = new Request(withoutTokenParam(request));
      for (const name of [...INTERNAL_HEADERS, ALIAS_TOKEN_HEADER]) inbound.headers.delete(name);
      if (options.deployment) {
        const refused = await checkGate(request, options.deployment, env).then(() => undefined, toErrorResponse);
        if (refused) return refused;
      }
      // The account bridge relays to a connection with the worker's secrets: no object is needed.
      const bridged = matchAccountBridge(new URL(inbound.url), mode);
      if (bridged) {
        projects ??= loadProjects(options).catch((error: unknown) => {
          projects = undefined;
          throw error;
        });
        return relayAccountRequest(inbound, bridged, await projects, env).catch(toErrorResponse);
      }
      const target = routeOf(inbound, mode);
      try {
        if (target.kind === "coordinator") return endWhenClientLeaves(request, await coordinatorStub(env).fetch(inbound));
        inbound.headers.set(SESSION_HEADER, target.sessionId);
        if (target.kind === "create") inbound.headers.set(NEW_SESSION_HEADER, target.sessionId);
        return endWhenClientLeaves(request, await sessionStub(env, target.sessionId).fetch(inbound));
      } catch (error) {
        // An object that could not start its host (a project that throws, a broken binding).
        console.error("[agent-serve] [cloudflare] request failed", error);
        return toErrorResponse(error);
      }
    },
    async scheduled(controller, env, ctx) {
      // A stopped deployment fires nothing until the next deploy (docs/guide/cloudflare.md).
      if (options.deployment && isStopped(options.deployment, env)) return;
      const tick = coordinatorStub(env)
        .fetch(new Request("https://coordinator.agent-serve.internal/tick", { method: "POST", headers: { [STORAGE_HEADER]: "tick" }, body: String(controller.scheduledTime) }))
        .then(async (response) => {
          if (!response.ok) throw new Error(`[agent-serve] [cloudflare] tick failed: ${response.status} ${await response.text()}`);
        });
      ctx.waitUntil(tick);
      await tick;
    },
  };
  return { worker, AgentSession: sessionClass(options), AgentCoordinator: coordinatorClass(options) };
}

export { COORDINATOR_NAME };

// --- internals ---

type Target = { kind: "coordinator" } | { kind: "session" | "create"; sessionId: string };

/**
 * `[/<slug>]/v1/session/<id>[/...]` goes to the session's object; `POST [/<slug>]/v1/session`
 * creates one, under an id picked here. An id that is not one goes to the coordinator, whose host
 * answers 404 as for any unknown session.
 */
function routeOf(request: Request, mode: "single" | "multi"): Target {
  const path = new URL(request.url).pathname;
  const parts = path.split("/").slice(1);
  const rest = mode === "multi" ? parts.slice(1) : parts;
  if (mode === "multi" && (parts[0] ?? "") === "") return { kind: "coordinator" };
  if (rest[0] !== "v1" || rest[1] !== "session") return { kind: "coordinator" };
  if (rest.length === 2 && request.method === "POST") return { kind: "create", sessionId: newSessionId() };
  const sessionId = rest[2];
  if (sessionId === undefined || !isSessionId(sessionId)) return { kind: "coordinator" };
  return { kind: "session", sessionId };
}
