/**
 * Slack request signing (v0): `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` under the app's signing secret, and the timestamp
 * must be within five minutes of now, so a captured request cannot be replayed later
 * (docs/guide/slack.md).
 * @module
 */
import { signHmacSha256, verifyHmacSha256 } from "../../../base/hmac.ts";

/** Largest accepted distance between the request timestamp and now. */
export const SLACK_SIGNATURE_WINDOW_SECONDS = 5 * 60;

export type SlackSignatureCheck = { ok: true } | { ok: false; reason: string };

export async function verifySlackSignature(
  secret: string,
  input: { timestamp: string | null; signature: string | null; rawBody: string; now?: number },
): Promise<SlackSignatureCheck> {
  const { timestamp, signature, rawBody } = input;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "missing or malformed X-Slack-Request-Timestamp" };
  const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_SECONDS) {
    return { ok: false, reason: "X-Slack-Request-Timestamp is more than five minutes from now" };
  }
  if (!signature?.startsWith("v0=")) return { ok: false, reason: "missing or malformed X-Slack-Signature" };
  const valid = await verifyHmacSha256(secret, `v0:${timestamp}:${rawBody}`, signature.slice(3));
  return valid ? { ok: true } : { ok: false, reason: "wrong X-Slack-Signature" };
}

/** The headers Slack would send with `rawBody` at `timestampSeconds` (tests, replay tools). */
export async function signSlackRequest(
  secret: string,
  rawBody: string,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): Promise<{ "x-slack-request-timestamp": string; "x-slack-signature": string }> {
  const timestamp = String(timestampSeconds);
  return {
    "x-slack-request-timestamp": timestamp,
    "x-slack-signature": `v0=${await signHmacSha256(secret, `v0:${timestamp}:${rawBody}`)}`,
  };
}
