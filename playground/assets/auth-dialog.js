// @ts-check
/**
 * The bearer-token form shown when the agent answers 401: a modal dialog that resolves with the
 * token the user enters, or rejects when they dismiss it.
 * @module
 */
import { h } from "./dom.js";

/**
 * Creates the dialog (once) and returns the prompt function the API client calls.
 * @returns {(reason: string) => Promise<string>}
 */
export function createTokenPrompt() {
  const reason = h("p", { className: "muted" });
  const input = h("input", { attrs: { type: "password", id: "bearer-token", autocomplete: "off", spellcheck: "false", required: "" } });
  const form = h(
    "form",
    { attrs: { method: "dialog" } },
    h("h2", { text: "Authentication required", attrs: { id: "auth-title" } }),
    reason,
    h("label", { text: "Bearer token", attrs: { for: "bearer-token" } }),
    input,
    h(
      "div",
      { className: "row end" },
      h("button", { text: "Cancel", attrs: { type: "button", value: "cancel" }, on: { click: () => dialog.close("cancel") } }),
      h("button", { text: "Continue", className: "primary", attrs: { type: "submit" } }),
    ),
  );
  const dialog = h("dialog", { className: "auth-dialog", attrs: { "aria-labelledby": "auth-title" } }, form);
  document.body.append(dialog);

  /** @type {{resolve(token: string): void, reject(error: Error): void} | undefined} */
  let pending;
  form.addEventListener("submit", (event) => {
    // Handled here: the page's CSP forbids form navigation, and none is wanted.
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    input.value = "";
    const settle = pending;
    pending = undefined;
    dialog.close("ok");
    settle?.resolve(token);
  });
  dialog.addEventListener("close", () => {
    const settle = pending;
    pending = undefined;
    settle?.reject(new Error("no bearer token given"));
  });

  return (why) =>
    new Promise((resolve, reject) => {
      pending = { resolve, reject };
      reason.textContent = why;
      if (!dialog.open) dialog.showModal();
      input.focus();
    });
}
