// @ts-check
/**
 * The "Try" form of one custom channel route: path parameters, a JSON query (GET) or body, a
 * Send button, the answer, and a Copy curl button. The last body sent is remembered per route.
 * @module
 */
import { callRoute, curlCommand } from "./channel-routes.js";
import { errorMessage, h } from "./dom.js";

/** @typedef {import("./channel-routes.js").CustomRoute} CustomRoute */

/**
 * @param {import("./api.js").Api} api
 * @param {CustomRoute} route
 * @returns {HTMLElement}
 */
export function createChannelTry(api, route) {
  const label = `${route.method} ${route.path}`;
  const storageKey = `agent-serve:channel-try:${api.base}:${route.method} ${route.relativePath}`;
  const names = [...route.relativePath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? "");
  const paramInputs = names.map((name) => h("input", { attrs: { type: "text", "aria-label": `${name} of ${label}`, placeholder: name } }));
  const usesQuery = route.method === "GET";
  const payload = h("textarea", { className: "code", attrs: { rows: "4", spellcheck: "false", "aria-label": `${usesQuery ? "Query" : "Body"} for ${label}` } });
  payload.value = localStorage.getItem(storageKey) ?? "{}";
  const send = h("button", { className: "primary", text: "Send", attrs: { type: "submit", "aria-label": `Send ${label}` } });
  const copy = h("button", { text: "Copy curl", attrs: { type: "button", "aria-label": `Copy curl for ${label}` } });
  const curl = h("pre", { className: "curl", hidden: true, attrs: { "aria-label": `curl for ${label}` } });
  const output = h("div", { className: "try-output", attrs: { role: "status", "aria-label": `Answer of ${label}` } });
  const form = h(
    "form",
    { className: "tool-try" },
    ...paramInputs,
    payload,
    h("div", { className: "row" }, send, copy),
    curl,
    output,
  );

  /** @returns {{path: string, query?: Record<string, unknown>, body?: unknown} | undefined} */
  function request() {
    /** @type {unknown} */
    let parsed;
    try {
      parsed = JSON.parse(payload.value || "{}");
    } catch (error) {
      output.replaceChildren(h("p", { className: "error-line", text: `The ${usesQuery ? "query" : "body"} is not valid JSON: ${errorMessage(error)}` }));
      return undefined;
    }
    let path = route.relativePath;
    names.forEach((name, i) => (path = path.replace(`:${name}`, encodeURIComponent(paramInputs[i]?.value ?? ""))));
    if (!usesQuery) return { path, body: parsed };
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      output.replaceChildren(h("p", { className: "error-line", text: "The query must be a JSON object of parameters." }));
      return undefined;
    }
    return { path, query: /** @type {Record<string, unknown>} */ (parsed) };
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void run();
  });
  copy.addEventListener("click", () => {
    const built = request();
    if (!built) return;
    curl.textContent = curlCommand(location.origin, api.base, route, built);
    curl.hidden = false;
    void navigator.clipboard?.writeText(curl.textContent).catch(() => {});
  });

  async function run() {
    const built = request();
    if (!built) return;
    localStorage.setItem(storageKey, payload.value);
    send.disabled = true;
    output.replaceChildren(h("p", { className: "muted", text: "Sending…" }));
    try {
      const answer = await callRoute(api, route, built);
      const ok = answer.status < 400;
      output.replaceChildren(
        h("div", { className: "row" }, h("span", { className: `badge ${ok ? "ok" : "bad"}`, text: String(answer.status) })),
        h("pre", { className: ok ? "" : "failed", text: pretty(answer.text) || "(empty body)" }),
      );
    } catch (error) {
      output.replaceChildren(h("p", { className: "error-line", text: errorMessage(error) }));
    } finally {
      send.disabled = false;
    }
  }

  return form;
}

// --- internals ---

/** JSON re-indented; any other text as is. @param {string} text */
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
