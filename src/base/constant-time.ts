/**
 * One comparison for secrets (bearer tokens, alias tokens, pod credentials, signatures): its time
 * depends on neither where the inputs differ nor how much of a prefix matches.
 * @module
 */
const encoder = new TextEncoder();

/** Equal secrets, strings or bytes; every byte of the longer input is visited. */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const x = typeof a === "string" ? encoder.encode(a) : a;
  const y = typeof b === "string" ? encoder.encode(b) : b;
  const length = Math.max(x.length, y.length);
  let diff = x.length ^ y.length;
  for (let i = 0; i < length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
