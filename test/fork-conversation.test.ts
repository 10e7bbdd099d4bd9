/**
 * The conversation a fork keeps (src/engine/sessions/fork-conversation.ts, docs/guide/forking.md
 * "What the fork holds"): each message where its event puts it, messages with no event of their
 * own (recovery's tool results, an interrupted queue's text) taken where the turn ends, a step
 * whose calls are not all answered left out, and logs that do not line up refused.
 */
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../src/base/events/vocabulary.ts";
import type { ConversationMessage } from "../src/base/ports/model.ts";
import { conversationAt } from "../src/engine/sessions/fork-conversation.ts";

let index = 0;
const event = (type: string, data: Record<string, unknown> = {}, turnId?: string): SessionEvent =>
  ({ type, index: index++, sessionId: "s", at: "t", data, ...(turnId ? { turnId } : {}) }) as SessionEvent;
const user = (content: string): ConversationMessage => ({ role: "user", content });
const say = (text: string): ConversationMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const call = (...ids: string[]): ConversationMessage => ({ role: "assistant", content: ids.map((id) => ({ type: "tool-call" as const, toolCallId: id, toolName: "t", input: {} })) });
const results = (...ids: string[]): ConversationMessage => ({ role: "tool", content: ids.map((id) => ({ type: "tool-result" as const, toolCallId: id, toolName: "t", output: { type: "json" as const, value: 1 } })) });

describe("conversationAt", () => {
  it("cuts a tool round back to its last whole step", () => {
    index = 0;
    const events = [
      event("turn.started", {}, "t1"),
      event("step.completed", {}, "t1"),
      event("actions.requested", {}, "t1"),
      event("action.result", { toolCallId: "a" }, "t1"),
      event("action.result", { toolCallId: "b" }, "t1"),
      event("step.completed", {}, "t1"),
      event("turn.completed", {}, "t1"),
    ];
    const stored = [user("hi"), call("a", "b"), results("a", "b"), say("done")];
    const at = (i: number) => conversationAt(events.slice(0, i + 1), stored);
    expect(at(0)).toEqual([user("hi")]);
    expect(at(1)).toEqual([user("hi")]);
    expect(at(3)).toEqual([user("hi")]);
    expect(at(4)).toEqual(stored.slice(0, 3));
    expect(at(6)).toEqual(stored);
  });

  it("takes recovery's tool results and an interrupted queue's text where their turn ends", () => {
    index = 0;
    const events = [
      event("turn.started", {}, "t1"),
      event("step.completed", {}, "t1"),
      event("turn.failed", { message: "host restarted" }, "t1"),
      event("turn.failed", { message: "turn interrupted" }, "t2"),
      event("turn.started", {}, "t3"),
      event("step.completed", {}, "t3"),
    ];
    const stored = [user("one"), call("a"), results("a"), user("queued"), user("three"), say("ok")];
    expect(conversationAt(events.slice(0, 2), stored)).toEqual([user("one")]);
    expect(conversationAt(events.slice(0, 3), stored)).toEqual(stored.slice(0, 3));
    expect(conversationAt(events.slice(0, 4), stored)).toEqual(stored.slice(0, 4));
    expect(conversationAt(events, stored)).toEqual(stored);
  });

  it("refuses logs that do not line up", () => {
    index = 0;
    expect(conversationAt([event("turn.started", {}, "t1")], [say("no user message")])).toBeUndefined();
    expect(conversationAt([event("turn.started", {}, "t1"), event("step.completed", {}, "t1")], [user("hi")])).toBeUndefined();
  });
});
