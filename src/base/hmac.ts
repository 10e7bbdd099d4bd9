/**
 * HMAC-SHA256 signatures, checked with Web Crypto on every runtime: the channel packs' webhook bodies,
 * the runner protocol's requests and its per-turn tool credentials (docs/design/cloud-runtime.md).
 *
 * `crypto.subtle.verify` compares the expected and presented MACs itself, in constant time, so
 * nothing here compares secret-derived bytes by hand (docs/design/channel-packs.md).
 * @module
 */

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();
/** Imported keys are cached per secret; a host rarely has more than a few. */
const MAX_CACHED_KEYS = 32;

/** Whether `hexSignature` is the hex HMAC-SHA256 of `message` under `secret`. */
export async function verifyHmacSha256(secret: string, message: string, hexSignature: string): Promise<boolean> {
  const signature = fromHex(hexSignature);
  if (!signature || signature.length !== 32) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(secret), signature, encoder.encode(message));
}

/** The hex HMAC-SHA256 of `message` under `secret` (what a sender puts in its header). */
export async function signHmacSha256(secret: string, message: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message));
  return [...new Uint8Array(mac)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

// --- internals ---

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
