/** `agent-serve/events`: parsing a stream line, narrowing by type, and the reply fold. */
import { describe, expect, it } from "vitest";
import { type SessionEvent, emptyReplyState, foldReply, isEvent, parseEventLine } from "../src/entries/events.ts";

let index = 0;
const event = <T extends SessionEvent["type"]>(type: T, data: Extract<SessionEvent, { type: T }>["data"]): SessionEvent =>
  ({ type, index: index++, sessionId: "ses_1", turnId: "turn_1", at: "2026-01-01T00:00:00.000Z", data }) as SessionEvent;

describe("parseEventLine", () => {
  it("reads an envelope, keeping unknown members and types, and defaults a missing data", () => {
    const parsed = parseEventLine('{"type":"something.new","index":3,"sessionId":"ses_1","at":"2026-01-01T00:00:00.000Z","extra":1}');
    expect(parsed).toEqual({ type: "something.new", index: 3, sessionId: "ses_1", at: "2026-01-01T00:00:00.000Z", extra: 1, data: {} });
  });

  it("refuses a line that is not an event", () => {
    expect(() => parseEventLine('{"ok":false,"error":"session_not_found"}')).toThrow(/not an event line/);
    expect(() => parseEventLine('{"type":"turn.started","index":-1,"sessionId":"s","at":"x","data":{}}')).toThrow(/not an event line/);
    expect(() => parseEventLine("not json")).toThrow();
  });

  it("narrows to a type's payload with isEvent", () => {
    const parsed = parseEventLine('{"type":"message.completed","index":0,"sessionId":"s","at":"x","data":{"text":"hi","finishReason":"stop"}}');
    expect(isEvent(parsed, "message.completed") && parsed.data.text).toBe("hi");
    expect(isEvent(parsed, "turn.failed")).toBe(false);
  });
});

describe("foldReply", () => {
  it("reports the last non-tool-calling message of the latest turn and how the session settled", () => {
    const state = emptyReplyState();
    for (const e of [
      event("message.received", { text: "hi" }),
      event("message.completed", { text: "", finishReason: "tool_call" }),
      event("actions.requested", { actions: [{ toolCallId: "c1", toolName: "probe", input: { n: 1 } }] }),
      event("message.completed", { text: "answer", finishReason: "stop" }),
      event("turn.completed", {}),
      event("session.waiting", {}),
    ]) {
      foldReply(state, e);
    }
    expect(state).toMatchObject({ sawMessage: true, reply: "answer", completed: true, settled: "waiting", toolCalls: [{ toolName: "probe", input: { n: 1 } }] });
    expect(state.turnError).toBeUndefined();
  });

  it("starts over at each message, so an interrupted turn's failure does not describe the next", () => {
    const state = emptyReplyState();
    for (const e of [
      event("message.received", { text: "first" }),
      event("turn.failed", { message: "turn interrupted" }),
      event("message.received", { text: "second" }),
    ]) {
      foldReply(state, e);
    }
    expect(state.turnError).toBeUndefined();
    expect(state.settled).toBeUndefined();
    foldReply(state, event("turn.failed", { message: "model call failed" }));
    foldReply(state, event("session.failed", { message: "the task failed" }));
    expect(state).toMatchObject({ completed: false, turnError: "model call failed", sessionError: "the task failed", settled: "failed" });
  });
});
