/**
 * One log line per HTTP request: method, path, status and the time to the response head (a
 * stream's lifetime is not its latency). Polls and static files the playground fetches over and
 * over log at `debug`, so the terminal shows what a person did, not what a page polled.
 * @module
 */
import type { HostLogger } from "../base/logging.ts";

/** `GET` paths (after any slug) whose lines are detail: the Logs tab's own poll, health probes, files. */
const QUIET = /(?:^|\/)(?:v1\/logs|v1\/health|v1\/meta|v1\/session\/[^/]+\/approvals|playground(?:\/.*)?|docs(?:\/.*)?|favicon\.ico)$/;

export function logRequest(logger: HostLogger, request: Request, status: number, ms: number): void {
  const path = pathOf(request.url);
  const rounded = Math.round(ms);
  const fields = { method: request.method, path, status, ms: rounded };
  const message = `${request.method} ${path} ${status} ${rounded}ms`;
  const quiet = (request.method === "GET" || request.method === "HEAD") && status < 400 && QUIET.test(path.slice(1));
  if (quiet) logger.debug?.(message, fields);
  else logger.info(message, fields);
}

// --- internals ---

/** The path without the query: queries can carry tokens (`?token=`), which logs must not keep. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}
