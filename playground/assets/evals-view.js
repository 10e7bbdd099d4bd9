// @ts-check
/**
 * The Evals tab: the agent's evals with checkboxes, Run all / Run selected, and the run being
 * watched (polled until it is no longer running) with per-case results and a Cancel button.
 * @module
 */
import { errorLine, formatTime, h } from "./dom.js";

/** @typedef {import("./types.js").EvalListing} EvalListing */
/** @typedef {import("./types.js").EvalRunSnapshot} EvalRunSnapshot */

const POLL_MS = 400;

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {(sessionId: string, tab: "chat" | "raw") => void} deps.openSession
 */
export function createEvalsView({ panel, api, openSession }) {
  const problem = errorLine();
  const evalList = h("ul", { className: "rows", attrs: { "aria-label": "Evals" } });
  const evalsEmpty = h("p", { className: "muted empty", text: "This agent has no evals.", hidden: true });
  const runAll = h("button", { className: "primary", text: "Run all", attrs: { type: "button" }, on: { click: () => void start(undefined) } });
  const runSelected = h("button", { text: "Run selected", attrs: { type: "button" }, on: { click: () => void start(selectedIds()) } });
  const runPanel = h("section", { className: "eval-run", attrs: { "aria-label": "Eval run" }, hidden: true });

  panel.append(
    h("div", { className: "toolbar" }, h("h2", { text: "Evals" }), h("span", { className: "spacer" }), runSelected, runAll),
    problem.element,
    evalList,
    evalsEmpty,
    runPanel,
  );

  /** Bumped whenever a different run is shown, so an older poll loop stops. */
  let watching = 0;
  let loaded = false;
  evalList.addEventListener("change", () => updateButtons());

  async function load() {
    problem.clear();
    try {
      /** @type {{evals: EvalListing[]}} */
      const { evals } = await api.get("/v1/dev/evals");
      evalList.replaceChildren(...evals.map(evalRow));
      evalsEmpty.hidden = evals.length > 0;
      updateButtons();
      loaded = true;
      if (watching === 0) {
        /** @type {{activeRunId?: string}} */
        const runs = await api.get("/v1/dev/evals/runs");
        if (runs.activeRunId && watching === 0) void watch(runs.activeRunId);
      }
    } catch (error) {
      problem.show(error);
    }
  }

  /** @param {EvalListing} item */
  function evalRow(item) {
    const box = h("input", { attrs: { type: "checkbox", value: item.id } });
    return h(
      "li",
      { className: "row-item" },
      h(
        "label",
        { className: "row-main" },
        box,
        h("code", { className: "row-title", text: item.id }),
        item.description ? h("span", { className: "muted", text: item.description }) : null,
        ...item.tags.map((tag) => h("span", { className: "badge", text: tag })),
      ),
    );
  }

  function selectedIds() {
    return [...evalList.querySelectorAll("input[type=checkbox]")].filter((box) => box instanceof HTMLInputElement && box.checked).map((box) => /** @type {HTMLInputElement} */ (box).value);
  }

  function updateButtons() {
    runSelected.disabled = selectedIds().length === 0;
    runAll.disabled = evalList.childElementCount === 0;
  }

  /** @param {string[] | undefined} filterIds */
  async function start(filterIds) {
    problem.clear();
    runAll.disabled = true;
    runSelected.disabled = true;
    try {
      /** @type {EvalRunSnapshot} */
      const snapshot = await api.post("/v1/dev/evals/runs", filterIds ? { filterIds } : {});
      void watch(snapshot.runId, snapshot);
    } catch (error) {
      problem.show(error);
    } finally {
      updateButtons();
    }
  }

  /**
   * Shows `runId` and polls it until it finishes (or another run is shown).
   * @param {string} runId
   * @param {EvalRunSnapshot} [first]
   */
  async function watch(runId, first) {
    const ticket = ++watching;
    let snapshot = first;
    for (;;) {
      try {
        snapshot ??= /** @type {EvalRunSnapshot} */ (await api.get(`/v1/dev/evals/runs/${encodeURIComponent(runId)}`));
      } catch (error) {
        if (ticket === watching) problem.show(error);
        return;
      }
      if (ticket !== watching) return;
      renderRun(snapshot);
      if (snapshot.status !== "running") return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (ticket !== watching) return;
      snapshot = undefined;
    }
  }

  /** @param {string} runId */
  async function cancel(runId) {
    try {
      /** @type {EvalRunSnapshot} */
      const snapshot = await api.post(`/v1/dev/evals/runs/${encodeURIComponent(runId)}/cancel`, {});
      ++watching;
      renderRun(snapshot);
    } catch (error) {
      problem.show(error);
    }
  }

  /** @param {EvalRunSnapshot} run */
  function renderRun(run) {
    const running = run.status === "running";
    runPanel.replaceChildren(
      h(
        "div",
        { className: "toolbar" },
        h("h3", { text: "Run " }, h("code", { text: run.runId })),
        h("span", { className: `badge ${run.status}`, text: run.status, attrs: { "data-testid": "eval-run-status" } }),
        h("span", { className: "muted", text: `${run.passed} passed · ${run.failed} failed · ${run.total} total` }),
        h("span", { className: "muted", text: `started ${formatTime(run.startedAt)}` }),
        h("span", { className: "spacer" }),
        running ? h("button", { className: "danger", text: "Cancel", attrs: { type: "button" }, on: { click: () => void cancel(run.runId) } }) : null,
      ),
      ...run.errors.map((problemLine) => h("p", { className: "notice error", text: problemLine.message })),
      h("ul", { className: "rows", attrs: { "aria-label": "Eval cases" } }, ...run.cases.map(caseRow)),
    );
    runPanel.hidden = false;
  }

  /** @param {import("./types.js").EvalCaseResult} item */
  function caseRow(item) {
    const sessionId = item.sessionId;
    return h(
      "li",
      { className: "case" },
      h(
        "div",
        { className: "row" },
        h("code", { className: "row-title", text: item.id }),
        h("span", { className: `badge ${item.status}`, text: item.status }),
        item.durationMs ? h("span", { className: "muted", text: `${item.durationMs} ms` }) : null,
        sessionId ? h("button", { text: "Open session", attrs: { type: "button" }, on: { click: () => openSession(sessionId, "chat") } }) : null,
      ),
      item.failures.length > 0
        ? h("ul", { className: "failures" }, ...item.failures.map((failure) => h("li", { text: `${failure.assertion}: ${failure.message}` })))
        : null,
    );
  }

  return {
    show() {
      if (!loaded) void load();
    },
    /** @param {string} runId */
    showRun(runId) {
      if (!loaded) void load();
      void watch(runId);
    },
  };
}
