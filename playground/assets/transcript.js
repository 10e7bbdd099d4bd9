// @ts-check
/**
 * The conversation as the stream tells it: user messages, assistant text growing with each
 * `message.appended` delta, reasoning in a collapsible block, tool cards, and compact notices for
 * queueing, failures, subagents, artifacts and budgets reached. Rebuilt from events alone, so a replayed session
 * looks the same as a live one.
 * @module
 */
import { renderMarkdown } from "./markdown.js";
import { h, isNearBottom } from "./dom.js";
import { ToolCard } from "./tool-card.js";

/** @typedef {import("./types.js").SessionEvent} SessionEvent */
/** @typedef {import("./tool-card.js").DecisionHandler} DecisionHandler */
/** @typedef {{element: HTMLElement, body: HTMLElement, text: string}} Block */

export class Transcript {
  element = h("div", { className: "transcript", attrs: { role: "log", "aria-label": "Conversation", "aria-live": "polite" } });
  /** @type {DecisionHandler} */
  #decide;
  /** @type {Block | undefined} the assistant message being streamed */
  #assistant;
  /** @type {(Block & {element: HTMLDetailsElement}) | undefined} the reasoning being streamed */
  #reasoning;
  /** @type {Map<string, ToolCard>} */
  #calls = new Map();

  /** @param {DecisionHandler} decide */
  constructor(decide) {
    this.#decide = decide;
  }

  reset() {
    this.element.replaceChildren();
    this.#assistant = undefined;
    this.#reasoning = undefined;
    this.#calls.clear();
  }

  /** @param {SessionEvent} event */
  add(event) {
    const follow = isNearBottom(this.element);
    this.#render(event);
    if (follow) this.element.scrollTop = this.element.scrollHeight;
  }

  // --- internals ---

