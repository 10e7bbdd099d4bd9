/**
 * Webhook delivery routes (docs/guide/webhooks.md "Failed deliveries"), behind the agent's auth
 * chain: the deliveries that failed after their last retry, and one posted again on request.
 * @module
 */
import { notFound } from "../../base/errors.ts";
import { json } from "../../base/responses.ts";
import { defineRoute } from "../route.ts";

export const listWebhookDeliveries = defineRoute({
  method: "GET",
  path: "/v1/webhooks/deliveries",
  auth: "agent",
  summary: "Webhook deliveries that failed after their last retry, oldest first",
  async handler(context) {
    return json({ deliveries: await context.agent.webhooks.failed() });
  },
});

export const redeliverWebhook = defineRoute({
  method: "POST",
  path: "/v1/webhooks/deliveries/:endpoint/:deliveryId/redeliver",
  auth: "agent",
  summary: "Post a failed webhook delivery once more under its id; it leaves the failed list when the receiver takes it",
  async handler(context) {
    const endpoint = context.params["endpoint"] ?? "";
    const deliveryId = context.params["deliveryId"] ?? "";
    // Both name a storage key segment: anything else cannot be a failed delivery.
    const outcome = isSegment(endpoint) && isSegment(deliveryId) ? await context.agent.webhooks.redeliver(endpoint, deliveryId) : undefined;
    if (!outcome) throw notFound("webhook_delivery_not_found", "no failed delivery with that endpoint and id");
    return json(outcome, outcome.ok ? 200 : 502);
  },
});

// --- internals ---

const isSegment = (value: string): boolean => /^[A-Za-z0-9_.-]{1,128}$/.test(value) && value !== "." && value !== "..";
