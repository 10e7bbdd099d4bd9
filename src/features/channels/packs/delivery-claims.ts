/**
 * Durable, cross-process "handle this delivery once" claims for webhook channels: a GitHub
 * `X-GitHub-Delivery` or a Slack `event_id` is claimed before it starts anything, so a repeated
 * delivery answers "duplicate" instead of starting a second turn.
 *
 * A claim is a storage lease (atomic on every driver, shared across processes like the sessions).
 * It is taken for a short processing window first and only extended to the long dedupe window
 * once the delivery was accepted; a delivery that fails is released, and one whose process dies
 * frees itself when the short window ends, so the platform's retry is handled and nothing the
 * platform sent is lost (docs/design/channel-packs.md).
 * @module
 */
import { randomId } from "../../../base/ids.ts";
import type { StorageDriver } from "../../../base/storage/types.ts";
import { deliveryClaimKey } from "../../../base/storage/keys.ts";
import type { DeliveryClaims } from "../../../base/definitions/channels.ts";

/** How long an accepted delivery is remembered. GitHub redelivers by hand for days. */
export const DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a claim survives a process that died while handling it. */
const PROCESSING_MS = 60_000;
const ID = /^[A-Za-z0-9_.-]{1,200}$/;

export function createDeliveryClaims(storage: StorageDriver): DeliveryClaims {
  return {
    async claim(scope, id, options = {}) {
      if (!isDeliveryId(scope) || !isDeliveryId(id)) {
        throw new Error(`[agent-serve] [channels] delivery ids are 1-200 characters of [A-Za-z0-9_.-]`);
      }
      const key = deliveryClaimKey(scope, id);
      const holder = `delivery_${randomId(16)}`;
      if (!(await storage.acquireLease(key, holder, PROCESSING_MS))) return null;
      return {
        async accept() {
          await storage.acquireLease(key, holder, options.keepMs ?? DEFAULT_KEEP_MS);
        },
        release: () => storage.releaseLease(key, holder),
      };
    },
  };
}

/** Whether `value` is a delivery id the claims accept. */
export function isDeliveryId(value: string): boolean {
  return ID.test(value) && value !== "." && value !== "..";
}
