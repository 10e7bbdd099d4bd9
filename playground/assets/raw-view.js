// @ts-check
/**
 * The Raw tab: the selected session's events exactly as the stream sent them, one JSON line each,
 * with the index in front and a Fork button that starts a new session from the events up to that
 * line (`POST /v1/session/:id/fork`, docs/guide/forking.md) and opens it in Chat.
 * @module
 */
import { errorLine, h, isNearBottom } from "./dom.js";

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-tokens.js").SessionTokens} deps.tokens
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 * @param {(sessionId: string, tab: "chat" | "raw") => void} deps.openSession
 */
export function createRawView({ panel, api, tokens, feed, openSession }) {
  const title = h("code", { attrs: { "data-testid": "raw-session-id" } });
  const count = h("span", { className: "muted" });
  const problem = errorLine();
  const lines = h("ol", { className: "raw-lines", attrs: { "aria-label": "Events" } });
  const empty = h("p", { className: "muted empty", text: "No session selected. Start a chat, or open a session from Runs." });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "Raw events" }), title, count), problem.element, empty, lines);
  /** @type {string | null} */
  let selected = null;

  feed.subscribe({
    reset(sessionId) {
      selected = sessionId;
      lines.replaceChildren();
      problem.clear();
      title.textContent = sessionId ?? "";
      empty.hidden = sessionId !== null;
      count.textContent = "";
    },
    event(event) {
      const follow = isNearBottom(panel);
      const fork = h("button", {
        className: "fork",
        text: "Fork",
        attrs: { type: "button", "aria-label": `Fork from event ${event.index}`, title: "Start a new session from the events up to here" },
        on: { click: () => void forkAt(event.index) },
      });
      lines.append(h("li", {}, h("span", { className: "index", text: String(event.index) }), h("code", { text: JSON.stringify(event) }), fork));
      count.textContent = `${lines.childElementCount} events`;
      if (follow) panel.scrollTop = panel.scrollHeight;
    },
  });

  /** @param {number} atIndex */
  async function forkAt(atIndex) {
    const source = selected;
    if (!source) return;
    problem.clear();
    try {
      /** @type {{sessionId: string, continuationToken: string}} */
      const forked = await api.post(`/v1/session/${encodeURIComponent(source)}/fork`, { atIndex });
      tokens.set(forked.sessionId, forked.continuationToken);
      openSession(forked.sessionId, "chat");
    } catch (error) {
      problem.show(error);
    }
  }

  return {};
}
