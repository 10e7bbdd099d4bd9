/**
 * A unit test of an agent: the host answers plain `Request`s in-process, and the scripted model
 * plays the model, so the test runs offline and the same way every time. See
 * docs/guide/embedding.md, "Testing an agent".
 */
import { afterEach, expect, test } from "vitest";
import { createHost, defineTool } from "agent-serve";
import type { AgentHost } from "agent-serve";
import { createScriptedModel } from "agent-serve/testing";

const weather = defineTool({
  description: "Current temperature of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: (input: { city: string }) => ({ city: input.city, celsius: 21 }),
});

let host: AgentHost | undefined;
afterEach(() => host?.close());

function createTestHost(): AgentHost {
  return createHost({
    agents: [{ slug: "weather", project: { name: "Weather", agent: {}, instructions: "Answer briefly.", diagnostics: [], tools: { weather } } }],
    models: { resolve: () => createScriptedModel() },
  });
}

/** Sends `message` and reads the session's events until it waits for the next one. */
async function turn(target: AgentHost, message: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const created = await target.request("/weather/v1/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const stream = await target.request(`/weather/v1/session/${sessionId}/stream`);
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  let buffer = "";
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  while (!events.some((event) => event.type === "session.waiting")) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines.filter(Boolean)) events.push(JSON.parse(line) as { type: string; data: Record<string, unknown> });
  }
  await reader.cancel();
  return events;
}

test("the agent calls its weather tool and the result reaches the stream", async () => {
  host = createTestHost();
  const events = await turn(host, '/tool weather {"city":"Oslo"}');
  const result = events.find((event) => event.type === "action.result");
  expect(result?.data).toMatchObject({ toolName: "weather", output: { city: "Oslo", celsius: 21 }, isError: false });
});

test("a plain message is answered", async () => {
  host = createTestHost();
  const events = await turn(host, "/reply It is 21 degrees in Oslo.");
  expect(events.filter((event) => event.type === "message.completed").at(-1)?.data.text).toBe("It is 21 degrees in Oslo.");
});
