/**
 * HMAC-SHA256 over WebCrypto, for the host's signature on runner requests and the per-session
 * tool credential (docs/design/cloud-runtime.md "Authentication"). Runtime-neutral.
 * @module
 */
import { signHmacSha256, verifyHmacSha256 } from "../../base/hmac.ts";

const encoder = new TextEncoder();

/** The most a request signature's clock may differ from the runner's. */
export const SIGNATURE_SKEW_MS = 5 * 60_000;

export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** The `Authorization` value of a host's request to a runner. */
export async function signRunnerRequest(secret: string, method: string, path: string, body: string, now = Date.now()): Promise<string> {
  const sig = await signHmacSha256(secret, `${now}\n${method}\n${path}\n${await sha256Hex(body)}`);
  return `AgentServe-Runner ts=${now},sig=${sig}`;
}

/** Why a runner request's signature is refused, or undefined when it is good. */
export async function checkRunnerSignature(secret: string, header: string | null, method: string, path: string, body: string, now = Date.now()): Promise<string | undefined> {
  const match = /^AgentServe-Runner ts=(\d+),sig=([0-9a-f]{64})$/.exec(header ?? "");
  if (!match) return "missing or malformed runner signature";
  const ts = Number(match[1]);
  if (Math.abs(now - ts) > SIGNATURE_SKEW_MS) return "runner signature expired (check both clocks)";
  const good = await verifyHmacSha256(secret, `${ts}\n${method}\n${path}\n${await sha256Hex(body)}`, match[2]!);
  return good ? undefined : "bad runner signature";
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
