// @ts-check
/**
 * The Raw tab: the selected session's events exactly as the stream sent them, one JSON line each,
 * with the index in front.
 * @module
 */
import { h, isNearBottom } from "./dom.js";

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 */
export function createRawView({ panel, feed }) {
  const title = h("code", { attrs: { "data-testid": "raw-session-id" } });
  const count = h("span", { className: "muted" });
  const lines = h("ol", { className: "raw-lines", attrs: { "aria-label": "Events" } });
  const empty = h("p", { className: "muted empty", text: "No session selected. Start a chat, or open a session from Runs." });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "Raw events" }), title, count), empty, lines);

  feed.subscribe({
    reset(sessionId) {
      lines.replaceChildren();
      title.textContent = sessionId ?? "";
      empty.hidden = sessionId !== null;
      count.textContent = "";
    },
    event(event) {
      const follow = isNearBottom(panel);
      lines.append(h("li", {}, h("span", { className: "index", text: String(event.index) }), h("code", { text: JSON.stringify(event) })));
      count.textContent = `${lines.childElementCount} events`;
      if (follow) panel.scrollTop = panel.scrollHeight;
    },
  });

  return {};
}
