// @ts-check
/**
 * What an empty conversation shows: how to start, and, when the agent runs on the offline
 * scripted model, the directives that model understands (docs/guide/getting-started.md "The
 * scripted model"), so a first visitor can make it call tools, reason, wait or fail without reading
 * the docs.
 * @module
 */
import { h } from "./dom.js";

/** @type {Array<[string, string]>} */
const SCRIPTED_DIRECTIVES = [
  ["/reply <text>", "answer exactly <text>"],
  ["/reply", "alone on its line: answer with the lines below it, up to the next directive (Markdown)"],
  ["/tool <name> <json>", "call a tool (one line per call)"],
  ["/reason <text>", "reason before answering"],
  ["/sleep <ms>", "take a while (try Stop)"],
  ["/fail <message>", "fail the turn"],
];

export function createChatHint() {
  const element = h("div", { className: "chat-hint muted", attrs: { role: "note", "aria-label": "Getting started" } }, h("p", { text: "Send a message to start a session." }));
  return {
    element,
    /** @param {boolean} shown */
    toggle(shown) {
      element.hidden = !shown;
    },
    /** @param {string} modelId */
    describeModel(modelId) {
      if (modelId !== "scripted" || element.querySelector("dl")) return;
      element.append(
        h("p", { text: "This agent runs on the offline scripted model: other text is echoed back, and these lines act." }),
        h("dl", {}, ...SCRIPTED_DIRECTIVES.flatMap(([line, effect]) => [h("dt", {}, h("code", { text: line })), h("dd", { text: effect })])),
      );
    },
  };
}
