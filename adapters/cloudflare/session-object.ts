/**
 * The session Durable Object (one per session, named by the session id; docs/design/cloudflare.md):
 * every request about one session reaches it, so its host runs the session's turns, holds the
 * parked approvals and serves the live followers of its stream. Its records and logs live in the
 * coordinator's database, reached through the storage protocol.
 * @module
 */
import { createHost } from "../../src/host.ts";
import { newSessionId } from "../../src/ids.ts";
import type { AgentHost } from "../../src/types.ts";
import { alarmTimers } from "./alarm-timers.ts";
import { COORDINATOR_NAME } from "./coordinator.ts";
import { answeredNothing, mayLiveElsewhere } from "./elsewhere.ts";
import { type CloudflareWorkerOptions, loadProjects, sharedHostOptions } from "./host-options.ts";
import type { CloudflareEnv, DurableObjectStateLike, DurableObjectStubLike, DurableObjectClass } from "./platform.ts";
import { loadEarlierOwners, releaseEarlierLeases, scopeRecovery } from "./recovery-scope.ts";
import { createRemoteStorage, type RemoteStorage } from "./remote-storage.ts";
import { STORAGE_HEADER } from "./storage-wire.ts";

/** Set by the worker on every request it forwards here: the session this object holds. */
export const SESSION_HEADER = "x-agent-serve-session";
/** Set by the worker on `POST /v1/session`: the id the new session gets (the object's name). */
export const NEW_SESSION_HEADER = "x-agent-serve-new-session";

const SESSION_KEY = "agent-serve:session-id";
/** While a turn may be running, the object wakes this often: it stays in memory, and a new instance recovers. */
const KEEP_ALIVE_MS = 10_000;

export function sessionClass(options: CloudflareWorkerOptions): DurableObjectClass {
  return class AgentSession {
    readonly #ctx: DurableObjectStateLike;
    readonly #env: CloudflareEnv;
    #host: Promise<{ host: AgentHost; stores: RemoteStorage[] }> | undefined;
    /** The id the next created session takes; consumed once. */
    #newSessionId: string | undefined;
    readonly #timers: ReturnType<typeof alarmTimers>;

    constructor(ctx: DurableObjectStateLike, env: CloudflareEnv) {
      this.#ctx = ctx;
      this.#env = env;
      this.#timers = alarmTimers(ctx.storage, (error) => console.error("[agent-serve] [cloudflare] alarm", error));
    }

    async fetch(request: Request): Promise<Response> {
      const sessionId = request.headers.get(SESSION_HEADER);
      if (!sessionId) return new Response("not a session request", { status: 400 });
      const { host } = await this.#started(sessionId);
      const forwarded = new Request(request);
      const created = forwarded.headers.get(NEW_SESSION_HEADER);
      if (created === sessionId) this.#newSessionId = created;
      forwarded.headers.delete(NEW_SESSION_HEADER);
      forwarded.headers.delete(SESSION_HEADER);
      const elsewhere = mayLiveElsewhere(forwarded) ? forwarded.clone() : undefined;
      const response = await host.fetch(forwarded, { env: this.#env, waitUntil: (promise) => this.#ctx.waitUntil(promise) });
      await this.#keepAwake();
      if (elsewhere && (await answeredNothing(response))) return coordinatorStub(this.#env).fetch(elsewhere);
      return response;
    }

    /**
     * Fires the reminders due (a turn here armed them), and wakes again while the session has an
     * open turn: a fresh instance's start-up recovers a dead one.
     */
    async alarm(): Promise<void> {
      const sessionId = await this.#ctx.storage.get<string>(SESSION_KEY);
      if (sessionId === undefined) return;
      const { host, stores } = await this.#started(sessionId);
      await host.tick();
      const next = this.#timers.next();
      if (next !== undefined) this.#timers.wakeAt(next);
      const open = await Promise.all(stores.map((store) => store.get(`active/${sessionId}`)));
      if (open.some((owner) => owner !== undefined)) this.#timers.wakeAt(Date.now() + KEEP_ALIVE_MS);
    }

    async #keepAwake(): Promise<void> {
      this.#timers.wakeAt(Date.now() + KEEP_ALIVE_MS);
    }

    #started(sessionId: string): Promise<{ host: AgentHost; stores: RemoteStorage[] }> {
      const started = (this.#host ??= (async () => {
        if ((await this.#ctx.storage.get<string>(SESSION_KEY)) !== sessionId) await this.#ctx.storage.put(SESSION_KEY, sessionId);
        const projects = await loadProjects(options);
        const earlier = await loadEarlierOwners(this.#ctx.storage);
        const coordinator = coordinatorStub(this.#env);
        const stores = projects.map(({ slug }) =>
          createRemoteStorage(
            (wire, signal) =>
              coordinator.fetch(
                new Request("https://coordinator.agent-serve.internal/storage", {
                  method: "POST",
                  headers: { [STORAGE_HEADER]: "ops", "content-type": "application/json" },
                  body: JSON.stringify(wire),
                  ...(signal ? { signal } : {}),
                }),
              ),
            slug,
          ),
        );
        // Before the host starts, so its recovery finds the dead instance's turn open to close.
        await releaseEarlierLeases(
          earlier,
          stores.map((store) => ({ key: `turns/${sessionId}`, holder: (key) => store.leaseHolder(key), release: (key, owner) => store.releaseLease(key, owner) })),
        );
        const host = createHost({
          ...sharedHostOptions(options, this.#env),
          agents: projects.map(({ slug, project }, i) => ({
            slug,
            project,
            storage: scopeRecovery(stores[i]!, this.#ctx.storage, earlier, { leaseHolder: (key) => stores[i]!.leaseHolder(key), onlySession: sessionId }),
          })),
          // The coordinator fires schedules. Reminders fire from the alarm of the object whose
          // host knows them: this one for those its turns arm (the alarm outlives an eviction).
          schedules: false,
          timers: this.#timers,
          newSessionId: () => {
            // A session started from inside a turn here (a tool's send) gets an ordinary id.
            const id = this.#newSessionId ?? newSessionId();
            this.#newSessionId = undefined;
            return id;
          },
        });
        await host.ready();
        return { host, stores };
      })());
      started.catch(() => {
        if (this.#host === started) this.#host = undefined;
      });
      return started;
    }
  };
}

/** The coordinator's stub. */
export function coordinatorStub(env: CloudflareEnv): DurableObjectStubLike {
  return env.AGENT_COORDINATOR.get(env.AGENT_COORDINATOR.idFromName(COORDINATOR_NAME));
}
