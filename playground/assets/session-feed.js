// @ts-check
/**
 * The selected session and its events, shared by Chat and Raw: one live stream per page, opened
 * when a session is selected and aborted when another one is (or none).
 * @module
 */
import { followStream } from "./ndjson-stream.js";

/** @typedef {import("./types.js").SessionEvent} SessionEvent */
/** @typedef {import("./ndjson-stream.js").StreamStatus} StreamStatus */

/**
 * @typedef {object} FeedListener
 * @property {(sessionId: string | null) => void} [reset] The selection changed; drop what was shown.
 * @property {(event: SessionEvent) => void} [event]
 * @property {(status: StreamStatus | "idle", message?: string) => void} [status]
 */

export class SessionFeed {
  /** @type {string | null} */
  sessionId = null;
  /** @type {SessionEvent[]} */
  events = [];
  /** @type {StreamStatus | "idle"} */
  status = "idle";
  /** @type {import("./api.js").Api} */
  #api;
  /** @type {Set<FeedListener>} */
  #listeners = new Set();
  /** @type {AbortController | undefined} */
  #abort;

  /** @param {import("./api.js").Api} api */
  constructor(api) {
    this.#api = api;
  }

  /**
   * Registers a listener and replays the current state to it.
   * @param {FeedListener} listener
   */
  subscribe(listener) {
    this.#listeners.add(listener);
    listener.reset?.(this.sessionId);
    for (const event of this.events) listener.event?.(event);
    listener.status?.(this.status);
  }

  /**
   * Selects `sessionId` and follows its stream from the start; a no-op when already selected.
   * @param {string} sessionId
   */
  open(sessionId) {
    if (sessionId === this.sessionId) return;
    this.#select(sessionId);
    const abort = (this.#abort = new AbortController());
    void followStream({
      api: this.#api,
      sessionId,
      startIndex: 0,
      signal: abort.signal,
      onEvent: (event) => {
        this.events.push(event);
        for (const listener of this.#listeners) listener.event?.(event);
      },
      onStatus: (status, message) => this.#setStatus(status, message),
    });
  }

  /** Deselects (a new chat): the stream is aborted and the views emptied. */
  close() {
    if (this.sessionId === null) return;
    this.#select(null);
    this.#setStatus("idle");
  }

  // --- internals ---

  /** @param {string | null} sessionId */
  #select(sessionId) {
    this.#abort?.abort();
    this.#abort = undefined;
    this.sessionId = sessionId;
    this.events = [];
    for (const listener of this.#listeners) listener.reset?.(sessionId);
  }

  /**
   * @param {StreamStatus | "idle"} status
   * @param {string} [message]
   */
  #setStatus(status, message) {
    this.status = status;
    for (const listener of this.#listeners) listener.status?.(status, message);
  }
}
