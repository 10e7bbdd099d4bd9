/**
 * What the webhook routes of the packs share: the `--dev` loopback rule for unsigned deliveries,
 * the answers they give, and once-only handling of a delivery.
 * @module
 */
import { HTTPError } from "../../../base/errors.ts";
import { isLoopbackAddress } from "../../../base/auth-policies.ts";
import { json } from "../../../base/responses.ts";
import type { ToolHostServices } from "../../../base/definitions/tools.ts";
import type { DeliveryClaim } from "../../../base/definitions/channels.ts";

const FORWARDING_HEADERS = ["x-forwarded-for", "x-real-ip", "forwarded", "x-forwarded-host"];

/**
 * A direct loopback caller: a loopback TCP peer and no proxy-forwarding headers. A local tunnel
 * (which is how public webhooks reach a laptop) forwards from loopback but adds those headers, so
 * unsigned deliveries through it are refused even under `--dev`.
 */
export function isDirectLoopback(request: Request, ip: string | undefined): boolean {
  return isLoopbackAddress(ip) && !FORWARDING_HEADERS.some((name) => request.headers.has(name));
}

export function invalidSignature(message: string): HTTPError {
  return new HTTPError({ status: 401, code: "invalid_signature", message });
}

export const ignored = (): Response => json({ ok: true, ignored: true });
export const duplicate = (): Response => json({ ok: true, duplicate: true });

/**
 * Runs `handle` for a delivery at most once: a delivery already accepted (or in flight) answers
 * `duplicate`; one whose handling throws is released so the platform's retry is handled.
 */
export async function handleOnce(
  host: ToolHostServices,
  scope: string,
  deliveryId: string,
  handle: () => Promise<Response>,
  keepMs?: number,
): Promise<Response> {
  const claims = host.deliveries;
  if (!claims) throw new Error("[agent-serve] [channels] this host offers no delivery claims (ctx.host.deliveries)");
  const claim: DeliveryClaim | null = await claims.claim(scope, deliveryId, keepMs === undefined ? {} : { keepMs });
  if (!claim) return duplicate();
  let response: Response;
  try {
    response = await handle();
  } catch (error) {
    await claim.release().catch(() => {});
    throw error;
  }
  await claim.accept();
  return response;
}

/** The body as JSON, or 400 `invalid_request` when it is not JSON. */
export function parseJsonBody(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    throw new HTTPError({ status: 400, code: "invalid_request", message: "the body is not valid JSON" });
  }
}