  /** @param {SessionEvent} event */
  #render(event) {
    const { data } = event;
    switch (event.type) {
      case "message.received":
        this.#endStreaming();
        this.#append(message("user", "You", str(data["text"])));
        break;
      case "reasoning.appended":
        this.#reasoningBlock().text += str(data["delta"]);
        this.#showReasoning();
        break;
      case "reasoning.completed":
        this.#completeReasoning(str(data["text"]));
        break;
      case "message.appended":
        this.#assistantBlock().text += str(data["delta"]);
        this.#showAssistant();
        break;
      case "message.completed":
        this.#completeMessage(str(data["text"]));
        break;
      case "actions.requested":
        this.#endStreaming();
        for (const action of list(data["actions"])) {
          const call = record(action);
          this.#card(str(call["toolCallId"]), str(call["toolName"]), call["input"]);
        }
        break;
      case "action.approval_requested":
        this.#card(str(data["callId"]), str(data["toolName"]), data["input"]).askApproval(this.#decide);
        break;
      case "action.approval_resolved":
        this.#calls.get(str(data["callId"]))?.resolved(str(data["decision"]));
        break;
      case "action.result":
        this.#card(str(data["toolCallId"]), str(data["toolName"]), undefined).result(data["output"], data["isError"] === true);
        break;
      case "turn.queued":
        this.#append(notice("info", `Queued for a free turn slot (position ${str(data["position"])})`));
        break;
      case "turn.failed":
        this.#endStreaming();
        for (const card of this.#calls.values()) card.abandon();
        // A stop (or a follow-up that took over) is what the user asked for, not a failure.
        if (str(data["message"]) === "turn interrupted") this.#append(notice("meta", "Stopped"));
        else this.#append(notice("error", `Turn failed: ${str(data["message"])}`));
        break;
      case "session.failed":
        this.#append(notice("error", `Session failed: ${str(data["message"])}`));
        break;
      case "subagent.called":
        this.#append(notice("meta", `↳ Subagent ${str(data["subagent"])} called: ${str(data["prompt"])}`));
        break;
      case "subagent.completed":
        this.#append(
          notice(
            data["isError"] === true ? "error" : "meta",
            data["isError"] === true
              ? `↳ Subagent ${str(data["subagent"])} failed: ${str(data["error"])}`
              : `↳ Subagent ${str(data["subagent"])} answered: ${str(data["result"])}`,
          ),
        );
        break;
      case "artifact.tagged": {
        const artifact = record(data["artifact"]);
        const title = str(artifact["title"]);
        this.#append(notice("meta", `Artifact tagged: ${str(artifact["kind"])}/${str(artifact["key"])}${title ? ` — ${title}` : ""}`));
        break;
      }
      case "budget.exceeded":
        this.#append(notice("info", `Budget reached: ${str(data["scope"])} ${str(data["limit"])} ${str(data["used"])} of ${str(data["max"])}${data["resetsAt"] ? ` (resets ${str(data["resetsAt"])})` : ""}; the turn ends here`));
        break;
      case "ab.assigned":
        this.#append(notice("meta", `A/B experiment ${str(data["experimentId"])}: arm ${str(data["armId"])}`));
        break;
      default:
      // Lifecycle events (turn.started, step.*, session.waiting, ...) show in Raw only.
    }
  }

  /** @param {HTMLElement} element */
  #append(element) {
    this.element.append(element);
  }

  #assistantBlock() {
    if (!this.#assistant) {
      const body = h("div", { className: "text" });
      const element = message("assistant streaming", "Assistant", "", body);
      this.#append(element);
      this.#assistant = { element, body, text: "" };
    }
    return this.#assistant;
  }

  #showAssistant() {
    if (this.#assistant) this.#assistant.body.textContent = this.#assistant.text;
  }

  /** @param {string} text */
  #completeMessage(text) {
    this.#reasoning = undefined;
    const block = this.#assistant;
    this.#assistant = undefined;
    // A step that only called tools completes with no text: nothing to show.
    if (!text) {
      if (block && !block.text) block.element.remove();
      return;
    }
    const done = block ?? this.#assistantBlockNow();
    // While streaming the reply is plain text; once complete it is rendered as Markdown.
    renderMarkdown(done.body, text);
    done.body.classList.add("markdown");
    done.element.classList.remove("streaming");
  }

  #assistantBlockNow() {
    const block = this.#assistantBlock();
    this.#assistant = undefined;
    return block;
  }

  #reasoningBlock() {
    if (!this.#reasoning) {
      const body = h("div", { className: "text" });
      const element = h("details", { className: "reasoning streaming" }, h("summary", { text: "Reasoning" }), body);
      this.#append(element);
      this.#reasoning = { element, body, text: "" };
    }
    return this.#reasoning;
  }

  #showReasoning() {
    if (this.#reasoning) this.#reasoning.body.textContent = this.#reasoning.text;
  }

  /** @param {string} text */
  #completeReasoning(text) {
    if (!text && !this.#reasoning) return;
    const block = this.#reasoningBlock();
    if (text) block.text = text;
    this.#showReasoning();
    block.element.classList.remove("streaming");
    this.#reasoning = undefined;
  }

  /** A streamed block cut short (a failure or a tool call) stays as it was, no longer streaming. */
  #endStreaming() {
    this.#assistant?.element.classList.remove("streaming");
    this.#reasoning?.element.classList.remove("streaming");
    this.#assistant = undefined;
    this.#reasoning = undefined;
  }

  /**
   * The card of `callId`, created when this is the first event that names it.
   * @param {string} callId
   * @param {string} toolName
   * @param {unknown} input
   */
  #card(callId, toolName, input) {
    let card = this.#calls.get(callId);
    if (!card) {
      card = new ToolCard(callId, toolName, input);
      this.#calls.set(callId, card);
      this.#append(card.element);
    }
    return card;
  }
}

// --- internals ---

/**
 * @param {string} kind
 * @param {string} who
 * @param {string} text
 * @param {HTMLElement} [body]
 */
function message(kind, who, text, body = h("div", { className: "text", text })) {
  return h("article", { className: `msg ${kind}`, attrs: { "aria-label": `${who} message` } }, h("div", { className: "who", text: who }), body);
}

/**
 * @param {"info" | "error" | "meta"} tone
 * @param {string} text
 */
function notice(tone, text) {
  return h("p", { className: `notice ${tone}`, text, attrs: tone === "error" ? { role: "alert" } : {} });
}

/** @param {unknown} value */
function str(value) {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
}

/**
 * @param {unknown} value
 * @returns {unknown[]}
 */
function list(value) {
  return Array.isArray(value) ? value : [];
}

/**
 * @param {unknown} value
 * @returns {Record<string, unknown>}
 */
function record(value) {
  return typeof value === "object" && value !== null ? /** @type {Record<string, unknown>} */ (value) : {};
}
