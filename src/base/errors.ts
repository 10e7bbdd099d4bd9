/**
 * The one error class of the host and the one place that renders errors.
 *
 * Every failure a client can cause is an `HTTPError` with a stable `code` (docs/guide/http-api.md
 * "Errors"). Anything else that escapes a handler is a bug: it is logged and answered with a
 * generic 500 that leaks nothing.
 * @module
 */
import { json } from "./responses.ts";

export interface HTTPErrorInit {
  status: number;
  code: string;
  message?: string;
  /** Extra members merged into the JSON envelope (for example `issues` or `tools`). */
  data?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class HTTPError extends Error {
  override readonly name = "HTTPError";
  readonly status: number;
  readonly code: string;
  readonly data: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(init: HTTPErrorInit) {
    super(init.message ?? init.code, { cause: init.cause });
    this.status = sanitizeStatus(init.status);
    this.code = init.code;
    this.data = init.data;
    this.headers = init.headers;
  }

  /** Checks by name so errors from another copy of this module are recognised too. */
  static isError(value: unknown): value is HTTPError {
    return value instanceof Error && value.name === "HTTPError" && "code" in value && "status" in value;
  }
}

export const badRequest = (message: string, data?: Record<string, unknown>): HTTPError =>
  new HTTPError({ status: 400, code: "invalid_request", message, data });

export const notFound = (code: string, message: string, data?: Record<string, unknown>): HTTPError =>
  new HTTPError({ status: 404, code, message, data });

export const conflict = (code: string, message: string): HTTPError =>
  new HTTPError({ status: 409, code, message });

export interface ErrorLogger {
  error(message: string, cause?: unknown): void;
}

/** Renders any thrown value as the spec's `{ok: false, error, message?}` envelope. */
export function toErrorResponse(error: unknown, logger?: ErrorLogger): Response {
  if (HTTPError.isError(error)) {
    return json({ ...error.data, ok: false, error: error.code, message: error.message }, error.status, error.headers);
  }
  // A full, read-only or failing store is an outage, not a bug: reads go on, writes get 503 until
  // it clears (docs/design/faults.md). The driver's own error (paths included) stays in the log.
  if (StorageUnavailableError.isError(error)) {
    // Every write fails while the disk is full: the cause is logged once a while, not per request.
    if (Date.now() - lastOutageLog > OUTAGE_LOG_INTERVAL_MS) {
      lastOutageLog = Date.now();
      logger?.error("storage unavailable: writes answer 503 until it clears", error);
    }
    return json(
      { ok: false, error: "storage_unavailable", message: "storage is unavailable: the store cannot take writes right now" },
      503,
      { "retry-after": "5" },
    );
  }
  // The host logger adds the `[agent-serve]` prefix itself.
  logger?.error("unhandled error", error);
  return json({ ok: false, error: "internal_error", message: "internal error" }, 500);
}

/** An internal (non-HTTP) error with the component named, as in `[agent-serve] [fs] ...`. */
export function createError(component: string, message: string, cause?: unknown): Error {
  return new Error(`[agent-serve] [${component}] ${message}`, cause === undefined ? undefined : { cause });
}

/** The message of any thrown value, for logs and error results. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// --- internals ---

const OUTAGE_LOG_INTERVAL_MS = 10_000;
let lastOutageLog = 0;

function sanitizeStatus(status: number): number {
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
}

/**
 * The store cannot take writes for now: the disk is full, the store is read-only, or an I/O error
 * stopped a commit. Drivers throw it (with the driver's own error as `cause`); the HTTP layer
 * answers 503 `storage_unavailable`, and a turn that meets it fails where it can still be recorded.
 */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  static isError(value: unknown): value is StorageUnavailableError {
    return value instanceof Error && value.name === "StorageUnavailableError";
  }
}
