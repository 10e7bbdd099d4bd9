/**
 * The one agent loop turns and subagents run, over the scripted model: what each recording point
 * sees, the step cap, tool errors and aborts. Plus the session entry that closes the
 * tools-start-turns cycle of an agent's composition.
 */
import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../src/engine/model/scripted.ts";
import type { ConversationMessage } from "../src/base/ports/model.ts";
import { createSessionEntry } from "../src/engine/sessions/session-entry.ts";
import { type LoopRecorder, runAgentLoop, silentRecorder } from "../src/engine/turns/agent-loop.ts";
import type { ToolExecutor } from "../src/engine/turns/tool-executor.ts";

const model = createScriptedModel();
const user = (content: string): ConversationMessage[] => [{ role: "user", content }];

function tools(execute: ToolExecutor["execute"]): ToolExecutor {
  return {
    specs: [{ name: "probe", description: "a probe", inputSchema: { type: "object" } }],
    prepare: async (call) => call,
    execute,
  };
}

function recording(): { recorder: LoopRecorder; seen: string[] } {
  const seen: string[] = [];
  const note = (what: string) => async () => void seen.push(what);
  return {
    seen,
    recorder: {
      stepStarted: async (stepIndex) => void seen.push(`step ${stepIndex}`),
      textDelta: note("delta"),
      reasoningDelta: note("reasoning"),
      reasoningCompleted: note("reasoning done"),
      stepCompleted: async ({ finishReason, message }) => void seen.push(`completed ${finishReason}`, `appended ${message.role}`),
      actionsRequested: async (actions) => void seen.push(`requested ${actions.map((a) => a.toolName).join(",")}`),
      actionResult: async (result, conversation) => {
        seen.push(`result ${result.isError ? "error" : "ok"} ${JSON.stringify(result.output)}`);
        if (conversation) seen.push(`appended ${conversation.role}`);
      },
    },
  };
}

const base = { model, system: "test", params: {}, signal: new AbortController().signal, maxSteps: 5, subject: "turn" };

describe("runAgentLoop", () => {
  it("records each step, its tool calls and their results in order, and answers with the last step's text", async () => {
    const { recorder, seen } = recording();
    const result = await runAgentLoop({
      ...base,
      messages: user('/tool probe {"n":1}\n/reply finished'),
      tools: tools(async () => ({ output: "probed", isError: false })),
      recorder,
    });
    expect(result.text).toBe("finished");
    expect(result.steps).toBe(2);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    const compact = seen.filter((line, i) => line !== "delta" || seen[i - 1] !== "delta");
    expect(compact).toEqual([
      "step 0",
      "completed tool_call",
      "appended assistant",
      "requested probe",
      'result ok "probed"',
      "appended tool",
      "step 1",
      "delta",
      "completed stop",
      "appended assistant",
    ]);
  });

  it("gives the model a throwing tool's message as an error result and goes on", async () => {
    const { recorder, seen } = recording();
    const result = await runAgentLoop({
      ...base,
      messages: user("/tool probe {}"),
      tools: tools(async () => {
        throw new Error("probe broke");
      }),
      recorder,
    });
    expect(seen).toContain('result error "probe broke"');
    expect(result.text).toBe("done");
  });

  it("fails at the step cap, naming who ran the loop", async () => {
    const run = (subject: string) =>
      runAgentLoop({
        ...base,
        subject,
        maxSteps: 1,
        messages: user("/tool probe {}\n/tool probe {}"),
        tools: tools(async () => ({ output: "ok", isError: false })),
        recorder: silentRecorder,
      });
    await expect(run("turn")).rejects.toThrow("turn exceeded 1 model steps");
    await expect(run("the subagent")).rejects.toThrow("the subagent exceeded 1 model steps");
  });

  it("throws an AbortError when the signal aborts, and an aborted tool call reads as the interruption", async () => {
    const controller = new AbortController();
    const { recorder, seen } = recording();
    const run = runAgentLoop({
      ...base,
      signal: controller.signal,
      messages: user("/tool probe {}"),
      tools: tools(
        (_call, signal) =>
          new Promise((_, reject) => {
            signal.addEventListener("abort", () => reject(new Error("torn down")));
            controller.abort();
          }),
      ),
      recorder,
    });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toContain('result error "turn interrupted"');
  });
});

describe("createSessionEntry", () => {
  it("refuses calls before it is bound, forwards after, and binds once", async () => {
    const entry = createSessionEntry();
    expect(() => entry.find("ses_x")).toThrow(/before the agent's session service was built/);
    const found = { sessionId: "ses_x" };
    entry.bind({
      send: async () => ({ sessionId: "ses_y" }) as never,
      followUp: async () => "token",
      find: async () => found as never,
    });
    expect(await entry.find("ses_x")).toBe(found);
    expect(() => entry.bind({ send: entry.send, followUp: entry.followUp, find: entry.find })).toThrow(/bound once/);
  });
});
