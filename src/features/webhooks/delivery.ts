/**
 * Signed lifecycle webhooks (docs/guide/webhooks.md), on the durable delivery of channels
 * (../channels/delivery.ts, docs/design/channels.md "Delivery"), one delivery per endpoint: per
 * session, in index order, from a stored cursor per endpoint that survives a crash, retried with
 * backoff, at least once. Every attempt at an event carries the same `webhook-id`, so a receiver
 * drops repeats. After the last retry the delivery is recorded as failed and the cursor moves on.
 * @module
 */
import type { ChannelEventHandler } from "../../base/definitions/channels.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { FailedWebhookDelivery } from "../../base/definitions/webhooks.ts";
import { errorMessage } from "../../base/errors.ts";
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import type { HostLogger } from "../../base/logging.ts";
import { WEBHOOK_FAILURES_PREFIX, webhookDeliveryChannel, webhookFailureKey } from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { type ChannelDelivery, DEFAULT_RETRY_DELAYS_MS } from "../channels/delivery.ts";
import { createEventWatcher } from "../channels/event-watcher.ts";
import type { ResolvedEndpoint } from "./endpoints.ts";
import { signedHeaders } from "./sign.ts";

export interface WebhookDeliveryDeps {
  endpoints: readonly ResolvedEndpoint[];
  log: EventLogView;
  storage: Pick<StorageDriver, "get" | "set" | "delete" | "list">;
  store: Pick<SessionRecordsView, "get">;
  /** Whether this host delivers the session's events (sessions placed in hosts of their own). */
  delivers(sessionId: string): boolean;
  logger: HostLogger;
  retryDelaysMs?: readonly number[];
  /** The fetch posts go through. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: () => number;
}

const POST_TIMEOUT_MS = 10_000;

export class WebhookDelivery {
  readonly #deps: WebhookDeliveryDeps;
  readonly #deliveries: ChannelDelivery[];

  constructor(deps: WebhookDeliveryDeps) {
    this.#deps = deps;
    const retries = (deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS).length;
    this.#deliveries = deps.endpoints.map((endpoint) => {
      const channel = webhookDeliveryChannel(endpoint.id);
      const handler = ((event: Readonly<SessionEvent>, _binding: unknown, context: { attempt: number }) =>
        this.#deliver(endpoint, event, context.attempt, retries)) as ChannelEventHandler;
      const events = Object.fromEntries((endpoint.events.has("*") ? ["*"] : [...endpoint.events]).map((type) => [type, handler]));
      return createEventWatcher({
        channel,
        events,
        log: deps.log,
        storage: deps.storage,
        // Every session is the endpoint's: the delivery reads only its token and state.
        session: async (sessionId) => {
          const record = await deps.store.get(sessionId);
          return record && { channel, continuationToken: record.continuationToken };
        },
        delivers: deps.delivers,
        logger: deps.logger,
        ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
      });
    });
  }

  /** Follows new events and resumes the deliveries a previous process left unfinished. */
  async start(): Promise<void> {
    await Promise.all(this.#deliveries.map((delivery) => delivery.start()));
  }

  async close(timeoutMs?: number): Promise<void> {
    await Promise.all(this.#deliveries.map((delivery) => delivery.close(timeoutMs)));
  }

  /** Deliveries that failed after their last retry, oldest first. */
  async failed(): Promise<FailedWebhookDelivery[]> {
    const records: FailedWebhookDelivery[] = [];
    for (const key of await this.#deps.storage.list(WEBHOOK_FAILURES_PREFIX)) {
      const raw = await this.#deps.storage.get(key);
      if (raw !== undefined) records.push(JSON.parse(raw) as FailedWebhookDelivery);
    }
    return records.sort((a, b) => a.failedAt.localeCompare(b.failedAt) || a.id.localeCompare(b.id));
  }

  /**
   * Posts a failed delivery once more, under its id; on success it leaves the failed list.
   * Undefined when no such failure is recorded (or its event is gone with its session).
   */
  async redeliver(endpointId: string, deliveryId: string): Promise<{ ok: boolean; error?: string } | undefined> {
    const key = webhookFailureKey(endpointId, deliveryId);
    const raw = await this.#deps.storage.get(key);
    const endpoint = this.#deps.endpoints.find((candidate) => candidate.id === endpointId);
    if (raw === undefined || !endpoint) return undefined;
    const record = JSON.parse(raw) as FailedWebhookDelivery;
    const [event] = await this.#deps.log.readEvents(record.sessionId, record.index);
    if (!event || event.index !== record.index) return undefined;
    try {
      await this.#post(endpoint, event);
    } catch (error) {
      return { ok: false, error: errorMessage(error) };
    }
    await this.#deps.storage.delete(key);
    return { ok: true };
  }

  // --- internals ---

  /** One attempt; throws to be retried, and records the failure instead on the last one. */
  async #deliver(endpoint: ResolvedEndpoint, event: Readonly<SessionEvent>, attempt: number, retries: number): Promise<void> {
    try {
      await this.#post(endpoint, event);
    } catch (error) {
      if (attempt < retries) throw error;
      const record: FailedWebhookDelivery = {
        id: deliveryId(event),
        endpoint: endpoint.id,
        url: endpoint.url,
        sessionId: event.sessionId,
        index: event.index,
        type: event.type,
        attempts: attempt + 1,
        error: errorMessage(error),
        failedAt: new Date((this.#deps.now ?? Date.now)()).toISOString(),
      };
      await this.#deps.storage.set(webhookFailureKey(endpoint.id, record.id), JSON.stringify(record));
      this.#deps.logger.error(`webhook ${endpoint.id} gave up on ${event.type} #${event.index} of ${event.sessionId} after ${record.attempts} attempts: ${record.error}`);
    }
  }

  async #post(endpoint: ResolvedEndpoint, event: Readonly<SessionEvent>): Promise<void> {
    const id = deliveryId(event);
    // The Standard Webhooks payload shape: the type, when it happened, and the event itself.
    const body = JSON.stringify({ type: event.type, timestamp: event.at, data: event });
    const timestamp = Math.floor((this.#deps.now ?? Date.now)() / 1000);
    const response = await (this.#deps.fetch ?? fetch)(endpoint.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(await signedHeaders(endpoint.key, id, timestamp, body)) },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${new URL(endpoint.url).origin} answered ${response.status}`);
  }
}

/** The `webhook-id` of an event: the same on every attempt, restart and endpoint. */
function deliveryId(event: Readonly<SessionEvent>): string {
  return `msg_${event.sessionId}_${event.index}`;
}
