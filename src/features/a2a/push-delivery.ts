/**
 * Push notification delivery (docs/guide/a2a.md "Push notifications", docs/design/a2a-push.md):
 * the durable delivery of channels (../channels/delivery.ts) reads each session's events in index
 * order from a stored cursor, and turns them into task updates written to each config's outbox
 * (./push-outbox.ts), which posts them in order, at least once, retrying for hours. Each post
 * carries an id stable across retries and restarts for the receiver to drop repeats. A config
 * given inline with `SendMessage` is caught up on the updates its task made before it was stored,
 * so a task that finishes at once misses nothing.
 * @module
 */
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { KeyedLock } from "../../base/keyed-lock.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { ChannelDelivery } from "../channels/delivery.ts";
import { createEventWatcher } from "../channels/event-watcher.ts";
import { type A2AAgent, A2A_CHANNEL } from "./agent.ts";
import { type PushConfig, configsOf } from "./push-configs.ts";
import { type OutboxStorage, PushOutbox } from "./push-outbox.ts";
import { type TaskFold, emptyFold, foldTaskEvent, parseTaskId } from "./task-fold.ts";
import type { StreamResponse } from "./wire.ts";

export interface PushDeliveryDeps {
  log: EventLogView;
  storage: A2AAgent["storage"] & OutboxStorage;
  store: Pick<SessionRecordsView, "get">;
  /** Whether this host delivers the session's events (sessions placed in hosts of their own). */
  delivers(sessionId: string): boolean;
  logger: HostLogger;
  /** Delays between attempts of a storage write of the delivery (the channels' schedule). */
  retryDelaysMs?: readonly number[];
  /** Delays between attempts of a post to a receiver that fails. @default ./push-outbox.ts PUSH_RETRY_DELAYS_MS */
  pushRetryDelaysMs?: readonly number[];
  /** The fetch posts go through. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Sessions whose fold is kept between events; a forgotten one is folded again from its log. */
const MAX_FOLDS = 1000;

export class A2APushDelivery {
  readonly #delivery: ChannelDelivery;
  readonly #deps: PushDeliveryDeps;
  readonly #folds = new Map<string, { fold: TaskFold; next: number }>();
  readonly #outbox: PushOutbox;
  /** One session's events are turned into outbox entries, or caught up for a new config, at a time. */
  readonly #lock = new KeyedLock();
  /** Per session, the highest log index already turned into outbox entries here. */
  readonly #handled = new Map<string, number>();

  constructor(deps: PushDeliveryDeps) {
    this.#deps = deps;
    this.#outbox = new PushOutbox({
      storage: deps.storage,
      logger: deps.logger,
      ...(deps.pushRetryDelaysMs ? { retryDelaysMs: deps.pushRetryDelaysMs } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
    this.#delivery = createEventWatcher({
      channel: A2A_CHANNEL,
      events: { "*": (event: Readonly<SessionEvent>) => this.#deliver(event) },
      log: deps.log,
      storage: deps.storage,
      session: async (sessionId) => deps.store.get(sessionId),
      // Only sessions A2A opened are A2A's: a new session's owner is the channel it started on.
      ownerOfNew: (channel) => channel,
      delivers: deps.delivers,
      logger: deps.logger,
      ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
    });
  }

  /** Follows new events and resumes the deliveries and posts a previous process left unfinished. */
  async start(): Promise<void> {
    await this.#outbox.start();
    await this.#delivery.start();
  }

  async close(timeoutMs?: number): Promise<void> {
    await this.#delivery.close(timeoutMs);
    await this.#outbox.close(timeoutMs);
  }

  /**
   * A config given with `SendMessage` is stored after the turn started: the updates its task made
   * before (all of them, for a task that finished at once) are written to its outbox now, ahead of
   * any later one, under the ids they would have had.
   */
  async catchUp(config: PushConfig): Promise<void> {
    const task = parseTaskId(config.taskId);
    if (!task) return;
    await this.#lock.run(task.sessionId, async () => {
      const upTo = this.#handled.get(task.sessionId);
      if (upTo === undefined) return;
      const fold = emptyFold();
      for (const event of await this.#deps.log.readEvents(task.sessionId, 0)) {
        if (event.index > upTo) break;
        for (const [position, { taskId, update }] of foldTaskEvent(fold, event).entries()) {
          if (taskId === config.taskId) await this.#outbox.enqueue({ ...task, configId: config.id }, event.index, position, update);
        }
      }
    });
    this.#outbox.kick({ ...task, configId: config.id });
  }

  // --- internals ---

  /** Writes the task updates `event` makes to the outbox of each config of its task; throws to be retried. */
  #deliver(event: Readonly<SessionEvent>): Promise<void> {
    return this.#lock.run(event.sessionId, async () => {
      const updates = await this.#updatesOf(event);
      const configs = updates.length === 0 ? [] : await configsOf(this.#deps.storage, event.sessionId);
      const kicked = new Map<string, PushConfig>();
      for (const [position, { taskId, update }] of updates.entries()) {
        for (const config of configs) {
          if (config.taskId !== taskId) continue;
          const { turnId } = parseTaskId(taskId)!;
          await this.#outbox.enqueue({ sessionId: event.sessionId, turnId, configId: config.id }, event.index, position, update);
          kicked.set(config.id, config);
        }
      }
      this.#handled.set(event.sessionId, event.index);
      if (this.#handled.size > MAX_FOLDS) this.#handled.delete(this.#handled.keys().next().value as string);
      for (const config of kicked.values()) this.#outbox.kick({ sessionId: event.sessionId, turnId: parseTaskId(config.taskId)!.turnId, configId: config.id });
    });
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
}
