// @ts-check
/**
 * The Branches tab: a forked session beside its source, from their common point
 * (docs/guide/forking.md "Comparing branches"). The fork's `session.forked` names the source and
 * the index both logs share up to; the view shows the last exchange of that shared part once,
 * then what each branch did after it, side by side: messages, tool calls and their results,
 * approvals and failures (the streamed deltas and step bookkeeping are left to Chat and Raw).
 * @module
 */
import { errorLine, h, outputText } from "./dom.js";

/** @typedef {import("./types.js").SessionEvent} SessionEvent */

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 * @param {(sessionId: string, tab: "chat" | "raw") => void} deps.openSession
 */
export function createBranchesView({ panel, api, feed, openSession }) {
  const problem = errorLine();
  const refresh = h("button", { text: "Refresh", attrs: { type: "button" }, on: { click: () => void load() } });
  const empty = h("p", { className: "muted empty" });
  const common = h("section", { className: "branch-common", attrs: { "aria-label": "Common point" } });
  const columns = h("div", { className: "branch-columns" });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "Branches" }), h("span", { className: "spacer" }), refresh), problem.element, empty, common, columns);

  /** @type {{sourceSessionId: string, atIndex: number} | undefined} */
  let forked;
  let visible = false;
  /** Bumped per load, so a slow answer for an earlier selection is dropped. */
  let generation = 0;

  feed.subscribe({
    reset() {
      forked = undefined;
      generation++;
      render();
    },
    event(event) {
      const data = event.data;
      if (event.type === "session.forked" && typeof data.sourceSessionId === "string" && typeof data.atIndex === "number") {
        forked = { sourceSessionId: data.sourceSessionId, atIndex: data.atIndex };
        if (visible) void load();
      } else if (visible && forked && (event.type === "session.waiting" || event.type === "session.completed" || event.type === "session.failed")) {
        // A branch moved on: show where it rests now.
        void load();
      }
    },
  });

  /** The view as far as the selection says, before (or without) loading the logs. */
  function render() {
    problem.clear();
    common.replaceChildren();
    columns.replaceChildren();
    refresh.hidden = !forked;
    empty.hidden = Boolean(forked);
    empty.textContent = feed.sessionId
      ? "This session is not a fork. Fork it from any line in Raw, then compare the branches here."
      : "No session selected. Open a forked session to compare it with its source.";
  }

  async function load() {
    const fork = feed.sessionId;
    const point = forked;
    if (!fork || !point) return render();
    const mine = ++generation;
    problem.clear();
    try {
      const [source, branch] = await Promise.all([events(point.sourceSessionId), events(fork)]);
      if (mine !== generation) return;
      show(point, source, branch, fork);
    } catch (error) {
      if (mine === generation) problem.show(error);
    }
  }

  /**
   * @param {{sourceSessionId: string, atIndex: number}} point
   * @param {SessionEvent[]} source
   * @param {SessionEvent[]} branch
   * @param {string} fork
   */
  function show(point, source, branch, fork) {
    empty.hidden = true;
    refresh.hidden = false;
    const shared = source.filter((event) => event.index <= point.atIndex);
    const lastAsked = shared.findLast((event) => event.type === "message.received");
    const lastAnswer = shared.findLast((event) => event.type === "message.completed" && typeof event.data.text === "string" && event.data.text !== "");
    common.replaceChildren(
      h("h3", { text: `Common point: event ${point.atIndex}` }),
      h("p", { className: "muted", text: `Both branches hold the same ${point.atIndex + 1} events up to here.` }),
      h("ol", { className: "branch-entries" }, entryOf(lastAsked), lastAnswer && (!lastAsked || lastAnswer.index > lastAsked.index) ? entryOf(lastAnswer) : undefined),
    );
    columns.replaceChildren(
      column("Source", point.sourceSessionId, source.filter((event) => event.index > point.atIndex)),
      column("Fork", fork, branch.filter((event) => event.index > point.atIndex)),
    );
  }

  /**
   * @param {string} label
   * @param {string} sessionId
   * @param {SessionEvent[]} after
   */
  function column(label, sessionId, after) {
    const entries = after.flatMap((event) => entryOf(event) ?? []);
    return h(
      "section",
      { className: "branch", attrs: { "aria-label": `${label} branch` } },
      h(
        "header",
        { className: "toolbar" },
        h("h3", { text: label }),
        h("code", { text: sessionId }),
        h("span", { className: "spacer" }),
        h("button", { text: "Open in Chat", attrs: { type: "button", "aria-label": `Open the ${label.toLowerCase()} in Chat` }, on: { click: () => openSession(sessionId, "chat") } }),
      ),
      entries.length > 0 ? h("ol", { className: "branch-entries" }, ...entries) : h("p", { className: "muted", text: "Nothing after the common point yet." }),
    );
  }

  /** @param {string} sessionId */
  async function events(sessionId) {
    const response = await api.request(`/v1/session/${encodeURIComponent(sessionId)}/events`);
    return (await response.text())
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => /** @type {SessionEvent} */ (JSON.parse(line)));
  }

  return {
    show() {
      visible = true;
      void load();
    },
    hide() {
      visible = false;
    },
  };
}

