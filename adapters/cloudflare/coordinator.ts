/**
 * The coordinator Durable Object (one per worker, named `coordinator`; docs/design/cloudflare.md):
 * it holds what belongs to no one session (continuation-token bindings, the session listing's
 * copies of session records, the turn-slot queue, schedules, reminders, artifacts, eval runs,
 * channel cursors, kv), serves everything that is not one session's route (info, tools, MCP,
 * discovery, evals, listings, artifacts, channels, `/v1/chat`) and fires schedules and reminders
 * from its alarm and the cron trigger. It runs no turns: a session it starts is created in that
 * session's own object.
 * @module
 */
import { createHost } from "../../src/host/host.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { alarmTimers } from "./alarm-timers.ts";
import { COORDINATOR_NAME } from "./coordinator-name.ts";
import { type CloudflareWorkerOptions, loadProjects, sharedHostOptions } from "./host-options.ts";
import { objectStorage, type ObjectStorage } from "./object-storage.ts";
import { sendPlaced } from "./placed-calls.ts";
import type { CloudflareEnv, DurableObjectStateLike, DurableObjectClass } from "./platform.ts";
import { STORAGE_HEADER } from "../../drivers/durable-object/storage-wire.ts";

export { COORDINATOR_NAME };

/** What a request to the coordinator is, besides ordinary HTTP: set only by this adapter. */
export type CoordinatorCall = "ops" | "tick";

export function coordinatorClass(options: CloudflareWorkerOptions): DurableObjectClass {
  return class AgentCoordinator {
    readonly #ctx: DurableObjectStateLike;
    readonly #env: CloudflareEnv;
    readonly #storage: ObjectStorage;
    readonly #timers: ReturnType<typeof alarmTimers>;
    #host: Promise<AgentHost> | undefined;

    constructor(ctx: DurableObjectStateLike, env: CloudflareEnv) {
      this.#ctx = ctx;
      this.#env = env;
      this.#storage = objectStorage(ctx, env);
      this.#timers = alarmTimers(ctx.storage, (error) => console.error("[agent-serve] [cloudflare] alarm", error));
    }

    async fetch(request: Request): Promise<Response> {
      switch (request.headers.get(STORAGE_HEADER) as CoordinatorCall | null) {
        case "ops":
          return this.#storage.endpoint(request);
        case "tick": {
          const at = Number(await request.text());
          const host = await this.#started();
          return Response.json(await host.tick(Number.isFinite(at) && at > 0 ? at : undefined));
        }
        default: {
          const host = await this.#started();
          return host.fetch(request, { env: this.#env, waitUntil: (promise) => this.#ctx.waitUntil(promise) });
        }
      }
    }

    /** The alarm: fire what is due, then set the alarm at the earliest time still armed. */
    async alarm(): Promise<void> {
      const host = await this.#started();
      await host.tick();
      const next = this.#timers.next();
      if (next !== undefined) this.#timers.wakeAt(next);
    }

    /** The host, built on first use; its start-up arms timed work and resumes eval runs. */
    #started(): Promise<AgentHost> {
      const started = (this.#host ??= (async () => {
        const projects = await loadProjects(options);
        const stores = await Promise.all(projects.map(({ slug }) => this.#storage.placed(slug, "coordinator")));
        const host = createHost({
          ...sharedHostOptions(options, this.#env),
          agents: projects.map(({ slug, project }, i) => ({ slug, project, storage: stores[i]! })),
          timers: this.#timers,
          placement: {
            // One owner across instances: the leases a dead predecessor held (timed work) are its own.
            owner: COORDINATOR_NAME,
            send: (slug, sessionId, call) => sendPlaced(this.#env, slug, sessionId, call),
          },
        });
        await host.ready();
        return host;
      })());
      // A failed start (a project that throws) is tried again by the next request.
      started.catch(() => {
        if (this.#host === started) this.#host = undefined;
      });
      return started;
    }
  };
}
