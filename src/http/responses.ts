/** JSON and NDJSON response helpers: one content type decision each. */

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
}

export const NDJSON_HEADERS: Record<string, string> = {
  "content-type": "application/x-ndjson",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

export function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}
