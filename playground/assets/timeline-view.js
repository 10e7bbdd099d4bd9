// @ts-check
/**
 * The Timeline tab: the selected session's turns, each with its duration, tokens and estimated
 * cost, and inside it the model steps and tool calls with their durations, built from the same
 * events as Chat and Raw (the cost from `GET /v1/session/:id/cost` once a turn ends), and above
 * them the session's usage against each budget limit when the agent sets budgets.
 * @module
 */
import { errorLine, h } from "./dom.js";

/** @typedef {import("./types.js").SessionEvent} SessionEvent */

/**
 * @typedef {object} TurnRow
 * @property {string} turnId
 * @property {number | undefined} startedAt
 * @property {HTMLElement} element
 * @property {HTMLElement} summary
 * @property {HTMLElement} items
 * @property {Map<string, {at: number, element: HTMLElement}>} calls
 * @property {string} status
 * @property {string} detail
 */

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 */
export function createTimelineView({ panel, api, feed }) {
  const problem = errorLine();
  const title = h("code", { attrs: { "data-testid": "timeline-session-id" } });
  const list = h("ol", { className: "timeline", attrs: { "aria-label": "Turns" } });
  const budgets = h("ul", { className: "budgets", attrs: { "aria-label": "Budgets", "data-testid": "timeline-budgets" } });
  budgets.hidden = true;
  const empty = h("p", { className: "muted empty", text: "No session selected. Start a chat, or open a session from Runs." });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "Timeline" }), title), problem.element, empty, budgets, list);

  /** @type {Map<string, TurnRow>} */
  const turns = new Map();
  /** @type {string | null} */
  let sessionId = null;
  /** @type {Map<string, number | null>} */
  const costs = new Map();

  feed.subscribe({
    reset(id) {
      sessionId = id;
      turns.clear();
      costs.clear();
      list.replaceChildren();
      budgets.replaceChildren();
      budgets.hidden = true;
      problem.clear();
      title.textContent = id ?? "";
      empty.hidden = id !== null;
    },
    event(event) {
      apply(event);
    },
  });

  /** @param {SessionEvent} event */
  function apply(event) {
    const data = /** @type {Record<string, unknown>} */ (event.data ?? {});
    const at = Date.parse(event.at);
    const turn = event.turnId ? turnRow(event.turnId) : undefined;
    if (!turn) return;
    switch (event.type) {
      case "message.received":
        turn.detail = `“${shorten(String(data["text"] ?? ""), 80)}”`;
        break;
      case "budget.exceeded":
        turn.items.append(h("li", { className: "budget", text: `Budget reached: ${String(data["scope"])} ${String(data["limit"])} ${amount(data["used"])} of ${amount(data["max"])}` }));
        void loadCost();
        break;
      case "turn.started":
        turn.startedAt = at;
        turn.status = "running";
        break;
      case "step.completed":
        turn.items.append(h("li", { className: "step", text: `Step ${Number(data["stepIndex"] ?? 0) + 1}: ${duration(Number(data["durationMs"] ?? 0))}${data["finishReason"] === "tool_call" ? " · called tools" : ""}` }));
        break;
      case "actions.requested":
        for (const action of Array.isArray(data["actions"]) ? data["actions"] : []) {
          const call = /** @type {Record<string, unknown>} */ (action);
          const element = h("li", { className: "tool", text: `⚙ ${String(call["toolName"])} …` });
          turn.calls.set(String(call["toolCallId"]), { at, element });
          turn.items.append(element);
        }
        break;
      case "action.result": {
        const call = turn.calls.get(String(data["toolCallId"]));
        const text = `⚙ ${String(data["toolName"])} ${data["isError"] === true ? "failed" : "ok"}${call ? ` in ${duration(at - call.at)}` : ""}`;
        if (call) call.element.textContent = text;
        else turn.items.append(h("li", { className: "tool", text }));
        break;
      }
      case "turn.completed": {
        const usage = /** @type {Record<string, unknown>} */ (data["usage"] ?? {});
        turn.status = "completed";
        turn.detail = `${turn.detail} · ${Number(usage["inputTokens"] ?? 0)} in / ${Number(usage["outputTokens"] ?? 0)} out tokens`;
        if (turn.startedAt !== undefined) turn.detail += ` · ${duration(at - turn.startedAt)}`;
        void loadCost();
        break;
      }
      case "turn.failed":
        turn.status = data["message"] === "turn interrupted" ? "stopped" : "failed";
        if (turn.startedAt !== undefined) turn.detail += ` · ${duration(at - turn.startedAt)}`;
        if (turn.status === "failed") turn.detail += ` · ${String(data["message"] ?? "")}`;
        break;
      default:
        return;
    }
    render(turn);
  }

  /** @param {string} turnId */
  function turnRow(turnId) {
    let turn = turns.get(turnId);
    if (!turn) {
      const summary = h("div", { className: "turn-summary" });
      const items = h("ul", { className: "turn-items" });
      const element = h("li", { className: "turn", attrs: { "aria-label": `Turn ${turns.size + 1}` } }, summary, items);
      turn = { turnId, startedAt: undefined, element, summary, items, calls: new Map(), status: "queued", detail: "" };
      turns.set(turnId, turn);
      list.append(element);
    }
    return turn;
  }

  /** @param {TurnRow} turn */
  function render(turn) {
    const index = [...turns.keys()].indexOf(turn.turnId) + 1;
    const cost = costs.get(turn.turnId);
    const price = cost === undefined ? "" : cost === null ? " · unpriced" : ` · $${cost.toFixed(6)}`;
    turn.summary.replaceChildren(
      h("strong", { text: `Turn ${index}` }),
      h("span", { className: `badge ${turn.status}`, text: turn.status }),
      h("span", { className: "muted", text: `${turn.detail}${price}` }),
    );
  }

  async function loadCost() {
    const id = sessionId;
    if (!id) return;
    try {
      /** @type {{turns: Array<{turnId: string | null, estimatedCostUsd: number | null}>, budgets?: Record<string, BudgetScope>}} */
      const report = await api.get(`/v1/session/${encodeURIComponent(id)}/cost`);
      if (id !== sessionId) return;
      for (const entry of report.turns) if (entry.turnId) costs.set(entry.turnId, entry.estimatedCostUsd);
      for (const turn of turns.values()) render(turn);
      renderBudgets(report.budgets);
    } catch (error) {
      problem.show(error);
    }
  }

  /** @param {Record<string, BudgetScope> | undefined} report */
  function renderBudgets(report) {
    const scopes = Object.entries(report ?? {});
    budgets.hidden = scopes.length === 0;
    budgets.replaceChildren(
      ...scopes.map(([scope, entry]) => {
        const limits = Object.entries(entry.limits).map(([limit, max]) => `${limit} ${amount(entry.used[limit])} / ${amount(max)}${entry.exceeded.includes(limit) ? " (used up)" : ""}`);
        const window = entry.window ? ` · resets ${entry.window.resetsAt}` : "";
        return h("li", { className: entry.exceeded.length > 0 ? "budget exceeded" : "budget", text: `${SCOPE_NAMES[scope] ?? scope}: ${limits.join(" · ")}${window}` });
      }),
    );
  }

  return {};
}

/**
 * One scope of the cost report's `budgets`.
 * @typedef {object} BudgetScope
 * @property {Record<string, number>} limits
 * @property {Record<string, number>} used
 * @property {string[]} exceeded
 * @property {{day: string, resetsAt: string}} [window]
 */

/** @type {Record<string, string>} */
const SCOPE_NAMES = { turn: "Latest turn", session: "Session", principalPerDay: "You today (UTC)", agentPerDay: "Agent today (UTC)" };

/** @param {unknown} value */
function amount(value) {
  const number = Number(value ?? 0);
  return Number.isInteger(number) ? String(number) : String(Math.round(number * 1e4) / 1e4);
}

/** @param {number} ms */
function duration(ms) {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * @param {string} text
 * @param {number} max
 */
function shorten(text, max) {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
