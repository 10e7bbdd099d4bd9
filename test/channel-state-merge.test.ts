/**
 * Channel state written by an events handler is merged key by key over the stored state: a
 * `send` that merges its own state while the handler runs keeps it (the Slack pack relies on
 * this for the message a follow-up came from).
 */
import * as v from "valibot";
import { expect, test } from "vitest";
import { GET, POST, defineChannel } from "../src/entries/channels.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { eventually, postJson, project, quietLogger } from "./_harness.ts";

test("a handler's state change and a concurrent send's state both survive", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let blocked = false;
  const channel = defineChannel({
    state: { latest: "", handled: 0 },
    routes: [
      POST("/say", {
        bodySchema: v.object({ text: v.string() }),
        handler: async (_request, { body, send }) => {
          const session = await send(`/reply ${body.text}`, { continuationToken: "thread-1", admission: "coalesce", state: { latest: body.text } });
          return { sessionId: session.sessionId };
        },
      }),
      GET("/state/:id", { querySchema: v.object({}), handler: async (_request, { params, getSession }) => (await getSession(params.id ?? ""))?.state ?? null }),
    ],
    events: {
      async "turn.completed"(_event, binding) {
        if (binding.state.handled === 0) {
          blocked = true;
          await gate;
        }
        binding.state.handled = Number(binding.state.handled) + 1;
      },
    },
  });
  const host = createHost({ agents: [{ slug: "a", project: project({ channels: { chat: channel } }), storage: createMemoryStorage() }], logger: quietLogger, drainTimeoutMs: 100 });
  try {
    const first = (await (await host.request("/a/v1/channels/chat/say", postJson({ text: "one" }))).json()) as { sessionId: string };
    await eventually(async () => (blocked ? true : undefined), 5000, "handler blocked");
    // The handler holds a copy of the state with latest "one"; this send stores latest "two".
    await host.request("/a/v1/channels/chat/say", postJson({ text: "two" }));
    release();
    const state = await eventually(async () => {
      const current = (await (await host.request(`/a/v1/channels/chat/state/${first.sessionId}`)).json()) as { latest: string; handled: number };
      return current.handled >= 2 ? current : undefined;
    }, 5000, "both turns handled");
    expect(state.latest).toBe("two");
  } finally {
    await host.close();
  }
});
