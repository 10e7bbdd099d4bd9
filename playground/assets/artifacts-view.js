// @ts-check
/**
 * The Artifacts tab: the agent's artifacts visible to the caller (`GET /v1/artifacts`), newest
 * first, filterable by kind and by the selected session, with their data and a Download button for
 * those with a payload (fetched through the API, so a bearer token applies, then saved by the
 * browser under the name the server gives).
 * @module
 */
import { errorLine, formatTime, h, jsonText } from "./dom.js";

/**
 * @typedef {object} ArtifactRecord
 * @property {string} id
 * @property {string} kind
 * @property {string} key
 * @property {string} title
 * @property {unknown} data
 * @property {"host" | "model"} source
 * @property {string} sessionId
 * @property {boolean} hasContent
 * @property {string} [contentType]
 * @property {string} updatedAt
 */

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 * @param {(sessionId: string, tab: "chat" | "raw") => void} deps.openSession
 */
export function createArtifactsView({ panel, api, feed, openSession }) {
  const problem = errorLine();
  const kind = h("select", { attrs: { "aria-label": "Kind" } }, h("option", { text: "All kinds", attrs: { value: "" } }));
  const onlySession = h("input", { attrs: { type: "checkbox", "aria-label": "Only the selected session" } });
  const refresh = h("button", { text: "Refresh", attrs: { type: "button" }, on: { click: () => void load() } });
  const list = h("ul", { className: "rows", attrs: { "aria-label": "Artifacts" } });
  const empty = h("p", { className: "muted empty", text: "No artifacts yet.", hidden: true });
  const more = h("button", { text: "Load more", hidden: true, attrs: { type: "button", "aria-label": "Load more artifacts" }, on: { click: () => void loadMore() } });
  /** Where the next page starts (the query it belongs to); null when everything is loaded. */
  /** @type {{query: URLSearchParams, cursor: string} | null} */
  let next = null;
  panel.append(
    h("div", { className: "toolbar" }, h("h2", { text: "Artifacts" }), kind, h("label", { className: "row" }, onlySession, h("span", { text: "Only the selected session" })), h("span", { className: "spacer" }), refresh),
    problem.element,
    list,
    empty,
    more,
  );
  kind.addEventListener("change", () => void load());
  onlySession.addEventListener("change", () => void load());

  async function load() {
    problem.clear();
    const query = new URLSearchParams();
    if (kind.value) query.set("kind", kind.value);
    if (onlySession.checked && feed.sessionId) query.set("sessionId", feed.sessionId);
    try {
      /** @type {{artifacts: ArtifactRecord[], nextCursor?: string | null}} */
      const { artifacts, nextCursor } = await api.get(`/v1/artifacts${query.size > 0 ? `?${query}` : ""}`);
      if (!kind.value) {
        // The kinds of the first page: enough to filter by, and the filter pages on its own.
        const kinds = [...new Set(artifacts.map((item) => item.kind))].sort();
        kind.replaceChildren(h("option", { text: "All kinds", attrs: { value: "" } }), ...kinds.map((name) => h("option", { text: name, attrs: { value: name } })));
      }
      list.replaceChildren(...artifacts.map(row));
      empty.hidden = artifacts.length > 0;
      next = nextCursor ? { query, cursor: nextCursor } : null;
      more.hidden = next === null;
    } catch (error) {
      problem.show(error);
    }
  }

  async function loadMore() {
    if (!next) return;
    problem.clear();
    more.disabled = true;
    const query = new URLSearchParams(next.query);
    query.set("cursor", next.cursor);
    try {
      /** @type {{artifacts: ArtifactRecord[], nextCursor?: string | null}} */
      const { artifacts, nextCursor } = await api.get(`/v1/artifacts?${query}`);
      list.append(...artifacts.map(row));
      next = nextCursor ? { query: next.query, cursor: nextCursor } : null;
      more.hidden = next === null;
    } catch (error) {
      problem.show(error);
    } finally {
      more.disabled = false;
    }
  }

  /** @param {ArtifactRecord} item */
  function row(item) {
    return h(
      "li",
      { className: "row-item artifact", attrs: { "aria-label": `Artifact ${item.kind}/${item.key}` } },
      h(
        "div",
        { className: "row-main" },
        h("span", { className: "row-title", text: item.title || `${item.kind}/${item.key}` }),
        h("code", { className: "muted", text: `${item.kind}/${item.key}` }),
        h("span", { className: "badge", text: item.source }),
        h("time", { className: "muted", text: formatTime(item.updatedAt), attrs: { datetime: item.updatedAt } }),
      ),
      h("details", {}, h("summary", { text: "Data" }), h("pre", { text: jsonText(item.data) })),
      h("button", { text: "Session", attrs: { type: "button", "aria-label": `Open the session of ${item.kind}/${item.key}` }, on: { click: () => openSession(item.sessionId, "chat") } }),
      item.hasContent ? h("button", { text: "Download", attrs: { type: "button", "aria-label": `Download ${item.kind}/${item.key}` }, on: { click: () => void download(item) } }) : null,
    );
  }

  /** @param {ArtifactRecord} item */
  async function download(item) {
    problem.clear();
    try {
      const response = await api.request(`/v1/artifacts/${encodeURIComponent(item.id)}/content`);
      const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? item.key;
      const url = URL.createObjectURL(await response.blob());
      const link = h("a", { attrs: { href: url, download: name } });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      problem.show(error);
    }
  }

  return {
    show() {
      void load();
    },
  };
}
