/** JSON and NDJSON response helpers: one content type decision each. */
import { FastResponse } from "srvx";

// srvx's FastResponse is the standard Response on every runtime except Node, where srvx writes its
// string body straight to the socket instead of through a web stream (about twice as fast).

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new FastResponse(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
}

/** A JSON response from an already serialized body (bodies computed once, such as health). */
export function rawJson(body: string): Response {
  return new FastResponse(body, { headers: JSON_HEADERS });
}

export const NDJSON_HEADERS: Record<string, string> = {
  "content-type": "application/x-ndjson",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** An HTML page with the headers its caller decides (each page states its own policy). */
export function html(body: string, headers: Record<string, string>): Response {
  return new FastResponse(body, { headers });
}
