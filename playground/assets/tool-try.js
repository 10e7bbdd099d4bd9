// @ts-check
/**
 * The "Try" form of one server tool: JSON input, a Call button sending `POST /v1/tools/:name`,
 * and the `{ok, toolName, callId, isError, result, durationMs}` envelope or the error it got.
 * @module
 */
import { errorMessage, h, jsonText } from "./dom.js";

/** @typedef {import("./types.js").ToolCallOutcome} ToolCallOutcome */

/**
 * @param {import("./api.js").Api} api
 * @param {string} toolName
 * @returns {HTMLElement}
 */
export function createToolTry(api, toolName) {
  const input = h("textarea", { className: "code", attrs: { rows: "4", spellcheck: "false", "aria-label": `Input for ${toolName}` } });
  input.value = "{}";
  const call = h("button", { className: "primary", text: "Call", attrs: { type: "submit", "aria-label": `Call ${toolName}` } });
  const output = h("div", { className: "try-output", attrs: { role: "status", "aria-label": `Result of ${toolName}` } });
  const form = h("form", { className: "tool-try" }, input, h("div", { className: "row" }, call), output);

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void run();
  });

  async function run() {
    /** @type {unknown} */
    let parsed;
    try {
      parsed = JSON.parse(input.value || "{}");
    } catch (error) {
      output.replaceChildren(h("p", { className: "error-line", text: `The input is not valid JSON: ${errorMessage(error)}` }));
      return;
    }
    call.disabled = true;
    output.replaceChildren(h("p", { className: "muted", text: "Calling…" }));
    try {
      /** @type {ToolCallOutcome} */
      const outcome = await api.post(`/v1/tools/${encodeURIComponent(toolName)}`, { input: parsed });
      output.replaceChildren(
        h(
          "div",
          { className: "row" },
          h("span", { className: `badge ${outcome.isError ? "bad" : "ok"}`, text: outcome.isError ? "Tool error" : "OK" }),
          h("span", { className: "muted", text: `${outcome.durationMs} ms` }),
          h("code", { className: "muted", text: outcome.callId }),
        ),
        h("pre", { className: outcome.isError ? "failed" : "", text: jsonText(outcome.result) }),
      );
    } catch (error) {
      output.replaceChildren(h("p", { className: "error-line", text: errorMessage(error) }));
    } finally {
      call.disabled = false;
    }
  }

  return form;
}
