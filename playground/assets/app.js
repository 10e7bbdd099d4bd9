// @ts-check
/**
 * The playground's entry: the header (agent name and model), the tabs, and the URL. The URL keeps
 * `?sessionId=` (the link `POST /v1/session` answers with) and `?tab=` in step with what is shown,
 * so a reload or a shared link opens the same view.
 * @module
 */
import { createA2aView } from "./a2a-view.js";
import { createAgentView } from "./agent-view.js";
import { createBranchesView, createForkNotice } from "./branches-view.js";
import { Api, readBasePath } from "./api.js";
import { createTokenPrompt } from "./auth-dialog.js";
import { createChatView } from "./chat-view.js";
import { errorMessage, h } from "./dom.js";
import { createEvalsView } from "./evals-view.js";
import { createLogsView } from "./logs-view.js";
import { createRawView } from "./raw-view.js";
import { createArtifactsView } from "./artifacts-view.js";
import { createRunsView } from "./runs-view.js";
import { createTimelineView } from "./timeline-view.js";
import { SessionFeed } from "./session-feed.js";
import { SessionTokens } from "./session-tokens.js";

/** @typedef {"chat" | "timeline" | "runs" | "artifacts" | "a2a" | "evals" | "agent" | "raw" | "branches" | "logs"} TabName */
/** @typedef {{show?(): void, hide?(): void}} View */

/** @type {Array<[TabName, string]>} */
const TABS = [
  ["chat", "Chat"],
  ["timeline", "Timeline"],
  ["runs", "Runs"],
  ["artifacts", "Artifacts"],
  ["a2a", "A2A"],
  ["evals", "Evals"],
  ["agent", "Agent"],
  ["raw", "Raw"],
  ["branches", "Branches"],
  ["logs", "Logs"],
];

// Read before anything syncs the URL to the (still empty) state.
const params = new URLSearchParams(location.search);
const deepLink = params.get("sessionId");
const requested = params.get("tab");

const base = readBasePath();
const api = new Api(base, createTokenPrompt());
const feed = new SessionFeed(api);
const tokens = new SessionTokens(base);

const tablist = h("nav", { className: "tabs", attrs: { role: "tablist", "aria-label": "Playground sections" } });
const main = h("main");
/** @type {Map<TabName, {tab: HTMLButtonElement, panel: HTMLElement}>} */
const parts = new Map();
for (const [name, label] of TABS) {
  const tab = h("button", {
    text: label,
    attrs: { type: "button", role: "tab", id: `tab-${name}`, "aria-controls": `panel-${name}`, "aria-selected": "false", tabindex: "-1" },
    on: { click: () => showTab(name), keydown: (event) => moveFocus(event, name) },
  });
  const panel = h("section", { className: `panel panel-${name}`, attrs: { role: "tabpanel", id: `panel-${name}`, "aria-labelledby": `tab-${name}` }, hidden: true });
  tablist.append(tab);
  main.append(panel);
  parts.set(name, { tab, panel });
}

const agentName = h("h1", { text: "Agent" });
const badges = h("div", { className: "badges" });
document.body.append(h("header", { className: "top" }, h("div", { className: "brand" }, agentName, badges), tablist), main);

/**
 * @param {TabName} name
 * @returns {HTMLElement}
 */
const panelOf = (name) => /** @type {{panel: HTMLElement}} */ (parts.get(name)).panel;

/**
 * @param {string} sessionId
 * @param {"chat" | "raw"} tab
 */
const openSession = (sessionId, tab) => {
  feed.open(sessionId);
  showTab(tab);
};

const chatView = createChatView({ panel: panelOf("chat"), api, feed, tokens, toolbarExtra: createForkNotice({ feed, compare: () => showTab("branches") }) });
const evalsView = createEvalsView({ panel: panelOf("evals"), api, openSession });
/** @type {Record<TabName, View>} */
const views = {
  chat: chatView,
  timeline: createTimelineView({ panel: panelOf("timeline"), api, feed }),
  runs: createRunsView({
    panel: panelOf("runs"),
    api,
    tokens,
    openSession,
    openEvalRun: (runId) => {
      showTab("evals");
      evalsView.showRun(runId);
    },
  }),
  artifacts: createArtifactsView({ panel: panelOf("artifacts"), api, feed, openSession }),
  a2a: createA2aView({ panel: panelOf("a2a"), api, feed, base }),
  evals: evalsView,
  agent: createAgentView({ panel: panelOf("agent"), api }),
  raw: createRawView({ panel: panelOf("raw"), api, tokens, feed, openSession }),
  branches: createBranchesView({ panel: panelOf("branches"), api, feed, openSession }),
  logs: createLogsView({ panel: panelOf("logs"), api }),
};

/** @type {TabName | undefined} */
let current;

/** @param {TabName} name */
function showTab(name) {
  if (current === name) return;
  if (current) views[current].hide?.();
  current = name;
  for (const [key, { tab, panel }] of parts) {
    const selected = key === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    panel.hidden = !selected;
  }
  syncUrl();
  views[name].show?.();
}

/**
 * Arrow keys move between tabs, as the ARIA tabs pattern has it.
 * @param {KeyboardEvent} event
 * @param {TabName} name
 */
function moveFocus(event, name) {
  const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
  if (step === 0) return;
  const index = TABS.findIndex(([key]) => key === name);
  const [next] = /** @type {[TabName, string]} */ (TABS[(index + step + TABS.length) % TABS.length]);
  showTab(next);
  parts.get(next)?.tab.focus();
}

function syncUrl() {
  const url = new URL(location.href);
  if (feed.sessionId) url.searchParams.set("sessionId", feed.sessionId);
  else url.searchParams.delete("sessionId");
  if (current && current !== "chat") url.searchParams.set("tab", current);
  else url.searchParams.delete("tab");
  if (url.href !== location.href) history.replaceState(null, "", url);
}

feed.subscribe({ reset: () => syncUrl() });

async function loadHeader() {
  try {
    /** @type {import("./types.js").AgentMeta} */
    const meta = await api.get("/v1/meta");
    agentName.textContent = meta.name;
    document.title = `${meta.name} · playground`;
    badges.append(h("span", { className: "badge", text: `v${meta.version}` }));
    if (meta.dev) badges.append(h("span", { className: "badge pending", text: "dev" }));
    /** @type {import("./types.js").ProjectInfo} */
    const info = await api.get("/v1/info");
    badges.prepend(h("span", { className: "badge", text: info.model.id, attrs: { title: "Model" } }));
    chatView.describeModel(info.model.id);
  } catch (error) {
    badges.append(h("span", { className: "badge bad", text: errorMessage(error), attrs: { role: "alert" } }));
  }
}

if (deepLink) feed.open(deepLink);
showTab(TABS.some(([key]) => key === requested) ? /** @type {TabName} */ (requested) : "chat");
void loadHeader();
