/**
 * `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw request body under the webhook
 * secret, as GitHub signs deliveries (docs/guide/github.md).
 * @module
 */
import { signHmacSha256, verifyHmacSha256 } from "../../../base/hmac.ts";

const PREFIX = "sha256=";

/** Whether `header` is GitHub's signature of `rawBody` under `secret`, checked in constant time. */
export async function verifyGitHubSignature(secret: string, rawBody: string, header: string | null | undefined): Promise<boolean> {
  if (!header?.startsWith(PREFIX)) return false;
  return verifyHmacSha256(secret, rawBody, header.slice(PREFIX.length));
}

/** The `X-Hub-Signature-256` value GitHub would send for `rawBody` (tests, replay tools). */
export async function signGitHubPayload(secret: string, rawBody: string): Promise<string> {
  return PREFIX + (await signHmacSha256(secret, rawBody));
}
