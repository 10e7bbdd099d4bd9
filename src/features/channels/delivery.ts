/**
 * Durable delivery of session events to the `events` handlers of the channel that owns the
 * session (docs/design/channels.md "Delivery").
 *
 * Guarantees: per session, events reach a channel in index order and at least once. The next
 * index to deliver is stored under `channels/<id>/delivered/<sessionId>` after each handled event,
 * so a host that crashes between an event and its delivery resumes there on start. A throwing
 * handler is retried with backoff, then logged and skipped (its cursor moves on).
 *
 * Built only on the event log's read and live fan-out and on session records, so it does not
 * depend on how turns or storage commit.
 * @module
 */
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { errorMessage } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ChannelBinding, ChannelDefinition, ChannelEventContext, ChannelEventHandler, ChannelState } from "../../base/definitions/channels.ts";
import { deliveryCursorKey, deliveryCursorPrefix as cursorPrefix } from "../../base/storage/keys.ts";

/** About 1, 2, 4, 8 and 16 seconds between attempts. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 16000];

/** What delivery needs of the session owning an event. */
export interface DeliverySession {
  channel: string;
  continuationToken: string;
  state?: Record<string, unknown>;
}

export interface DeliveryDeps {
  /** Channels with an `events` map, by id. */
  channels: ReadonlyMap<string, ChannelDefinition>;
  log: {
    readEvents(sessionId: string, from?: number): Promise<SessionEvent[]>;
    onEvent(listener: (event: SessionEvent) => void): () => void;
  };
  storage: {
    get(key: string): Promise<string | undefined>;
    set(key: string, value: string): Promise<void>;
    list(prefix: string): Promise<string[]>;
  };
  session(sessionId: string): Promise<DeliverySession | undefined>;
  /**
   * The owning channel `session(...)` would name, told from a new session's `session.started`
   * (its `channel`): given, a new session's owner is known without reading its record.
   * @default the record is read
   */
  ownerOfNew?: (channel: string) => string;
  /**
   * Persists the top-level keys of `channel.state` a handler changed (undefined: removed) over the
   * stored state; a whole-state write would undo what a `send` merged while the handler ran.
   */
  saveState(sessionId: string, changes: ChannelState): Promise<void>;
  /** The services handlers receive as their third argument (without `attempt`). */
  context(channelId: string): Omit<ChannelEventContext, "attempt">;
  logger: HostLogger;
  /** Delays between attempts of a throwing handler; its length is the number of retries. */
  retryDelaysMs?: readonly number[];
  /**
   * Whether this host delivers the session's events: where sessions live in hosts of their own,
   * only the one holding it does (docs/design/cloudflare.md "Where turns run"). @default all
   */
  delivers?: (sessionId: string) => boolean;
}

/** A session's delivery cursor key (removed with the session). */

/** Session owners remembered; a forgotten one costs one record read on its next event. */
const MAX_KNOWN_OWNERS = 10_000;

