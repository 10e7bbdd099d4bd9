// @ts-check
/**
 * Continuation tokens by session id, in localStorage under the page's base path, so a reload or
 * a second tab can keep chatting in a session this browser started.
 * @module
 */

export class SessionTokens {
  /** @type {string} */
  #key;

  /** @param {string} base */
  constructor(base) {
    this.#key = `agent-serve:continuation-tokens:${base}`;
  }

  /**
   * @param {string} sessionId
   * @returns {string | undefined}
   */
  get(sessionId) {
    return this.#read()[sessionId];
  }

  /**
   * @param {string} sessionId
   * @param {string} token
   */
  set(sessionId, token) {
    const all = this.#read();
    all[sessionId] = token;
    localStorage.setItem(this.#key, JSON.stringify(all));
  }

  // --- internals ---

  /** @returns {Record<string, string>} */
  #read() {
    const raw = localStorage.getItem(this.#key);
    if (!raw) return {};
    try {
      const parsed = JSON.parse(raw);
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
    } catch {
      // Not ours to keep (edited by hand or by an older page): start over; tokens can be re-read
      // from GET /v1/sessions.
      return {};
    }
  }
}
