/**
 * The posts of push notifications (docs/design/a2a-push.md): each update for a config is first
 * written to the config's outbox in storage, under a key that sorts in log order, and a sender
 * posts the outbox oldest first, deleting each entry once the receiver took it. A receiver that
 * fails keeps its entry, with the attempt count and the time of the next attempt stored beside
 * it, so retries go on across restarts and on a backoff reaching hours; past the last delay the
 * config's outbox is dropped and a failure record says so. One process posts a config at a time
 * (a lease), so the order holds with several processes on the store.
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import {
  A2A_PUSH_OUTBOX,
  a2aPushFailedKey,
  a2aPushKey,
  a2aPushOutboxKey,
  a2aPushOutboxPrefix,
  a2aPushSenderLeaseKey,
} from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { PushConfig } from "./push-configs.ts";
import type { StreamResponse } from "./wire.ts";

/**
 * About 1, 2, 4, 8, 16 and 30 seconds, then 1, 2, 5, 10 and 30 minutes, then 1, 2 and 4 hours:
 * a receiver down for most of a working day still gets every update, in order.
 */
export const PUSH_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 16_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];

/** How often outboxes left by another process (or a lost timer) are looked for. */
const SWEEP_MS = 30_000;
const LEASE_MS = 60_000;
const POST_TIMEOUT_MS = 10_000;

export type OutboxStorage = Pick<StorageDriver, "get" | "set" | "delete" | "list" | "acquireLease" | "releaseLease">;

export interface PushOutboxDeps {
  storage: OutboxStorage;
  logger: HostLogger;
  retryDelaysMs?: readonly number[];
  fetch?: typeof fetch;
  now?: () => number;
}

/** One config's outbox. */
export interface OutboxOf {
  sessionId: string;
  turnId: string;
  configId: string;
}

interface Entry {
  /** The notification id, stable across retries and restarts: `<sessionId>.<index>.<position>`. */
  id: string;
  update: StreamResponse;
  attempts?: number;
  nextAt?: number;
}

export class PushOutbox {
  readonly #deps: PushOutboxDeps;
  readonly #owner = `push_${crypto.randomUUID()}`;
  readonly #draining = new Set<string>();
  readonly #again = new Set<string>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #running = new Set<Promise<void>>();
  #sweep: ReturnType<typeof setInterval> | undefined;
  #closing = false;

  constructor(deps: PushOutboxDeps) {
    this.#deps = deps;
  }

  /** Stores one update for a config; the sender is kicked with {@link kick}. */
  async enqueue(box: OutboxOf, index: number, position: number, update: StreamResponse): Promise<void> {
    const entry: Entry = { id: `${box.sessionId}.${index}.${position}`, update };
    await this.#deps.storage.set(a2aPushOutboxKey(box.sessionId, box.turnId, box.configId, index, position), JSON.stringify(entry));
  }

