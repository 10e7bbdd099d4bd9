/**
 * Artifact payloads as storage values (strings): text stays text, bytes go in as base64.
 * @module
 */

interface StoredPayload {
  encoding: "text" | "base64";
  body: string;
}

export function encodePayload(contents: string | Uint8Array): string {
  const payload: StoredPayload =
    typeof contents === "string" ? { encoding: "text", body: contents } : { encoding: "base64", body: toBase64(contents) };
  return JSON.stringify(payload);
}

export function decodePayload(raw: string): Uint8Array<ArrayBuffer> {
  const payload = JSON.parse(raw) as StoredPayload;
  return payload.encoding === "base64" ? fromBase64(payload.body) : new TextEncoder().encode(payload.body);
}

/**
 * A file name that is safe inside a quoted `content-disposition` parameter on every client:
 * ASCII letters, digits, `.`, `_` and `-`; anything else becomes `_`.
 */
export function safeFilename(name: string, fallback: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+/, "")
    .slice(0, 120);
  return /[A-Za-z0-9]/.test(cleaned) ? cleaned : fallback;
}

// --- internals ---

// btoa/atob take "binary strings"; chunking keeps String.fromCharCode under argument limits.
const CHUNK = 0x8000;

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
