/**
 * A delivery that only watches: one internal channel id whose handlers take sessions' events from
 * a durable cursor, with no channel state and no channel services. Lifecycle webhooks watch every
 * session; A2A push watches the sessions its channel owns (docs/design/channels.md "Delivery").
 * @module
 */
import type { ChannelDefinition, ChannelEventContext } from "../../base/definitions/channels.ts";
import { ChannelDelivery, type DeliveryDeps } from "./delivery.ts";

export interface EventWatcherOptions extends Pick<DeliveryDeps, "log" | "storage" | "session" | "ownerOfNew" | "logger" | "delivers" | "retryDelaysMs"> {
  /** The internal channel id the cursors are kept under. */
  channel: string;
  events: NonNullable<ChannelDefinition["events"]>;
}

export function createEventWatcher(options: EventWatcherOptions): ChannelDelivery {
  const { channel, events, ...deps } = options;
  const delivery = new ChannelDelivery({
    channels: new Map([[channel, { events }]]),
    // Unless told otherwise, every session is the watcher's.
    ownerOfNew: () => channel,
    // A watcher keeps no channel state.
    saveState: async () => {},
    // SAFETY: a watcher's handlers read nothing of the channel services, so none are built.
    context: () => ({}) as Omit<ChannelEventContext, "attempt">,
    ...deps,
  });
  // Built before start-up recovery runs: what recovery appends is noted now, delivered at start.
  delivery.watch();
  return delivery;
}
