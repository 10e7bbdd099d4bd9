/**
 * The coordinator Durable Object (one per worker, named `coordinator`; docs/design/cloudflare.md):
 * it holds the database every host shares (records, logs, leases, for every agent under its slug),
 * answers the storage protocol of session objects, runs the host that serves everything that is
 * not one session's (info, tools, MCP, discovery, evals, listings, artifacts, channels) and fires
 * schedules and reminders from its alarm and the cron trigger.
 * @module
 */
import { createDurableObjectStorage, leaseHolder } from "../../drivers/durable-object/index.ts";
import { createHost } from "../../src/host.ts";
import type { StorageDriver } from "../../src/storage/types.ts";
import type { AgentHost } from "../../src/types.ts";
import { alarmTimers } from "./alarm-timers.ts";
import { type CloudflareWorkerOptions, loadProjects, sharedHostOptions } from "./host-options.ts";
import type { CloudflareEnv, DurableObjectStateLike, DurableObjectClass } from "./platform.ts";
import { loadEarlierOwners, scopeRecovery } from "./recovery-scope.ts";
import { STORAGE_HEADER, storageEndpoint } from "./storage-wire.ts";

/** The name of the one coordinator object. */
export const COORDINATOR_NAME = "coordinator";

/** What a request to the coordinator is, besides ordinary HTTP: set only by this adapter. */
export type CoordinatorCall = "ops" | "tick";

export function coordinatorClass(options: CloudflareWorkerOptions): DurableObjectClass {
  return class AgentCoordinator {
    readonly #ctx: DurableObjectStateLike;
    readonly #env: CloudflareEnv;
    readonly #drivers = new Map<string, StorageDriver>();
    readonly #timers: ReturnType<typeof alarmTimers>;
    #host: Promise<AgentHost> | undefined;
    readonly #storage = storageEndpoint(
      (namespace) => this.#driver(namespace),
      (namespace, key) => leaseHolder(this.#ctx.storage, key, namespace),
    );

    constructor(ctx: DurableObjectStateLike, env: CloudflareEnv) {
      this.#ctx = ctx;
      this.#env = env;
      this.#timers = alarmTimers(ctx.storage, (error) => console.error("[agent-serve] [cloudflare] alarm", error));
    }

    async fetch(request: Request): Promise<Response> {
      switch (request.headers.get(STORAGE_HEADER) as CoordinatorCall | null) {
        case "ops":
          return this.#storage(request);
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

    #driver(namespace: string): StorageDriver {
      let driver = this.#drivers.get(namespace);
      if (!driver) this.#drivers.set(namespace, (driver = createDurableObjectStorage(this.#ctx.storage, { namespace })));
      return driver;
    }

    /** The host, built on first use; its start-up recovers turns nobody runs any more and arms timed work. */
    #started(): Promise<AgentHost> {
      const started = (this.#host ??= (async () => {
        const projects = await loadProjects(options);
        const earlier = await loadEarlierOwners(this.#ctx.storage);
        // An earlier instance of this object is gone: its turn leases would only delay recovery.
        for (const { slug } of projects) this.#driver(slug); // creates the tables
        for (const owner of earlier) this.#ctx.storage.sql.exec("DELETE FROM leases WHERE owner = ?", owner).toArray();
        const host = createHost({
          ...sharedHostOptions(options, this.#env),
          agents: projects.map(({ slug, project }) => ({
            slug,
            project,
            storage: scopeRecovery(this.#driver(slug), this.#ctx.storage, earlier, {
              leaseHolder: async (key) => leaseHolder(this.#ctx.storage, key, slug),
            }),
          })),
          timers: this.#timers,
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