export class ChannelDelivery {
  readonly #deps: DeliveryDeps;
  readonly #delays: readonly number[];
  /** Session id → owning channel id (null: a session no channel with events owns). */
  readonly #owners = new Map<string, string | null>();
  readonly #pumps = new Map<string, { running: Promise<void>; again: boolean }>();
  readonly #sleeps = new Set<() => void>();
  #unsubscribe: (() => void) | undefined;
  /** Sessions with events seen between `watch` and `start`. */
  #early: Set<string> | undefined;
  #started = false;
  #closing = false;

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
    this.#delays = deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  /**
   * Notes the sessions that get events before `start` (start-up recovery closing a turn a crash
   * left open) without delivering yet: a crash between a session's first commit and its first
   * delivery cursor leaves no cursor to resume from, and those events are the only sign of it.
   */
  watch(): void {
    if (this.#deps.channels.size === 0 || this.#unsubscribe) return;
    this.#early = new Set();
    this.#unsubscribe = this.#deps.log.onEvent((event) => (this.#early ? this.#early.add(event.sessionId) : this.#onEvent(event)));
  }

  /** Follows new events, and resumes every session whose delivery a previous process left unfinished. */
  async start(): Promise<void> {
    if (this.#deps.channels.size === 0 || this.#started) return;
    this.#started = true;
    this.watch();
    const early = this.#early ?? new Set<string>();
    this.#early = undefined;
    for (const channelId of this.#deps.channels.keys()) {
      const prefix = cursorPrefix(channelId);
      for (const key of await this.#deps.storage.list(prefix)) {
        const sessionId = key.slice(prefix.length);
        if (this.#deps.delivers?.(sessionId) === false) continue;
        this.#remember(sessionId, channelId);
        this.#pump(sessionId, channelId);
        early.delete(sessionId);
      }
    }
    // Sessions with events since `watch` and no cursor: their owner is read from the record.
    for (const sessionId of early) if (this.#deps.delivers?.(sessionId) !== false) this.#resolveOwner(sessionId);
  }

  /**
   * Stops retrying and waits up to `timeoutMs` for handlers in flight; undelivered events (and one
   * whose handler is still running) are delivered on the next start.
   */
  async close(timeoutMs = 10_000): Promise<void> {
    this.#closing = true;
    this.#unsubscribe?.();
    for (const wake of this.#sleeps) wake();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
    const outcome = await Promise.race([Promise.all([...this.#pumps.values()].map((pump) => pump.running)), late]);
    clearTimeout(timer);
    if (outcome === "late") this.#deps.logger.warn(`channel events handlers still running after ${timeoutMs} ms at drain; their events are delivered again on the next start`);
  }

  // --- internals ---

  #onEvent(event: SessionEvent): void {
    if (this.#deps.delivers?.(event.sessionId) === false) return;
    const known = this.#owners.get(event.sessionId);
    if (known === null) return;
    if (known !== undefined) return this.#pump(event.sessionId, known);
    if (event.type === "session.started" && this.#deps.ownerOfNew) {
      // A new session names its channel in its first event: no record read for it, nor for the
      // events committed with it (docs/design/speed.md "CPU per turn").
      const channel = this.#deps.ownerOfNew(event.data.channel);
      const owner = this.#deps.channels.has(channel) ? channel : null;
      this.#remember(event.sessionId, owner);
      if (owner !== null) this.#pump(event.sessionId, owner);
      return;
    }
    this.#resolveOwner(event.sessionId);
  }

  /** Reads the session's record for its owner, then delivers when a channel with events owns it. */
  #resolveOwner(sessionId: string): void {
    void this.#deps.session(sessionId).then(
      (session) => {
        const owner = session && this.#deps.channels.has(session.channel) ? session.channel : null;
        this.#remember(sessionId, owner);
        if (owner !== null) this.#pump(sessionId, owner);
      },
      (error: unknown) => this.#deps.logger.error(`channel delivery could not read session ${sessionId}`, error),
    );
  }

  #remember(sessionId: string, owner: string | null): void {
    this.#owners.set(sessionId, owner);
    if (this.#owners.size > MAX_KNOWN_OWNERS) this.#owners.delete(this.#owners.keys().next().value as string);
  }

  /** Runs one delivery loop per session at a time; a call during a loop makes it read again. */
  #pump(sessionId: string, channelId: string): void {
    if (this.#closing) return;
    const current = this.#pumps.get(sessionId);
    if (current) {
      current.again = true;
      return;
    }
    const pump = { running: Promise.resolve(), again: true };
    pump.running = (async () => {
      try {
        while (pump.again && !this.#closing) {
          pump.again = false;
          await this.#deliverPending(sessionId, channelId);
        }
      } catch (error) {
        this.#deps.logger.error(`channel ${channelId} delivery for ${sessionId} stopped; it resumes on the next event or start`, error);
      } finally {
        this.#pumps.delete(sessionId);
      }
    })();
    this.#pumps.set(sessionId, pump);
  }

  async #deliverPending(sessionId: string, channelId: string): Promise<void> {
    const definition = this.#deps.channels.get(channelId);
    if (!definition?.events) return;
    const key = deliveryCursorKey(channelId, sessionId);
    const stored = await this.#deps.storage.get(key);
    const from = stored === undefined ? 0 : Number(stored);
    // The cursor exists from the first read on, so a start after a crash finds this session.
    if (stored === undefined) await this.#deps.storage.set(key, "0");
    const events = await this.#deps.log.readEvents(sessionId, from);
    for (const event of events) {
      if (this.#closing) return;
      // SAFETY: the handler under `event.type` takes events of that type, which `event` is.
      const typed = definition.events[event.type] as ChannelEventHandler | undefined;
      const handlers = [typed, definition.events["*"]].filter((handler) => typeof handler === "function");
      for (const handler of handlers) {
        // Interrupted by a drain: the cursor stays, so the event is delivered again on the next start.
        if (!(await this.#runHandler(channelId, definition, sessionId, event, handler))) return;
      }
      if (handlers.length > 0 || event === events.at(-1)) await this.#deps.storage.set(key, String(event.index + 1));
    }
  }

  async #runHandler(
    channelId: string,
    definition: ChannelDefinition,
    sessionId: string,
    event: SessionEvent,
    handler: ChannelEventHandler,
  ): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      // Re-read each attempt: an earlier handler may have changed the state or the token.
      const session = await this.#deps.session(sessionId);
      if (!session) return true;
      const state = { ...structuredClone(definition.state ?? {}), ...structuredClone(session.state ?? {}) };
      const before = JSON.stringify(state);
      const binding: ChannelBinding = { id: channelId, sessionId, continuationToken: session.continuationToken, state };
      try {
        // SAFETY: a frozen copy of `event` is the same event.
        const frozen = Object.freeze({ ...event, data: Object.freeze({ ...event.data }) }) as Readonly<SessionEvent>;
        await handler(frozen, binding, {
          ...this.#deps.context(channelId),
          attempt,
        });
        if (JSON.stringify(binding.state) !== before) await this.#deps.saveState(sessionId, changedKeys(JSON.parse(before) as ChannelState, binding.state));
        return true;
      } catch (error) {
        if (this.#closing) return false;
        const delay = this.#delays[attempt];
        if (delay === undefined) {
          this.#deps.logger.error(
            `channel ${channelId} events handler failed on ${event.type} #${event.index} of ${sessionId} after ${attempt + 1} attempts; skipped`,
            error,
          );
          return true;
        }
        this.#deps.logger.warn(
          `channel ${channelId} events handler failed on ${event.type} #${event.index} of ${sessionId}; retrying in ${delay} ms: ${errorMessage(error)}`,
        );
        await this.#sleep(delay);
        if (this.#closing) return false;
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#sleeps.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#sleeps.add(wake);
    });
  }
}

/** Top-level keys whose value differs (a removed key maps to undefined). */
function changedKeys(before: ChannelState, after: ChannelState): ChannelState {
  const changes: ChannelState = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = after[key];
  }
  return changes;
}
