/**
 * Push notification delivery (docs/guide/a2a.md "Push notifications"), on the durable delivery
 * of channels (../channels/delivery.ts, docs/design/channels.md "Delivery"): per session, in
 * index order, from a stored cursor that survives a crash, retried with backoff, at least once.
 * Each post carries an id stable across retries and restarts for the receiver to drop repeats.
 * @module
 */
import type { ChannelEventContext } from "../../base/definitions/channels.ts";
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import { ChannelDelivery } from "../channels/delivery.ts";
import { type A2AAgent, A2A_CHANNEL } from "./agent.ts";
import { type PushConfig, configsOf } from "./push-configs.ts";
import { type TaskFold, emptyFold, foldTaskEvent } from "./task-fold.ts";
import type { StreamResponse } from "./wire.ts";

export interface PushDeliveryDeps {
  log: EventLogView;
  storage: A2AAgent["storage"];
  store: Pick<SessionRecordsView, "get">;
  /** Whether this host delivers the session's events (sessions placed in hosts of their own). */
  delivers(sessionId: string): boolean;
  logger: HostLogger;
  retryDelaysMs?: readonly number[];
  /** The fetch posts go through. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Sessions whose fold is kept between events; a forgotten one is folded again from its log. */
const MAX_FOLDS = 1000;
const POST_TIMEOUT_MS = 10_000;

export class A2APushDelivery {
  readonly #delivery: ChannelDelivery;
  readonly #deps: PushDeliveryDeps;
  readonly #folds = new Map<string, { fold: TaskFold; next: number }>();

  constructor(deps: PushDeliveryDeps) {
    this.#deps = deps;
    this.#delivery = new ChannelDelivery({
      channels: new Map([[A2A_CHANNEL, { events: { "*": (event: Readonly<SessionEvent>) => this.#deliver(event) } }]]),
      log: deps.log,
      storage: deps.storage,
      session: async (sessionId) => deps.store.get(sessionId),
      ownerOfNew: (channel) => channel,
      // The push handler keeps no channel state.
      saveState: async () => {},
      // SAFETY: the push handler reads nothing of the channel services, so none are built.
      context: () => ({}) as Omit<ChannelEventContext, "attempt">,
      delivers: deps.delivers,
      logger: deps.logger,
      ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
    });
  }

  /** Follows new events and resumes the deliveries a previous process left unfinished. */
  start(): Promise<void> {
    return this.#delivery.start();
  }

  close(timeoutMs?: number): Promise<void> {
    return this.#delivery.close(timeoutMs);
  }

  // --- internals ---

  /** Posts the task updates `event` makes to each config of its task; throws to be retried. */
  async #deliver(event: Readonly<SessionEvent>): Promise<void> {
    const updates = await this.#updatesOf(event);
    if (updates.length === 0) return;
    const configs = await configsOf(this.#deps.storage, event.sessionId);
    if (configs.length === 0) return;
    for (const [position, { taskId, update }] of updates.entries()) {
      for (const config of configs) {
        if (config.taskId === taskId) await this.#post(config, update, `${event.sessionId}.${event.index}.${position}`);
      }
    }
  }

  /**
   * The updates of one event, from a fold kept per session. A fold that lags is caught up from
   * the log; one already past the event (a retry) is rebuilt from the start.
   */
  async #updatesOf(event: Readonly<SessionEvent>): Promise<Array<{ taskId: string; update: StreamResponse }>> {
    let entry = this.#folds.get(event.sessionId);
    if (!entry || entry.next > event.index) entry = { fold: emptyFold(), next: 0 };
    if (entry.next < event.index) {
      for (const earlier of await this.#deps.log.readEvents(event.sessionId, entry.next)) {
        if (earlier.index >= event.index) break;
        foldTaskEvent(entry.fold, earlier);
      }
    }
    const updates = foldTaskEvent(entry.fold, event);
    entry.next = event.index + 1;
    // Re-inserted, so the oldest-used fold is the first forgotten.
    this.#folds.delete(event.sessionId);
    this.#folds.set(event.sessionId, entry);
    if (this.#folds.size > MAX_FOLDS) this.#folds.delete(this.#folds.keys().next().value as string);
    return updates;
  }

  async #post(config: PushConfig, update: StreamResponse, id: string): Promise<void> {
    const headers: Record<string, string> = { "content-type": "application/json", "a2a-notification-id": id };
    if (config.token) headers["x-a2a-notification-token"] = config.token;
    if (config.authentication) headers["authorization"] = `${config.authentication.scheme}${config.authentication.credentials ? ` ${config.authentication.credentials}` : ""}`;
    const response = await (this.#deps.fetch ?? fetch)(config.url, {
      method: "POST",
      headers,
      body: JSON.stringify(update),
      redirect: "manual",
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`push notification ${id} to ${new URL(config.url).origin} answered ${response.status}`);
  }
}
