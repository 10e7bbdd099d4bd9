/**
 * JSON and NDJSON requests to one agent's base URL, with the host's `{ok:false, error, message}`
 * errors turned into {@link ApiError}s that say which request failed and why.
 * @module
 */
import { CommandError, errorMessage } from "./io.ts";
import { readLines } from "./ndjson.ts";

/** A non-2xx answer from the server. */
export class ApiError extends CommandError {
  readonly status: number;
  /** The `error` code of the body, when it had one. */
  readonly code: string | undefined;
  /** The parsed body, when it was JSON. */
  readonly body: unknown;
  constructor(what: string, status: number, body: unknown) {
    const fields = isRecord(body) ? body : {};
    const code = typeof fields.error === "string" ? fields.error : undefined;
    const detail = typeof fields.message === "string" ? fields.message : undefined;
    const hint = status === 401 ? " (pass --bearer-token <secret>)" : "";
    super(`${what} answered ${status}${code ? ` ${code}` : ""}${detail ? `: ${detail}` : ""}${hint}`);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export interface ApiClient {
  /** Base URL of one agent, without a trailing slash (`http://host/<slug>` in multi mode). */
  readonly baseUrl: string;
  /** Raw request to `baseUrl + path`, with the bearer token when one is set. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  getJson<T = Record<string, unknown>>(path: string): Promise<T>;
  postJson<T = Record<string, unknown>>(path: string, body: unknown): Promise<T>;
  deleteJson<T = Record<string, unknown>>(path: string): Promise<T>;
  /** The NDJSON lines of `path`, raw; ends when the server ends the body or `signal` aborts. */
  lines(path: string, signal?: AbortSignal): AsyncGenerator<string>;
}

/** `extraHeaders` go on every request (the alias token of a deployment, for `--prod`). */
export function createApiClient(baseUrl: string, bearerToken?: string, extraHeaders: Record<string, string> = {}): ApiClient {
  const base = baseUrl.replace(/\/+$/, "");
  const request = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
    if (bearerToken) headers.set("authorization", `Bearer ${bearerToken}`);
    try {
      return await fetch(`${base}${path}`, { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
      throw new CommandError(`cannot reach ${base}${cause || `: ${errorMessage(error)}`}`);
    }
  };
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const init: RequestInit =
      body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const response = await request(path, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: keep the text for the error.
    }
    if (!response.ok) throw new ApiError(`${method} ${pathOnly(path)}`, response.status, parsed);
    return parsed as T; // SAFETY: the caller names the shape docs/guide/http-api.md "Response shapes" documents for this route
  };
  return {
    baseUrl: base,
    fetch: request,
    getJson: (path) => json("GET", path),
    postJson: (path, body) => json("POST", path, body),
    deleteJson: (path) => json("DELETE", path),
    async *lines(path, signal) {
      let response: Response;
      try {
        response = await request(path, { signal });
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
      if (!response.ok || !response.body) {
        const text = await response.text().catch(() => "");
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // keep the text
        }
        throw new ApiError(`GET ${pathOnly(path)}`, response.status, parsed);
      }
      try {
        yield* readLines(response.body);
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
    },
  };
}

/** `session_not_found` as the plain "no session" failure a person reads; other errors unchanged. */
export function explainSessionError(error: unknown, sessionId: string): unknown {
  return error instanceof ApiError && error.code === "session_not_found" ? new CommandError(`no session ${sessionId} here`) : error;
}

/** `/v1/session/<id>` with the id escaped. */
export function sessionPath(sessionId: string, rest = ""): string {
  return `/v1/session/${encodeURIComponent(sessionId)}${rest}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// --- internals ---

function pathOnly(path: string): string {
  return path.split("?")[0] ?? path;
}
