// @ts-check
/**
 * The A2A tab: the selected session's A2A tasks (docs/guide/a2a.md "The mapping"), one per turn,
 * with its state, when it last changed and its latest message, read with `ListTasks` over the
 * agent's JSON-RPC endpoint; and the endpoints a peer agent uses.
 * @module
 */
import { errorMessage, h } from "./dom.js";

/**
 * @typedef {{text?: string}} A2aPart
 * @typedef {{role: string, parts?: A2aPart[]}} A2aMessage
 * @typedef {{id: string, status: {state: string, timestamp?: string, message?: A2aMessage}, history?: A2aMessage[]}} A2aTask
 * @typedef {{result?: {tasks?: A2aTask[]}, error?: {code: number, message: string}}} ListTasksAnswer
 */

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 * @param {string} deps.base the agent's base path
 */
export function createA2aView({ panel, api, feed, base }) {
  const origin = location.origin;
  const endpoints = h(
    "p",
    { className: "muted" },
    "Agent card ",
    h("code", { text: `${origin}${base}/.well-known/agent-card.json` }),
    " · JSON-RPC and HTTP+JSON ",
    h("code", { text: `${origin}${base}/v1/a2a` }),
  );
  const list = h("ol", { className: "a2a-tasks", attrs: { "aria-label": "A2A tasks" } });
  const empty = h("p", { className: "muted empty" });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "A2A tasks" })), endpoints, empty, list);

  /** @type {string | null} */
  let sessionId = null;
  let visible = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;

  async function load() {
    const asked = sessionId;
    if (asked === null) {
      list.replaceChildren();
      empty.hidden = false;
      empty.textContent = "No session selected. Open a session from Runs to see its A2A tasks.";
      return;
    }
    try {
      /** @type {ListTasksAnswer} */
      const answer = await api.post("/v1/a2a", { jsonrpc: "2.0", id: 1, method: "ListTasks", params: { contextId: asked, historyLength: 1, pageSize: 100 } });
      if (asked !== sessionId) return;
      if (answer.error) throw new Error(answer.error.message);
      const tasks = answer.result?.tasks ?? [];
      empty.hidden = tasks.length > 0;
      empty.textContent = "No A2A tasks: this session was not opened by an A2A client.";
      list.replaceChildren(...tasks.map(row));
    } catch (error) {
      empty.hidden = false;
      empty.textContent = errorMessage(error);
    }
  }

  /** Many events arrive together while a turn runs: one read after they settle. */
  function soon() {
    clearTimeout(pending);
    pending = setTimeout(() => void load(), 200);
  }

  feed.subscribe({
    reset(id) {
      sessionId = id;
      if (visible) void load();
    },
    event() {
      if (visible) soon();
    },
  });

  return {
    show() {
      visible = true;
      void load();
    },
    hide() {
      visible = false;
      clearTimeout(pending);
    },
  };
}

// --- internals ---

/** The badge colours the other tabs use, by task state. */
/** @type {Record<string, string>} */
const BADGE = { completed: "ok", failed: "bad", canceled: "bad", working: "running", submitted: "queued", "input-required": "pending" };

/** @param {A2aTask} task */
function row(task) {
  const state = task.status.state.replace(/^TASK_STATE_/, "").toLowerCase().replace("_", "-");
  const message = task.status.message ?? task.history?.at(-1);
  const text = (message?.parts ?? []).map((part) => part.text ?? "").join(" ").trim();
  return h(
    "li",
    { className: "a2a-task", attrs: { "aria-label": `Task ${state}` } },
    h("span", { className: `badge ${BADGE[state] ?? ""}`, text: state }),
    h("code", { text: task.id }),
    h("span", { className: "muted", text: task.status.timestamp ?? "" }),
    text ? h("p", { text }) : "",
  );
}
