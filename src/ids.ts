/** Random identifiers from the Web Crypto API (available on every supported runtime). */

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A random base62 string of `length` characters (about 5.95 bits each). */
export function randomId(length = 20): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
  let out = "";
  for (const byte of bytes) {
    // Rejection sampling keeps the distribution uniform: 248 = 4 * 62.
    if (byte < 248) out += ALPHABET[byte % 62];
    if (out.length === length) return out;
  }
  return out + randomId(length - out.length);
}

export const newSessionId = (): string => `ses_${randomId(20)}`;
export const newTurnId = (): string => `turn_${randomId(16)}`;
export const newHttpToken = (): string => `http:${randomId(32)}`;

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

/** Session ids come from URLs; anything not shaped like one is simply unknown. */
export const isSessionId = (value: string): boolean => SESSION_ID.test(value);