  /** Posts what the config's outbox holds, unless a post of it is under way (then once more after). */
  kick(box: OutboxOf): void {
    if (this.#closing) return;
    const key = boxKey(box);
    if (this.#draining.has(key)) {
      this.#again.add(key);
      return;
    }
    // Marked before the first await, so a second kick meanwhile never starts a second sender.
    this.#draining.add(key);
    const run = this.#drain(box).catch((error: unknown) => this.#deps.logger.error(`[a2a] push notifications of ${key} stalled`, error));
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
  }

  /** Resumes every outbox in the store (left by a crash, or by another process), now and every 30 s. */
  async start(): Promise<void> {
    await this.#sweepOnce();
    this.#sweep = setInterval(() => void this.#sweepOnce().catch((error: unknown) => this.#deps.logger.error("[a2a] push outbox sweep failed", error)), SWEEP_MS);
  }

  async close(timeoutMs = 1000): Promise<void> {
    this.#closing = true;
    if (this.#sweep) clearInterval(this.#sweep);
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled(this.#running), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  // --- internals ---

  async #sweepOnce(): Promise<void> {
    const boxes = new Map<string, OutboxOf>();
    for (const key of await this.#deps.storage.list(A2A_PUSH_OUTBOX)) {
      const [sessionId, turnId, configId] = key.slice(A2A_PUSH_OUTBOX.length).split("/");
      if (sessionId && turnId && configId) boxes.set(`${sessionId}/${turnId}/${configId}`, { sessionId, turnId, configId });
    }
    for (const [key, box] of boxes) if (!this.#timers.has(key)) this.kick(box);
  }

  async #drain(box: OutboxOf): Promise<void> {
    const { storage } = this.#deps;
    const key = boxKey(box);
    const lease = a2aPushSenderLeaseKey(box.sessionId, box.turnId, box.configId);
    if (!(await storage.acquireLease(lease, this.#owner, LEASE_MS))) {
      // Another process posts it; the sweep looks again later.
      this.#draining.delete(key);
      this.#again.delete(key);
      return;
    }
    try {
      while (!this.#closing) {
        const keys = (await storage.list(a2aPushOutboxPrefix(box.sessionId, box.turnId, box.configId))).sort();
        const first = keys[0];
        if (first === undefined) return;
        const stored = await storage.get(a2aPushKey(box.sessionId, box.turnId, box.configId));
        // The config was deleted (or its session removed): nothing is owed to its receiver.
        if (stored === undefined) return await this.#drop(keys);
        const config = JSON.parse(stored) as PushConfig;
        const raw = await storage.get(first);
        if (raw === undefined) continue;
        const entry = JSON.parse(raw) as Entry;
        const now = (this.#deps.now ?? Date.now)();
        if (entry.nextAt !== undefined && entry.nextAt > now) return this.#wake(box, entry.nextAt - now);
        try {
          await this.#post(config, entry);
        } catch (error) {
          const attempts = (entry.attempts ?? 0) + 1;
          const delay = (this.#deps.retryDelaysMs ?? PUSH_RETRY_DELAYS_MS)[attempts - 1];
          if (delay === undefined) {
            await storage.set(
              a2aPushFailedKey(box.sessionId, box.turnId, box.configId),
              JSON.stringify({ configId: box.configId, taskId: config.taskId, failedAt: new Date(now).toISOString(), attempts, error: errorMessage(error), dropped: keys.length, firstDroppedId: entry.id }),
            );
            this.#deps.logger.error(`[a2a] push notifications to ${new URL(config.url).origin} for task ${config.taskId} failed ${attempts} times; ${keys.length} dropped`, error);
            return await this.#drop(keys);
          }
          await storage.set(first, JSON.stringify({ ...entry, attempts, nextAt: now + delay }));
          this.#deps.logger.warn(`[a2a] push notification ${entry.id} to ${new URL(config.url).origin} failed (attempt ${attempts}); retrying in ${delay} ms: ${errorMessage(error)}`);
          return this.#wake(box, delay);
        }
        await storage.delete(first);
        await storage.acquireLease(lease, this.#owner, LEASE_MS);
      }
    } finally {
      this.#draining.delete(key);
      await storage.releaseLease(lease, this.#owner);
      if (this.#again.delete(key)) this.kick(box);
    }
  }

  #wake(box: OutboxOf, delayMs: number): void {
    const key = boxKey(box);
    clearTimeout(this.#timers.get(key));
    this.#timers.set(
      key,
      setTimeout(() => {
        this.#timers.delete(key);
        this.kick(box);
      }, delayMs),
    );
  }

  async #drop(keys: string[]): Promise<void> {
    for (const key of keys) await this.#deps.storage.delete(key);
  }

  async #post(config: PushConfig, entry: Entry): Promise<void> {
    const headers: Record<string, string> = { "content-type": "application/json", "a2a-notification-id": entry.id };
    if (config.token) headers["x-a2a-notification-token"] = config.token;
    if (config.authentication) headers["authorization"] = `${config.authentication.scheme}${config.authentication.credentials ? ` ${config.authentication.credentials}` : ""}`;
    const response = await (this.#deps.fetch ?? fetch)(config.url, {
      method: "POST",
      headers,
      body: JSON.stringify(entry.update),
      redirect: "manual",
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`push notification ${entry.id} to ${new URL(config.url).origin} answered ${response.status}`);
  }
}

const boxKey = (box: OutboxOf): string => `${box.sessionId}/${box.turnId}/${box.configId}`;
