/** Tool calls without a result in the model history (docs/design/faults.md). */
import { expect, test } from "vitest";
import type { ConversationMessage } from "../src/base/ports/model.ts";
import { missingToolResults, withToolResults } from "../src/engine/turns/history-repair.ts";

const call = (id: string, name = "slow") => ({ type: "tool-call" as const, toolCallId: id, toolName: name, input: {} });
const result = (id: string, value: string, name = "slow") => ({ type: "tool-result" as const, toolCallId: id, toolName: name, output: { type: "text" as const, value } });
const closed = (id: string, reason: string, name = "slow") => ({ type: "tool-result" as const, toolCallId: id, toolName: name, output: { type: "error-text" as const, value: reason } });

test("a whole history is returned as it is", () => {
  const history: ConversationMessage[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: [call("a")] },
    { role: "tool", content: [result("a", "ok")] },
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ];
  expect(missingToolResults(history, "x")).toEqual([]);
  expect(withToolResults(history, "x")).toBe(history);
});

test("a crash after the step: the missing results are listed in call order", () => {
  const history: ConversationMessage[] = [{ role: "user", content: "go" }, { role: "assistant", content: [call("a"), call("b", "other")] }];
  expect(missingToolResults(history, "host restarted")).toEqual([closed("a", "host restarted"), closed("b", "host restarted", "other")]);
});

test("results are inserted right after the step that made the calls, merged with a partial tool message", () => {
  const history: ConversationMessage[] = [
    { role: "user", content: "go" },
    { role: "assistant", content: [call("a"), call("b")] },
    { role: "tool", content: [result("a", "ok")] },
    { role: "user", content: "stopped, then asked again" },
    { role: "assistant", content: [call("c")] },
    { role: "user", content: "and again" },
  ];
  expect(withToolResults(history, "gone")).toEqual([
    { role: "user", content: "go" },
    { role: "assistant", content: [call("a"), call("b")] },
    { role: "tool", content: [result("a", "ok"), closed("b", "gone")] },
    { role: "user", content: "stopped, then asked again" },
    { role: "assistant", content: [call("c")] },
    { role: "tool", content: [closed("c", "gone")] },
    { role: "user", content: "and again" },
  ]);
});
