// @ts-check
/**
 * The Chat tab: the composer, the conversation of the selected session, and its controls (Stop
 * while a turn runs, New chat). The first message creates a session; later ones continue it with
 * the stored continuation token, which rotates on every accepted message.
 * @module
 */
import { ApiError } from "./api.js";
import { createChatHint } from "./chat-hint.js";
import { errorLine, h } from "./dom.js";
import { createSlashCommands } from "./slash-commands.js";
import { Transcript } from "./transcript.js";

/** @typedef {import("./types.js").SessionSummary} SessionSummary */

/** Events after which the session is busy with a turn, and after which it rests. */
const BUSY = new Set(["message.received", "turn.queued", "turn.started"]);
const IDLE = new Set(["session.waiting", "session.completed", "session.failed"]);

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 * @param {import("./session-feed.js").SessionFeed} deps.feed
 * @param {import("./session-tokens.js").SessionTokens} deps.tokens
 * @param {HTMLElement} [deps.toolbarExtra] shown after the session id (the fork notice)
 */
export function createChatView({ panel, api, feed, tokens, toolbarExtra }) {
  const problem = errorLine();
  const hint = createChatHint();
  const transcript = new Transcript(async (callId, decision) => {
    const sessionId = feed.sessionId;
    if (!sessionId) return;
    await api.post(`/v1/session/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(callId)}`, { decision });
  });
  const sessionLabel = h("span", { className: "session-id", attrs: { "data-testid": "session-id" } });
  const streamState = h("span", { className: "stream-state muted", attrs: { role: "status" } });
  const input = h("textarea", {
    attrs: { rows: "3", "aria-label": "Message", placeholder: "Message the agent — Enter sends, Shift+Enter adds a line" },
  });
  const send = h("button", { className: "primary", text: "Send", attrs: { type: "submit" } });
  const stop = h("button", { className: "danger", text: "Stop", attrs: { type: "button" }, hidden: true, on: { click: () => void stopTurn() } });
  const newChat = h("button", { text: "New chat", attrs: { type: "button" }, on: { click: () => startOver() } });
  const composer = h("form", { className: "composer", attrs: { "aria-label": "Composer" } }, input, h("div", { className: "composer-actions" }, stop, send));

  const slash = createSlashCommands({ api, openSession: (sessionId) => feed.open(sessionId) });

  panel.append(
    h("div", { className: "toolbar" }, h("span", { className: "muted", text: "Session" }), sessionLabel, streamState, toolbarExtra, h("span", { className: "spacer" }), newChat),
    hint.element,
    transcript.element,
    problem.element,
    slash.output,
    slash.suggestions,
    composer,
  );

  let sending = false;

  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    void submit();
  });
  input.addEventListener("input", () => {
    if (input.value.startsWith("/")) void slash.load().then(() => slash.suggest(input.value));
    else slash.suggest("");
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Tab" && input.value.startsWith("/") && slash.complete(input)) {
      event.preventDefault();
      return;
    }
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void submit();
    }
  });

  feed.subscribe({
    reset(sessionId) {
      transcript.reset();
      problem.clear();
      setBusy(false);
      sessionLabel.textContent = sessionId ?? "new conversation";
      hint.toggle(sessionId === null);
    },
    event(event) {
      hint.toggle(false);
      transcript.add(event);
      if (BUSY.has(event.type)) setBusy(true);
      else if (IDLE.has(event.type)) setBusy(false);
    },
    status(status, message) {
      streamState.textContent = status === "reconnecting" ? "reconnecting…" : status === "connecting" ? "connecting…" : "";
      if (status === "error" && message) problem.show(message);
    },
  });

  async function submit() {
    const message = input.value;
    if (!message.trim() || sending) return;
    if (message.startsWith("/")) {
      // A channel route's command runs here; any other `/` line is a message for the model.
      try {
        if (await slash.run(message)) {
          input.value = "";
          return;
        }
      } catch (error) {
        problem.show(error);
        return;
      }
    }
    sending = true;
    send.disabled = true;
    problem.clear();
    input.value = "";
    // Busy from the moment of sending; the stream's events take over from there (they may well
    // arrive before the POST's answer does).
    const wasBusy = !stop.hidden;
    if (feed.sessionId) setBusy(true);
    try {
      if (feed.sessionId) await followUp(feed.sessionId, message);
      else await create(message);
    } catch (error) {
      // Nothing was accepted: give the text back so it is not lost.
      setBusy(wasBusy);
      if (!input.value) input.value = message;
      problem.show(error);
    } finally {
      sending = false;
      send.disabled = false;
      input.focus();
    }
  }

  /** @param {string} message */
  async function create(message) {
    /** @type {{sessionId: string, continuationToken: string}} */
    const created = await api.post("/v1/session", { message, title: titleOf(message) });
    tokens.set(created.sessionId, created.continuationToken);
    feed.open(created.sessionId);
  }

  /**
   * Continues `sessionId`; a stale token (another tab or client moved it on) is refreshed from the
   * session's summary and the message sent once more.
   * @param {string} sessionId
   * @param {string} message
   */
  async function followUp(sessionId, message) {
    const path = `/v1/session/${encodeURIComponent(sessionId)}`;
    let token = tokens.get(sessionId) ?? (await currentToken(sessionId));
    /** @type {{continuationToken: string}} */
    let accepted;
    try {
      accepted = await api.post(path, { continuationToken: token, message });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409 && error.code === "stale_continuation_token")) throw error;
      token = await currentToken(sessionId);
      accepted = await api.post(path, { continuationToken: token, message });
    }
    tokens.set(sessionId, accepted.continuationToken);
  }

  /** @param {string} sessionId */
  async function currentToken(sessionId) {
    /** @type {SessionSummary | undefined} */
    let summary;
    try {
      /** @type {{session: SessionSummary}} */
      const answer = await api.get(`/v1/session/${encodeURIComponent(sessionId)}`);
      summary = answer.session;
    } catch (error) {
      if (!(error instanceof ApiError && (error.status === 404 || error.status === 403))) throw error;
    }
    if (!summary) throw new Error(`Session ${sessionId} is not one of your sessions, so it cannot be continued from here.`);
    tokens.set(sessionId, summary.continuationToken);
    return summary.continuationToken;
  }

  async function stopTurn() {
    const sessionId = feed.sessionId;
    if (!sessionId) return;
    stop.disabled = true;
    try {
      await api.post(`/v1/session/${encodeURIComponent(sessionId)}/stop`, {});
    } catch (error) {
      problem.show(error);
    } finally {
      stop.disabled = false;
      // The Stop button hides once the turn ends: keep the focus where the next message is typed.
      input.focus();
    }
  }

  function startOver() {
    feed.close();
    problem.clear();
    input.focus();
  }

  /** @param {boolean} busy */
  function setBusy(busy) {
    stop.hidden = !busy;
  }

  return {
    show() {
      input.focus();
    },
    describeModel: hint.describeModel,
  };
}

/**
 * A session title from the first message: its first line, shortened.
 * @param {string} message
 */
function titleOf(message) {
  const line = message.trim().split("\n", 1)[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
