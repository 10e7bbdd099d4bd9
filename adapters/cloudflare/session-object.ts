/**
 * The session Durable Object (one per session, named by the session id; docs/design/cloudflare.md):
 * the session lives here. Its record, event and conversation logs, active marker, parked calls and
 * turn lease are in this object's own database; its turns run in this object's host, whoever
 * started them (the HTTP create routed here, or a schedule, channel, eval, `/v1/chat` or MCP
 * `ask` in the coordinator, which sends the create here); every request about it reaches it.
 * Other objects read and write what lives here through the storage endpoint.
 * @module
 */
import { createHost } from "../../src/host/host.ts";
import { newSessionId } from "../../src/base/ids.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { alarmTimers } from "./alarm-timers.ts";
import { type CloudflareWorkerOptions, loadProjects, sharedHostOptions } from "./host-options.ts";
import { objectStorage, type ObjectStorage } from "./object-storage.ts";
import { answerPlaced, PLACED_HEADER, sendPlaced } from "./placed-calls.ts";
import type { PlacedStorage } from "../../drivers/durable-object/placed-storage.ts";
import type { CloudflareEnv, DurableObjectStateLike, DurableObjectClass } from "./platform.ts";
import { STORAGE_HEADER } from "../../drivers/durable-object/storage-wire.ts";

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
    readonly #storage: ObjectStorage;
    #host: Promise<{ host: AgentHost; stores: PlacedStorage[] }> | undefined;
    /** The id the next created session takes; consumed once. */
    #newSessionId: string | undefined;
    readonly #timers: ReturnType<typeof alarmTimers>;

    constructor(ctx: DurableObjectStateLike, env: CloudflareEnv) {
      this.#ctx = ctx;
      this.#env = env;
      this.#storage = objectStorage(ctx, env);
      this.#timers = alarmTimers(ctx.storage, (error) => console.error("[agent-serve] [cloudflare] alarm", error));
    }

    async fetch(request: Request): Promise<Response> {
      // Another object reading or writing what lives here: no host needed.
      if (request.headers.get(STORAGE_HEADER) === "ops") return this.#storage.endpoint(request);
      const sessionId = request.headers.get(SESSION_HEADER) ?? placedSession(request);
      if (!sessionId) return new Response("not a session request", { status: 400 });
      const { host } = await this.#started(sessionId);
      let response: Response;
      if (request.headers.has(PLACED_HEADER)) response = await answerPlaced(host, sessionId, request);
      else {
        const forwarded = new Request(request);
        const created = forwarded.headers.get(NEW_SESSION_HEADER);
        if (created === sessionId) this.#newSessionId = created;
        forwarded.headers.delete(NEW_SESSION_HEADER);
        forwarded.headers.delete(SESSION_HEADER);
        response = await host.fetch(forwarded, { env: this.#env, waitUntil: (promise) => this.#ctx.waitUntil(promise) });
      }
      this.#timers.wakeAt(Date.now() + KEEP_ALIVE_MS);
      return response;
    }

    /**
     * Fires the reminders due (a turn here armed them), pushes a session-listing update the
     * coordinator missed, and wakes again while the session has an open turn: a fresh instance's
     * start-up recovers a dead one.
     */
    async alarm(): Promise<void> {
      const sessionId = await this.#ctx.storage.get<string>(SESSION_KEY);
      if (sessionId === undefined) return;
      const { host, stores } = await this.#started(sessionId);
      await host.tick();
      // Still unreachable: the next alarm or commit tries again.
      await Promise.all(stores.map((store) => store.flushMirror().catch(() => {})));
      const next = this.#timers.next();
      if (next !== undefined) this.#timers.wakeAt(next);
      const open = await Promise.all(stores.map((store) => store.get(`active/${sessionId}`)));
      if (open.some((owner) => owner !== undefined)) this.#timers.wakeAt(Date.now() + KEEP_ALIVE_MS);
    }

    #started(sessionId: string): Promise<{ host: AgentHost; stores: PlacedStorage[] }> {
      const started = (this.#host ??= (async () => {
        if ((await this.#ctx.storage.get<string>(SESSION_KEY)) !== sessionId) await this.#ctx.storage.put(SESSION_KEY, sessionId);
        const projects = await loadProjects(options);
        const stores = await Promise.all(projects.map(({ slug }) => this.#storage.placed(slug, { session: sessionId })));
        const host = createHost({
          ...sharedHostOptions(options, this.#env),
          agents: projects.map(({ slug, project }, i) => ({ slug, project, storage: stores[i]! })),
          // The coordinator fires schedules. Reminders fire from the alarm of the object whose
          // host knows them: this one for those its turns arm (the alarm outlives an eviction).
          schedules: false,
          timers: this.#timers,
          placement: {
            session: sessionId,
            // One owner across instances: a new one takes over what its dead predecessor held.
            owner: `session_${sessionId}`,
            send: (slug, id, call) => sendPlaced(this.#env, slug, id, call),
            newSessionId: () => {
              // A session started from inside a turn here (a tool's send) gets an ordinary id, and
              // its own object.
              const id = this.#newSessionId ?? newSessionId();
              this.#newSessionId = undefined;
              return id;
            },
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

/** The session a placed call is for: its URL is `/<sessionId>/placed`. */
function placedSession(request: Request): string | undefined {
  if (!request.headers.has(PLACED_HEADER)) return undefined;
  return new URL(request.url).pathname.split("/")[1] || undefined;
}
