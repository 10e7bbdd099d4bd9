// @ts-check
/**
 * The Runs tab: the caller's sessions (newest first, a page at a time with "Load more"; the
 * loaded ones searchable by title or id; open one in Chat or Raw) and the eval runs (open one in
 * Evals).
 * @module
 */
import { errorLine, formatTime, h } from "./dom.js";

/** @typedef {import("./types.js").SessionSummary} SessionSummary */
/** @typedef {import("./types.js").EvalRunSnapshot} EvalRunSnapshot */

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-tokens.js").SessionTokens} deps.tokens
 * @param {(sessionId: string, tab: "chat" | "raw") => void} deps.openSession
 * @param {(runId: string) => void} deps.openEvalRun
 */
export function createRunsView({ panel, api, tokens, openSession, openEvalRun }) {
  const problem = errorLine();
  const search = h("input", { attrs: { type: "search", "aria-label": "Search sessions", placeholder: "Search by title or id" } });
  const sessionList = h("ul", { className: "rows", attrs: { "aria-label": "Sessions" } });
  const sessionsEmpty = h("p", { className: "muted empty" });
  const runList = h("ul", { className: "rows", attrs: { "aria-label": "Eval runs" } });
  const runsEmpty = h("p", { className: "muted empty", text: "No eval runs yet.", hidden: true });
  const refresh = h("button", { text: "Refresh", attrs: { type: "button" }, on: { click: () => void load() } });
  const more = h("button", { text: "Load more", hidden: true, attrs: { type: "button", "aria-label": "Load more sessions" }, on: { click: () => void loadMore() } });

  panel.append(
    h("div", { className: "toolbar" }, h("h2", { text: "Sessions" }), search, h("span", { className: "spacer" }), refresh),
    problem.element,
    sessionList,
    sessionsEmpty,
    more,
    h("div", { className: "toolbar" }, h("h2", { text: "Eval runs" })),
    runList,
    runsEmpty,
  );

  /** @type {SessionSummary[]} */
  let sessions = [];
  /** Where the next page of sessions starts; null when every session is loaded. */
  /** @type {string | null} */
  let nextCursor = null;
  search.addEventListener("input", () => renderSessions());

  async function load() {
    problem.clear();
    refresh.disabled = true;
    try {
      /** @type {[{sessions: SessionSummary[], nextCursor?: string | null}, {runs: EvalRunSnapshot[], activeRunId?: string}]} */
      const [listed, evals] = await Promise.all([api.get("/v1/sessions"), api.get("/v1/dev/evals/runs")]);
      sessions = [];
      addPage(listed);
      renderRuns(evals.runs);
    } catch (error) {
      problem.show(error);
    } finally {
      refresh.disabled = false;
    }
  }

  async function loadMore() {
    if (nextCursor === null) return;
    problem.clear();
    more.disabled = true;
    try {
      addPage(await api.get(`/v1/sessions?cursor=${encodeURIComponent(nextCursor)}`));
    } catch (error) {
      problem.show(error);
    } finally {
      more.disabled = false;
    }
  }

  /** @param {{sessions: SessionSummary[], nextCursor?: string | null}} page */
  function addPage(page) {
    // A session that changed between two pages may come again at the top of a refresh, never twice here.
    const known = new Set(sessions.map((item) => item.sessionId));
    sessions.push(...page.sessions.filter((item) => !known.has(item.sessionId)));
    nextCursor = page.nextCursor ?? null;
    // The list carries each session's current token: chatting on in one picked here just works.
    for (const item of page.sessions) tokens.set(item.sessionId, item.continuationToken);
    more.hidden = nextCursor === null;
    renderSessions();
  }

  function renderSessions() {
    const query = search.value.trim().toLowerCase();
    const shown = query
      ? sessions.filter((item) => item.sessionId.toLowerCase().includes(query) || (item.title ?? "").toLowerCase().includes(query))
      : sessions;
    sessionList.replaceChildren(...shown.map(sessionRow));
    sessionsEmpty.textContent = sessions.length === 0 ? "No sessions yet. Start one in Chat." : "No session matches the search.";
    sessionsEmpty.hidden = shown.length > 0;
  }

  /** @param {SessionSummary} item */
  function sessionRow(item) {
    const title = item.title || "(untitled)";
    return h(
      "li",
      { className: "row-item" },
      h(
        "button",
        { className: "row-main", attrs: { type: "button", title: "Open in Chat" }, on: { click: () => openSession(item.sessionId, "chat") } },
        h("span", { className: "row-title", text: title }),
        h("code", { className: "muted", text: item.sessionId }),
        h("span", { className: `badge ${item.status}`, text: item.status }),
        h("span", { className: "muted", text: item.mode }),
        // Which channel started the session: the built-in HTTP one, or a custom channel's route.
        h("span", { className: `badge channel${item.channel === "http" ? "" : " custom"}`, text: item.channel, attrs: { title: `channel ${item.channel}` } }),
        h("time", { className: "muted", text: formatTime(item.updatedAt), attrs: { datetime: item.updatedAt } }),
      ),
      h("button", { text: "Raw", attrs: { type: "button", "aria-label": `Open ${item.sessionId} in Raw` }, on: { click: () => openSession(item.sessionId, "raw") } }),
      h("button", { text: "Rename", attrs: { type: "button", "aria-label": `Rename ${item.sessionId}` }, on: { click: (event) => startRename(item, /** @type {HTMLElement} */ (event.currentTarget).closest("li")) } }),
      h("button", { className: "danger", text: "Delete", attrs: { type: "button", "aria-label": `Delete ${item.sessionId}` }, on: { click: () => void remove(item) } }),
    );
  }

  /**
   * Swaps the row for a small form with the title in an input; Enter saves, Escape cancels.
   * @param {SessionSummary} item
   * @param {Element | null} row
   */
  function startRename(item, row) {
    if (!row) return;
    const input = h("input", { attrs: { "aria-label": `New title for ${item.sessionId}`, maxlength: "200", value: item.title ?? "" } });
    const cancel = h("button", { text: "Cancel", attrs: { type: "button" }, on: { click: () => renderSessions() } });
    const form = h("form", { className: "row-item rename", on: { submit: (event) => { event.preventDefault(); void rename(item, input.value); } } }, input, h("button", { text: "Save", attrs: { type: "submit" } }), cancel);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") renderSessions();
    });
    row.replaceChildren(form);
    input.focus();
    input.select();
  }

  /**
   * @param {SessionSummary} item
   * @param {string} title
   */
  async function rename(item, title) {
    problem.clear();
    try {
      /** @type {{title: string}} */
      const answer = await api.patch(`/v1/session/${encodeURIComponent(item.sessionId)}`, { title });
      item.title = answer.title;
      renderSessions();
    } catch (error) {
      problem.show(error);
    }
  }

  /** @param {SessionSummary} item */
  async function remove(item) {
    if (!confirm(`Delete ${item.title || item.sessionId}? Its events and workspace are removed for good.`)) return;
    problem.clear();
    try {
      await api.remove(`/v1/session/${encodeURIComponent(item.sessionId)}`);
      sessions = sessions.filter((other) => other.sessionId !== item.sessionId);
      renderSessions();
    } catch (error) {
      problem.show(error);
    }
  }

  /** @param {EvalRunSnapshot[]} runs */
  function renderRuns(runs) {
    runList.replaceChildren(
      ...runs.map((run) =>
        h(
          "li",
          { className: "row-item" },
          h(
            "button",
            { className: "row-main", attrs: { type: "button", title: "Open in Evals" }, on: { click: () => openEvalRun(run.runId) } },
            h("code", { className: "row-title", text: run.runId }),
            h("span", { className: `badge ${run.status}`, text: run.status }),
            h("span", { className: "muted", text: `${run.passed} passed · ${run.failed} failed · ${run.total} total` }),
            h("time", { className: "muted", text: formatTime(run.startedAt), attrs: { datetime: run.startedAt } }),
          ),
        ),
      ),
    );
    runsEmpty.hidden = runs.length > 0;
  }

  return {
    show() {
      void load();
    },
  };
}
