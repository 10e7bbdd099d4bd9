// @ts-check
/**
 * Follows a session's NDJSON event stream with `fetch`, reading the body as it arrives. A dropped
 * connection is resumed from the last seen index + 1, and anything already seen is skipped, so
 * each event is delivered exactly once, in order.
 * @module
 */
import { ApiError } from "./api.js";

/** @typedef {import("./types.js").SessionEvent} SessionEvent */
/** @typedef {"connecting" | "live" | "reconnecting" | "ended" | "error"} StreamStatus */

/**
 * @typedef {object} FollowOptions
 * @property {import("./api.js").Api} api
 * @property {string} sessionId
 * @property {number} [startIndex]
 * @property {(event: SessionEvent) => void} onEvent
 * @property {(status: StreamStatus, message?: string) => void} onStatus
 * @property {AbortSignal} signal Aborting ends the follow for good.
 */

/** Events after which a stream has nothing more to say (task sessions end on them). */
const TERMINAL = new Set(["session.completed", "session.failed"]);

/**
 * Follows until `signal` aborts, the session ends, or the agent refuses the stream (4xx).
 * @param {FollowOptions} options
 * @returns {Promise<void>}
 */
export async function followStream(options) {
  const { api, sessionId, onEvent, onStatus, signal } = options;
  let next = options.startIndex ?? 0;
  let delayMs = 250;
  onStatus("connecting");
  while (!signal.aborted) {
    try {
      const response = await api.request(`/v1/session/${encodeURIComponent(sessionId)}/stream?startIndex=${next}`, {
        signal,
        headers: { accept: "application/x-ndjson" },
      });
      if (!response.body) throw new ApiError(0, "no_body", "the stream answered without a body");
      onStatus("live");
      delayMs = 250;
      let ended = false;
      for await (const line of readLines(response.body, signal)) {
        if (signal.aborted) return;
        /** @type {SessionEvent} */
        const event = JSON.parse(line);
        // A resumed stream starts at `next`; anything below it was delivered before the drop.
        if (event.index < next) continue;
        next = event.index + 1;
        onEvent(event);
        if (TERMINAL.has(event.type)) ended = true;
      }
      if (ended) {
        onStatus("ended");
        return;
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof SyntaxError) {
        onStatus("error", `The stream sent a line that is not JSON: ${error.message}`);
        return;
      }
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
        onStatus("error", error.message);
        return;
      }
    }
    if (signal.aborted) return;
    onStatus("reconnecting");
    await wait(delayMs, signal);
    delayMs = Math.min(delayMs * 2, 5000);
  }
}

/**
 * The complete, non-empty lines of a byte stream; a partial last line (a cut connection) is
 * dropped, since the resumed stream sends that event again.
 * @param {ReadableStream<Uint8Array>} body
 * @param {AbortSignal} signal
 * @returns {AsyncGenerator<string>}
 */
async function* readLines(body, signal) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const cancel = () => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", cancel, { once: true });
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) yield line;
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    cancel();
  }
}

/**
 * @param {number} ms
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function wait(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
