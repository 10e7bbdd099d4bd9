// @ts-check
/**
 * The Logs tab: recent server log lines from `GET /v1/logs?after=N`, polled about every two
 * seconds while the tab is shown and the page is visible, appended as they come.
 * @module
 */
import { errorLine, formatTime, h, isNearBottom } from "./dom.js";

/** @typedef {import("./types.js").LogLine} LogLine */

const POLL_MS = 2000;
/** Older lines are dropped from the page beyond this many. */
const MAX_LINES = 2000;

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 */
export function createLogsView({ panel, api }) {
  const problem = errorLine();
  const lines = h("ol", { className: "log-lines", attrs: { "aria-label": "Log lines" } });
  const empty = h("p", { className: "muted empty", text: "No log lines yet." });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "Logs" }), h("span", { className: "muted", text: "polled every 2 s while this tab is open" })), problem.element, empty, lines);

  let after = 0;
  let active = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let polling = false;

  document.addEventListener("visibilitychange", () => {
    if (active && document.visibilityState === "visible") void poll();
  });

  async function poll() {
    clearTimeout(timer);
    if (polling || !active || document.visibilityState !== "visible") return;
    polling = true;
    try {
      /** @type {{lines: LogLine[], next: number}} */
      const page = await api.get(`/v1/logs?after=${after}`);
      problem.clear();
      append(page.lines);
      after = page.next;
    } catch (error) {
      problem.show(error);
    } finally {
      polling = false;
      if (active) timer = setTimeout(() => void poll(), POLL_MS);
    }
  }

  /** @param {LogLine[]} batch */
  function append(batch) {
    if (batch.length === 0) return;
    const follow = isNearBottom(panel);
    for (const line of batch) {
      lines.append(
        h(
          "li",
          { className: `log ${line.level}` },
          h("time", { className: "muted", text: formatTime(line.at), attrs: { datetime: line.at } }),
          h("span", { className: "level", text: line.level }),
          h("span", { className: "message", text: line.message }),
        ),
      );
    }
    while (lines.childElementCount > MAX_LINES) lines.firstElementChild?.remove();
    empty.hidden = true;
    if (follow) panel.scrollTop = panel.scrollHeight;
  }

  return {
    show() {
      active = true;
      void poll();
    },
    hide() {
      active = false;
      clearTimeout(timer);
    },
  };
}
