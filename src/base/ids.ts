/** Random identifiers: nanoid over a base62 alphabet (it uses the runtime's secure random source). */
import { customAlphabet } from "nanoid";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const base62 = customAlphabet(ALPHABET);

/** A random base62 string of `length` characters (about 5.95 bits each), from nanoid. */
export function randomId(length = 20): string {
  return base62(length);
}

/** Characters of a {@link timePrefix}: base62 milliseconds run to the year 8900 in eight. */
const TIME_CHARS = 8;

/**
 * The time `ms` in {@link TIME_CHARS} base62 characters, most significant first. The alphabet is
 * in ASCII order, so these sort as the times do.
 */
export function timePrefix(ms: number): string {
  let out = "";
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[ms % 62]! + out;
    ms = Math.floor(ms / 62);
  }
  return out;
}

/**
 * `ses_`, the creation time's {@link timePrefix} and 12 random characters (71 bits, about
 * UUIDv7's 74): a new session's keys then sort after every older session's, so its writes land
 * where the last session's did, on pages the store already holds, instead of one random page per
 * key range (docs/design/speed.md "Session ids sort by time").
 */
export const newSessionId = (): string => `ses_${timePrefix(Date.now())}${randomId(12)}`;
export const newTurnId = (): string => `turn_${randomId(16)}`;
export const newHttpToken = (): string => `http:${randomId(32)}`;

const SESSION_ID = /^ses_[A-Za-z0-9]{1,64}$/;

/** Session ids come from URLs; anything not shaped like one is simply unknown. */
export const isSessionId = (value: string): boolean => SESSION_ID.test(value);
