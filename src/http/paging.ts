/**
 * The paging of the listing routes (`GET /v1/sessions`, `GET /v1/artifacts`; docs/design/listing.md):
 * `limit` (default 50, at most 500) and an opaque `cursor`, the response's `nextCursor`.
 * @module
 */
import * as v from "valibot";
import { badRequest } from "../base/errors.ts";

/** A page's size when the request names none. */
export const DEFAULT_PAGE_LIMIT = 50;
/** The largest page: a larger `limit` is served as this many, the next cursor saying what is left. */
export const MAX_PAGE_LIMIT = 500;

/** `limit` and `cursor`, as query strings; `pageOf` gives their meaning. */
export const pageQuery = {
  limit: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d{0,8}$/, "limit must be a positive integer"), v.transform(Number))),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1, "cursor must not be empty"), v.maxLength(1024, "cursor is not one this listing gave out"))),
};

/** The page a validated query asks for; `decode` turns the cursor back into a position, or undefined when it is not one. */
export function pageOf(query: { limit?: number; cursor?: string }, decode: (text: string) => string | undefined): { limit: number; after?: string } {
  const limit = Math.min(query.limit ?? DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT);
  if (query.cursor === undefined) return { limit };
  const text = fromBase64Url(query.cursor);
  const after = text === undefined ? undefined : decode(text);
  if (after === undefined) throw badRequest("cursor is not one this listing gave out: pass nextCursor from the previous page unchanged");
  return { limit, after };
}

/** The opaque cursor of a position (base64url of it: not a promise about its shape). */
export function cursorOf(position: string | undefined): string | null {
  return position === undefined ? null : toBase64Url(position);
}

// --- internals ---

function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function fromBase64Url(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
