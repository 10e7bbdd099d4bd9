/** Random identifiers: nanoid over a base62 alphabet (it uses the runtime's secure random source). */
import { customAlphabet } from "nanoid";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const base62 = customAlphabet(ALPHABET);

/** A random base62 string of `length` characters (about 5.95 bits each), from nanoid. */
export function randomId(length = 20): string {
  return base62(length);
}

export const newSessionId = (): string => `ses_${randomId(20)}`;
export const newTurnId = (): string => `turn_${randomId(16)}`;
export const newHttpToken = (): string => `http:${randomId(32)}`;

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

/** Session ids come from URLs; anything not shaped like one is simply unknown. */
export const isSessionId = (value: string): boolean => SESSION_ID.test(value);
