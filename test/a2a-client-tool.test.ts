/**
 * `a2aAgent({url})` (docs/guide/a2a.md "Calling another agent"): one agent calls another over
 * A2A from a tool, over real HTTP: the peer's reply comes back with the context that continues
 * the conversation, and a peer's refusal is the tool's error.
 */
import { expect, it } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { a2aAgent } from "../src/entries/tools.ts";
import { eventually, fetchEvents, helloOptions, postJson, project } from "./_harness.ts";
import { serve } from "./_a2a.ts";

it("an agent asks another through a2aAgent and continues the same context", async () => {
  const peer = await serve(helloOptions());
  const caller = await serve(
    helloOptions({ agents: [{ slug: "caller", project: project({ tools: { ask_peer: a2aAgent({ url: `${peer.url}/hello` }) } }), storage: createMemoryStorage() }] }),
  );
  try {
    const turn = async (message: string): Promise<Record<string, unknown>> => {
      const created = (await (await fetch(`${caller.url}/caller/v1/session`, postJson({ message }))).json()) as { sessionId: string };
      const events = await eventually(async () => {
        const all = await fetchEvents(`${caller.url}/caller`, created.sessionId);
        return all.some((event) => event.type === "session.waiting") ? all : undefined;
      });
      const result = events.find((event) => event.type === "action.result");
      return result!.data as Record<string, unknown>;
    };
    const first = await turn(`/tool ask_peer ${JSON.stringify({ message: "/reply hello from the peer" })}`);
    expect(first["isError"]).toBe(false);
    const output = first["output"] as { state: string; reply: string; contextId: string; taskId: string };
    expect(output).toMatchObject({ state: "completed", reply: "hello from the peer" });
    const again = await turn(`/tool ask_peer ${JSON.stringify({ message: "/reply second", contextId: output.contextId })}`);
    expect(again["output"]).toMatchObject({ state: "completed", reply: "second", contextId: output.contextId });
    const refused = await turn(`/tool ask_peer ${JSON.stringify({ message: "hi", contextId: "ses_AAAAAAAAAAAAAAAAAAAA" })}`);
    expect(refused["isError"]).toBe(true);
    expect(JSON.stringify(refused["output"])).toContain("context not found");
  } finally {
    await caller.close();
    await peer.close();
  }
});
