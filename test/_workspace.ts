/**
 * Helpers of the local-runtime tests: projects written to disk, turns run over a host's HTTP
 * surface until the session settles, and a scripted model that records what each step was
 * offered (the model boundary is the one place tests substitute).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { createScriptedModel } from "../src/testing.ts";
import type { LanguageModelPort, ModelStepRequest } from "../src/testing.ts";
import { type HostUnderTest, type TestEvent, allEvents, eventually, postJson } from "./_harness.ts";

export const toolLine = (name: string, input: unknown): string => `/tool ${name} ${JSON.stringify(input)}`;

/** Writes `files` (project-relative path → text) under a fresh temp directory and returns it. */
export function writeProject(files: Record<string, string>, prefix = "agent-serve-ws-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** Waits until the session's record shows it idle again (`session.waiting`) or ended. */
export function settled(target: HostUnderTest, base: string, sessionId: string, after = 0, timeoutMs = 15_000): Promise<TestEvent[]> {
  return eventually(
    async () => {
      const all = await allEvents(target, base, sessionId);
      const ends = all.filter((e) => e.type === "session.waiting" || e.type === "session.completed" || e.type === "session.failed");
      return ends.length > after ? all : undefined;
    },
    timeoutMs,
    `session ${sessionId} to settle`,
  );
}

/** Creates a session with `message` (and body extras) and waits for its first turn to settle. */
export async function turn(target: HostUnderTest, base: string, message: string, extra: Record<string, unknown> = {}): Promise<{ sessionId: string; continuationToken: string; events: TestEvent[] }> {
  const response = await target.fetch(`${base}/v1/session`, postJson({ message, ...extra }));
  expect(response.status).toBe(200);
  const { sessionId, continuationToken } = (await response.json()) as { sessionId: string; continuationToken: string };
  return { sessionId, continuationToken, events: await settled(target, base, sessionId) };
}

export const results = (events: TestEvent[]): Array<Record<string, unknown>> => events.filter((e) => e.type === "action.result").map((e) => e.data);

/** The scripted model, recording each step's system prompt and offered tool names. */
export function recordingModel(steps: Array<Pick<ModelStepRequest, "system"> & { tools: string[] }>): LanguageModelPort {
  const inner = createScriptedModel();
  return {
    id: "scripted",
    stream(request) {
      steps.push({ system: request.system, tools: request.tools.map((tool) => tool.name) });
      return inner.stream(request);
    },
  };
}
