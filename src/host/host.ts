/**
 * `createHost(options)`: the whole agent host as one `fetch(Request) => Response` handler over
 * the storage and model ports. Adapters bind it to a runtime; tests call it directly.
 * @module
 */
import { createAgentRuntime, type HostedAgent } from "./agent-runtime.ts";
import { VERSION } from "../features/discovery/version.ts";
import { toErrorResponse } from "../base/errors.ts";
import { defaultPolicies } from "../http/auth-chain.ts";
import type { ProtectedResource } from "../base/auth.ts";
import { createHostHandler } from "../http/dispatch/host-router.ts";
import type { HostServices } from "../http/route.ts";
import { randomId } from "../base/ids.ts";
import { createHostLogger, createLogBuffer } from "../base/logger.ts";
import { logRequest } from "../http/request-log.ts";
import { createClock } from "../features/timers/clock.ts";
import { type TimerPort, noTimers } from "../base/ports/timers.ts";
import type { AgentHost, AgentHostOptions, RequestContext } from "./types.ts";

const DEFAULTS = {
  mode: "multi",
  dev: false,
  maxBodyBytes: 1024 * 1024,
  drainTimeoutMs: 10_000,
} as const;

export function createHost(options: AgentHostOptions): AgentHost {
  const config = { ...DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const buffer = createLogBuffer();
  const logger = createHostLogger(options.logger, buffer, options.logLevel);
  const timers = chooseTimers(options, now, () => void host.tick().catch((error: unknown) => logger.error("timed work failed", error)));
  const timersContext = {
    timers,
    owner: options.placement?.owner ?? `host_${randomId(16)}`,
    automaticSchedules: options.schedules !== false || config.dev,
    internalRoutes: options.controlPlane === false,
  };
  const agents: HostedAgent[] = options.agents.map((mount) =>
    createAgentRuntime(mount, options, { logger, now, mode: config.mode, timers: timersContext }),
  );

  const closeListeners = new Set<() => void>();
  const services: HostServices = {
    dev: config.dev,
    maxBodyBytes: config.maxBodyBytes,
    closing: options.closing ?? {
      subscribe(listener) {
        closeListeners.add(listener);
        return () => closeListeners.delete(listener);
      },
    },
    logs: buffer,
    version: VERSION,
    logger,
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
    hostPolicies: defaultPolicies(options.auth),
    ...(options.auth?.oauth ? { oauth: protectedResource(options.auth.oauth) } : {}),
    authMode: options.auth?.policies ? "custom" : options.auth?.bearerToken || options.auth?.oauth ? "bearer" : options.auth?.allowAnonymous ? "anonymous" : "loopback",
  };
  const handle = createHostHandler(agents, services, {
    mode: config.mode,
    playground: options.playground ?? true,
    docs: options.docs,
  });

  let ready: Promise<void> | undefined;
  let isReady = false;
  let closed: Promise<void> | undefined;
  const whenReady = (): Promise<void> =>
    (ready ??= Promise.all(config.recoverOnStart === false ? [] : agents.map((agent) => agent.recover())).then(() => {
      isReady = true;
    }));

  const host: AgentHost = {
    async fetch(request: Request, context?: RequestContext): Promise<Response> {
      const started = performance.now();
      let response: Response;
      try {
        // Skipping the await once ready saves a promise hop on every request.
        if (!isReady) await whenReady();
        response = await handle(request, context?.ip ?? peerAddress(request));
      } catch (error) {
        response = toErrorResponse(error, logger);
      }
      logRequest(logger, request, response.status, performance.now() - started);
      return request.method === "HEAD" ? withoutBody(response) : response;
    },
    request(path, init, context) {
      // An in-process request is a loopback caller: it carries the loopback Host a real one would,
      // which the default policy requires (src/base/auth-policies.ts).
      const request = new Request(new URL(path, "http://127.0.0.1"), init);
      if (!request.headers.has("host")) request.headers.set("host", "127.0.0.1");
      return host.fetch(request, { ip: "127.0.0.1", ...context });
    },
    ready: whenReady,
    close() {
      closed ??= (async () => {
        await whenReady().catch(() => {});
        timers.close();
        await Promise.all(agents.map((agent) => agent.timed.close(config.drainTimeoutMs)));
        // A run still going ends as failed, its turns stopped, before turns drain.
        await Promise.all(agents.map((agent) => agent.evals.close()));
        // Parked turns do not hold the close up: they stay parked in storage for the next start.
        for (const agent of agents) agent.approvalStore.suspend();
        await Promise.all(agents.map((agent) => agent.controller.drain(config.drainTimeoutMs)));
        await Promise.all(agents.map((agent) => agent.closeCoordination()));
        // After turns: the last events of drained turns still reach channels, then onStop and waitUntil work.
        await Promise.all(agents.map((agent) => agent.channels.close(config.drainTimeoutMs)));
        await Promise.all(agents.map((agent) => agent.a2aPush.close(config.drainTimeoutMs)));
        await Promise.all(agents.map((agent) => agent.webhooks.close(config.drainTimeoutMs)));
        for (const listener of closeListeners) listener();
        await Promise.all(agents.map((agent) => agent.storage.close()));
      })();
      return closed;
    },
    // A turn parked for a human is not running: closing suspends it and the next host resumes it.
    runningTurns: () => agents.reduce((sum, agent) => sum + Math.max(0, agent.controller.unsettled - agent.approvalStore.waiting), 0),
    async send(message, options = {}) {
      await whenReady();
      const { slug, channel = "http", ...sendOptions } = options;
      const agent = slug === undefined && agents.length === 1 ? agents[0] : agents.find((a) => a.slug === slug);
      if (!agent) throw new Error(`[agent-serve] [host] no agent mounted as ${JSON.stringify(slug)}`);
      return agent.sessions.send(channel, message, sendOptions);
    },
    async runPlaced(slug, sessionId, call) {
      await whenReady();
      const agent = agents.find((a) => a.slug === slug);
      if (!agent) throw new Error(`[agent-serve] [host] no agent mounted as ${JSON.stringify(slug)}`);
      return agent.answer(sessionId, call);
    },
    async tick(at) {
      if (closed) return [];
      await whenReady();
      const time = at ?? now();
      const ticks = await Promise.all(agents.map((agent) => agent.timed.tick(time)));
      return ticks.map((tick, i) => ({ slug: agents[i]!.slug, ...tick }));
    },
    describeModels() {
      return agents.map((agent) => ({
        slug: agent.slug,
        model: agent.model.spec.id,
        ...(agent.model.notice ? { notice: agent.model.notice } : {}),
      }));
    },
    logs: buffer,
  };
  // Nothing else would load the armed work before the first request; a clock must not wait for one.
  if (timers !== noTimers) void whenReady().catch((error: unknown) => logger.error("start-up failed", error));
  return host;
}

// --- internals ---

/** The facts the metadata publishes, without the verifier (routes never see it). */
function protectedResource({ authorizationServers, scopesSupported, resourceName }: ProtectedResource): ProtectedResource {
  if (authorizationServers.length === 0) throw new Error("[agent-serve] [auth] auth.oauth needs at least one authorization server");
  return { authorizationServers, ...(scopesSupported ? { scopesSupported } : {}), ...(resourceName ? { resourceName } : {}) };
}

/**
 * Who wakes the host for timed work: nobody under `dev` (nothing fires automatically), the
 * caller's port when given, nobody under `controlPlane: false` (a platform calls the internal
 * routes), else the built-in clock.
 */
function chooseTimers(options: AgentHostOptions, now: () => number, onDue: () => void): TimerPort {
  if (options.dev) return noTimers;
  if (options.timers) return options.timers;
  if (options.controlPlane === false) return noTimers;
  return createClock({ onDue, now });
}

/** HEAD answers as GET would, without the body (a stream it opened is cancelled). */
function withoutBody(response: Response): Response {
  void response.body?.cancel().catch(() => {});
  return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** srvx's `ServerRequest` carries the TCP peer as `ip`; a plain `Request` has none. */
function peerAddress(request: Request): string | undefined {
  const ip = (request as Request & { ip?: unknown }).ip;
  return typeof ip === "string" ? ip : undefined;
}
