/**
 * Standard Webhooks signatures (docs/guide/webhooks.md "Verifying"): `webhook-signature` is
 * `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the key the
 * `whsec_` secret carries in base64. Web Crypto, so it signs on every runtime.
 * @module
 */

const encoder = new TextEncoder();

/** The key bytes of a `whsec_` secret, or undefined when it is not one. */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (!secret.startsWith("whsec_")) return undefined;
  const encoded = secret.slice("whsec_".length);
  if (encoded === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  try {
    return Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The three headers of one attempt; `timestamp` in seconds since the epoch. */
export async function signedHeaders(key: Uint8Array<ArrayBuffer>, id: string, timestamp: number, body: string): Promise<Record<string, string>> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(`${id}.${timestamp}.${body}`)));
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": `v1,${btoa(binary)}` };
}
