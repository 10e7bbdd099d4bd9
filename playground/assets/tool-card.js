// @ts-check
/**
 * One tool call in the conversation: its name and arguments, the approval it may wait for, and
 * its result or error. Built from `actions.requested`, `action.approval_*` and `action.result`.
 * @module
 */
import { errorMessage, h, jsonText, outputText } from "./dom.js";

/** @typedef {"approve" | "deny"} Decision */
/** @typedef {(callId: string, decision: Decision) => Promise<void>} DecisionHandler */

export class ToolCard {
  /** @type {HTMLElement} */
  element;
  /** @type {string} */
  callId;
  #status = h("span", { className: "badge", text: "Running" });
  #approval = h("div", { className: "approval", hidden: true });
  #output = h("div", { className: "tool-output", hidden: true });
  #finished = false;
  /** @type {HTMLButtonElement[]} */
  #buttons = [];

  /**
   * @param {string} callId
   * @param {string} toolName
   * @param {unknown} input
   */
  constructor(callId, toolName, input) {
    this.callId = callId;
    this.element = h(
      "article",
      { className: "tool-card", attrs: { "aria-label": `Tool call ${toolName}`, "data-call-id": callId } },
      h("header", { className: "row" }, h("span", { className: "tool-icon", text: "⚙", attrs: { "aria-hidden": "true" } }), h("code", { className: "tool-name", text: toolName }), this.#status),
      h("details", { className: "tool-args" }, h("summary", { text: "Arguments" }), h("pre", { text: jsonText(input) })),
      this.#approval,
      this.#output,
    );
  }

  /**
   * The call waits for a human: Approve and Deny call `decide`; its errors are shown here.
   * @param {DecisionHandler} decide
   */
  askApproval(decide) {
    if (this.#finished) return;
    this.#setStatus("Awaiting approval", "pending");
    const problem = h("p", { className: "error-line", attrs: { role: "alert" }, hidden: true });
    /** @param {Decision} decision */
    const choose = async (decision) => {
      for (const button of this.#buttons) button.disabled = true;
      problem.hidden = true;
      try {
        await decide(this.callId, decision);
      } catch (error) {
        problem.textContent = errorMessage(error);
        problem.hidden = false;
        if (!this.#finished) for (const button of this.#buttons) button.disabled = false;
      }
    };
    this.#buttons = [
      h("button", { className: "primary", text: "Approve", attrs: { type: "button" }, on: { click: () => void choose("approve") } }),
      h("button", { className: "danger", text: "Deny", attrs: { type: "button" }, on: { click: () => void choose("deny") } }),
    ];
    this.#approval.replaceChildren(h("span", { text: "This call needs approval." }), ...this.#buttons, problem);
    this.#approval.hidden = false;
  }

  /** @param {string} decision */
  resolved(decision) {
    // The buttons go: a decided call cannot be decided again, whoever decided it.
    this.#buttons = [];
    const label = decision === "approve" ? "Approved" : decision === "deny" ? "Denied" : decision;
    this.#approval.replaceChildren(h("span", { className: `decision ${decision === "approve" ? "ok" : "bad"}`, text: label }));
    this.#approval.classList.add("decided");
    this.#approval.hidden = false;
    if (!this.#finished) this.#setStatus(decision === "approve" ? "Running" : "Denied", decision === "approve" ? "" : "bad");
  }

  /**
   * @param {unknown} output
   * @param {boolean} isError
   */
  result(output, isError) {
    this.#finished = true;
    for (const button of this.#buttons) button.disabled = true;
    this.#setStatus(isError ? "Error" : "Done", isError ? "bad" : "ok");
    this.element.classList.toggle("failed", isError);
    this.#output.replaceChildren(h("div", { className: "label", text: isError ? "Error output" : "Result" }), h("pre", { text: outputText(output) }));
    this.#output.hidden = false;
  }

  /** The turn ended before this call produced a result (stopped, interrupted, failed). */
  abandon() {
    if (this.#finished) return;
    this.#finished = true;
    for (const button of this.#buttons) button.disabled = true;
    this.#setStatus("Not completed", "bad");
  }

  // --- internals ---

  /**
   * @param {string} text
   * @param {string} tone
   */
  #setStatus(text, tone) {
    this.#status.textContent = text;
    this.#status.className = tone ? `badge ${tone}` : "badge";
  }
}
