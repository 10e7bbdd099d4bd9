// @ts-check
/**
 * The agent's HTTP API, same origin, under the page's base path: JSON calls, the bearer token
 * (asked for on the first 401, kept in sessionStorage, sent on every call afterwards) and the
 * `{ok: false, error, message}` envelopes turned into `ApiError`s whose message the UI shows.
 * @module
 */

/** A failed API call: `status` 0 means the agent could not be reached at all. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/**
 * Asks the user for a bearer token; rejects when they decline.
 * @typedef {(reason: string) => Promise<string>} TokenPrompt
 */

/**
 * The base path the server wrote into the page: `/<slug>` in multi mode, "" in single mode.
 * @returns {string}
 */
export function readBasePath() {
  const meta = document.querySelector('meta[name="agent-serve-base"]');
  const content = meta instanceof HTMLMetaElement ? meta.content : "";
  // An unserved copy of index.html still holds the placeholder; treat it as single mode.
  return content.startsWith("%") ? "" : content.replace(/\/+$/, "");
}

export class Api {
  /** @type {string} */
  base;
  /** @type {TokenPrompt} */
  #prompt;
  /** @type {Promise<string> | undefined} */
  #asking;

  /**
   * @param {string} base
   * @param {TokenPrompt} prompt
   */
  constructor(base, prompt) {
    this.base = base;
    this.#prompt = prompt;
  }

  /**
   * A successful response to `path` (below the base path); throws `ApiError` otherwise. A 401
   * asks for a token and retries, as often as the user keeps offering one.
   * @param {string} path
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  async request(path, init = {}) {
    let token = this.#storedToken();
    for (;;) {
      const headers = new Headers(init.headers);
      if (token) headers.set("authorization", `Bearer ${token}`);
      /** @type {Response} */
      let response;
      try {
        response = await fetch(`${this.base}${path}`, { ...init, headers });
      } catch (error) {
        if (init.signal?.aborted) throw error;
        throw new ApiError(0, "network_error", `Could not reach the agent (${error instanceof Error ? error.message : String(error)})`);
      }
      if (response.status !== 401) {
        if (!response.ok) throw await toApiError(response);
        return response;
      }
      const refused = await toApiError(response);
      const current = this.#storedToken();
      // Another call got a fresh token while this one was in flight: use it before asking again.
      if (current && current !== token) {
        token = current;
        continue;
      }
      token = await this.#askForToken(token ? "The token was not accepted. Enter it again." : "This agent needs a bearer token.", refused);
    }
  }

  /**
   * GET `path` as JSON.
   * @template T
   * @param {string} path
   * @param {RequestInit} [init]
   * @returns {Promise<T>}
   */
  async get(path, init = {}) {
    const response = await this.request(path, init);
    return /** @type {Promise<T>} */ (response.json());
  }

  /**
   * POST `body` as JSON to `path` and read the JSON answer.
   * @template T
   * @param {string} path
   * @param {unknown} body
   * @returns {Promise<T>}
   */
  async post(path, body) {
    const response = await this.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return /** @type {Promise<T>} */ (response.json());
  }

  /**
   * PATCH `body` as JSON to `path` and read the JSON answer.
   * @template T
   * @param {string} path
   * @param {unknown} body
   * @returns {Promise<T>}
   */
  async patch(path, body) {
    const response = await this.request(path, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return /** @type {Promise<T>} */ (response.json());
  }

  /**
   * DELETE `path`.
   * @param {string} path
   * @returns {Promise<void>}
   */
  async remove(path) {
    await this.request(path, { method: "DELETE" });
  }

  // --- internals ---

  /** @returns {string} */
  #storedToken() {
    return sessionStorage.getItem(this.#tokenKey()) ?? "";
  }

  #tokenKey() {
    return `agent-serve:bearer-token:${this.base}`;
  }

  /**
   * One prompt at a time: calls that hit 401 together all wait for the same answer.
   * @param {string} reason
   * @param {ApiError} refused
   * @returns {Promise<string>}
   */
  #askForToken(reason, refused) {
    this.#asking ??= this.#prompt(reason)
      .then((token) => {
        sessionStorage.setItem(this.#tokenKey(), token);
        return token;
      })
      .catch(() => {
        throw refused;
      })
      .finally(() => {
        this.#asking = undefined;
      });
    return this.#asking;
  }
}

/**
 * The error envelope of a failed response as an `ApiError`.
 * @param {Response} response
 * @returns {Promise<ApiError>}
 */
async function toApiError(response) {
  const fallback = `${response.status} ${response.statusText}`.trim();
  /** @type {unknown} */
  let body;
  try {
    body = await response.json();
  } catch {
    return new ApiError(response.status, "http_error", `The agent answered ${fallback}`);
  }
  const record = typeof body === "object" && body !== null ? /** @type {Record<string, unknown>} */ (body) : {};
  const error = record["error"];
  const nested = typeof error === "object" && error !== null ? /** @type {Record<string, unknown>} */ (error) : {};
  const code = typeof error === "string" ? error : typeof nested["code"] === "string" ? nested["code"] : "http_error";
  const message = typeof record["message"] === "string" ? record["message"] : typeof nested["message"] === "string" ? nested["message"] : fallback;
  return new ApiError(response.status, code, message);
}
