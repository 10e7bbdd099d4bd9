/**
 * Signed lifecycle webhooks (docs/guide/webhooks.md): the endpoints `bot/agent.ts` declares and
 * the record of a delivery that failed after its last retry.
 * @module
 */

/** One endpoint of `defineAgent({ webhooks })`. */
export interface WebhookEndpoint {
  /**
   * Names the endpoint's delivery cursor and failed deliveries; keep it when the URL changes to
   * carry on where the old one stopped. Letters, digits, `-` and `_`. @default derived from `url`
   */
  id?: string;
  /** http or https; a loopback or private address only under `--dev` or with `allowPrivateTarget`. */
  url: string;
  /** Session event types posted (`turn.completed`, `session.waiting`, ...); `"*"` posts every event. */
  events: readonly string[];
  /** The Standard Webhooks signing secret: `whsec_` and the base64 key. */
  secret: string;
  /**
   * The target may be a loopback or private address outside `--dev` (a receiver on the same
   * network). @default false
   */
  allowPrivateTarget?: boolean;
}

/** A delivery that failed after its last retry (`GET /v1/webhooks/deliveries`). */
export interface FailedWebhookDelivery {
  /** The `webhook-id` every attempt carried. */
  id: string;
  endpoint: string;
  url: string;
  sessionId: string;
  index: number;
  type: string;
  attempts: number;
  /** What the last attempt met: the status it was answered or the error it raised. */
  error: string;
  failedAt: string;
}