/**
 * The line Chat shows for a forked session: where it was forked from, and a way to the Branches
 * tab. Hidden for any other session.
 * @param {object} deps
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 * @param {() => void} deps.compare
 * @returns {HTMLElement}
 */
export function createForkNotice({ feed, compare }) {
  const text = h("span", { className: "muted" });
  const notice = h(
    "span",
    { className: "fork-notice", hidden: true },
    text,
    h("button", { text: "Compare branches", attrs: { type: "button" }, on: { click: compare } }),
  );
  feed.subscribe({
    reset() {
      notice.hidden = true;
    },
    event(event) {
      if (event.type !== "session.forked") return;
      text.textContent = `forked from ${String(event.data.sourceSessionId ?? "")} at event ${String(event.data.atIndex ?? "")}`;
      notice.hidden = false;
    },
  });
  return notice;
}

/**
 * One readable line for an event that tells the story of a branch, or undefined for the others.
 * @param {SessionEvent | undefined} event
 * @returns {HTMLLIElement | undefined}
 */
function entryOf(event) {
  if (!event) return undefined;
  const data = event.data;
  /** @param {string} kind @param {string} text @param {string} [extra] */
  const line = (kind, text, extra = "") => h("li", { className: `branch-entry ${kind} ${extra}`.trim(), attrs: { "data-index": String(event.index) } }, h("span", { className: "index", text: String(event.index) }), h("span", { className: "kind", text: kind }), h("span", { className: "text", text }));
  switch (event.type) {
    case "message.received":
      return line("you", String(data.text ?? ""));
    case "message.completed":
      return typeof data.text === "string" && data.text !== "" ? line("assistant", data.text) : undefined;
    case "actions.requested": {
      const actions = Array.isArray(data.actions) ? data.actions : [];
      const names = actions.map((action) => (typeof action === "object" && action !== null && "toolName" in action ? `${String(action.toolName)}(${JSON.stringify("input" in action ? action.input : {})})` : "?"));
      return line("tool call", names.join(", "));
    }
    case "action.approval_requested":
      return line("approval", `asked for ${String(data.toolName ?? "")}`);
    case "action.approval_resolved":
      return line("approval", data.decision === "approve" ? "approved" : "denied", data.decision === "approve" ? "" : "bad");
    case "action.result":
      return line("result", outputText(data.output), data.isError === true ? "bad" : "");
    case "turn.failed":
      return line("turn failed", String(data.message ?? ""), "bad");
    case "session.forked":
      return line("forked", `from ${String(data.sourceSessionId ?? "")} at event ${String(data.atIndex ?? "")}`);
    default:
      return undefined;
  }
}
