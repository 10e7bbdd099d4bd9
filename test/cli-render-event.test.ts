/**
 * Events rendered for people by `logs` and `session`: one aligned column of types, whole
 * messages instead of deltas, and artifacts named by kind, key and title.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliEvent } from "../cli/events.ts";
import { renderEvent } from "../cli/render-event.ts";
import { createStyle } from "../cli/style.ts";

const plain = createStyle(new PassThrough(), {});
const event = (index: number, type: string, data: Record<string, unknown> = {}): CliEvent => ({ type, index, sessionId: "ses_x", at: "2026-01-01T10:00:00Z", data });

describe("renderEvent", () => {
  it("aligns the details of every type, the longest included", () => {
    const lines = [
      event(1, "message.received", { text: "hi" }),
      event(2, "action.approval_requested", { callId: "call_1", toolName: "refund", input: { amount: 5 } }),
      event(3, "action.approval_resolved", { callId: "call_1", decision: "approve" }),
    ].map((e) => renderEvent(e, plain) ?? "");
    const starts = lines.map((line) => line.search(/ (you:|refund|call call_1)/));
    expect(new Set(starts).size).toBe(1);
    expect(lines[1]).toContain('refund {"amount":5} (call call_1)');
  });

  it("names an artifact by kind, key and title", () => {
    const artifact = { id: "art_1", kind: "refund", key: "A-1", title: "Refund of 500", data: { amount: 500 }, source: "host" };
    expect(renderEvent(event(4, "artifact.tagged", { artifact }), plain)).toMatch(/artifact\.tagged\s+refund\/A-1 Refund of 500 \(art_1, by host\)$/);
  });

  it("names the runner a cloud turn went to", () => {
    const bound = { agentId: "runner_1:ses_x", url: "http://r:4100/v1/runner/sessions/ses_x", runner: "http://r:4100" };
    expect(renderEvent(event(7, "agent.bound", bound), plain)).toMatch(/agent\.bound\s+runner http:\/\/r:4100, agent runner_1:ses_x$/);
  });

  it("leaves deltas out", () => {
    expect(renderEvent(event(5, "message.appended", { delta: "h" }), plain)).toBeUndefined();
    expect(renderEvent(event(6, "reasoning.appended", { delta: "h" }), plain)).toBeUndefined();
  });
});
