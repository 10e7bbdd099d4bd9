/**
 * HMAC-SHA256 over WebCrypto, for the host's signature on runner requests and the per-session
 * tool credential (docs/design/cloud-runtime.md "Authentication"). Runtime-neutral.
 * @module
 */

const encoder = new TextEncoder();

/** The most a request signature's clock may differ from the runner's. */
export const SIGNATURE_SKEW_MS = 5 * 60_000;

export async function hmacHex(secret: string | Uint8Array<ArrayBuffer>, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", typeof secret === "string" ? encoder.encode(secret) : secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text))));
}

export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The `Authorization` value of a host's request to a runner. */
export async function signRunnerRequest(secret: string, method: string, path: string, body: string, now = Date.now()): Promise<string> {
  const sig = await hmacHex(secret, `${now}\n${method}\n${path}\n${await sha256Hex(body)}`);
  return `AgentServe-Runner ts=${now},sig=${sig}`;
}

/** Why a runner request's signature is refused, or undefined when it is good. */
export async function checkRunnerSignature(secret: string, header: string | null, method: string, path: string, body: string, now = Date.now()): Promise<string | undefined> {
  const match = /^AgentServe-Runner ts=(\d+),sig=([0-9a-f]{64})$/.exec(header ?? "");
  if (!match) return "missing or malformed runner signature";
  const ts = Number(match[1]);
  if (Math.abs(now - ts) > SIGNATURE_SKEW_MS) return "runner signature expired (check both clocks)";
  const expected = await hmacHex(secret, `${ts}\n${method}\n${path}\n${await sha256Hex(body)}`);
  return constantTimeEqual(expected, match[2]!) ? undefined : "bad runner signature";
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
