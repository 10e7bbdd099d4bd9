/**
 * The event stream as Server-Sent Events, read by a real EventSource client (the
 * `eventsource` package) over a loopback server: `id:` is the event index, a reconnect resumes
 * after `Last-Event-ID`, and a finished task answers the reconnect with 204 so the client stops.
 */
import { EventSource } from "eventsource";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import { helloOptions, postJson, project } from "./_harness.ts";

let host: AgentHost;
let server: NodeServer;

beforeEach(async () => {
  host = createHost(helloOptions({ dev: true, agents: [{ slug: "hello", project: project({ schedules: { digest: { cron: "0 9 * * *", markdown: "/reply digest done" } } }), storage: createMemoryStorage() }] }));
  server = await serveNode(host, { port: 0, silent: true });
});
afterEach(async () => {
  await host.close();
  await server.close(true);
});

interface Received {
  id: string;
  event: { type: string; index: number; data: Record<string, unknown> };
}

/** Collects messages until `until` matches one; resolves with all of them. */
function collect(source: EventSource, until: (event: Received["event"]) => boolean): Promise<Received[]> {
  const received: Received[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${received.map((r) => r.event.type).join(",")}`)), 10_000);
    source.onmessage = (message) => {
      const event = JSON.parse(message.data) as Received["event"];
      received.push({ id: message.lastEventId, event });
      if (until(event)) {
        clearTimeout(timer);
        resolve(received);
      }
    };
  });
}

describe("Server-Sent Events", () => {
  it("an EventSource follows a chat session, each message's id its event index", async () => {
    const created = (await (await fetch(`${server.url}/hello/v1/session`, postJson({ message: "/reply hello there" }))).json()) as { sessionId: string; continuationToken: string };
    const source = new EventSource(`${server.url}/hello/v1/session/${created.sessionId}/stream`);
    try {
      const first = await collect(source, (event) => event.type === "session.waiting");
      expect(first[0]?.event.type).toBe("session.started");
      expect(first.map((r) => r.id)).toEqual(first.map((r) => String(r.event.index)));
      expect(first.map((r) => r.event.index)).toEqual(first.map((_, i) => i));
      const text = first.filter((r) => r.event.type === "message.appended").map((r) => r.event.data["delta"]).join("");
      expect(text).toBe("hello there");
      // Still following: a follow-up's events arrive on the same connection.
      const next = collect(source, (event) => event.type === "session.waiting");
      await fetch(`${server.url}/hello/v1/session/${created.sessionId}`, postJson({ message: "/reply again", continuationToken: created.continuationToken }));
      const second = await next;
      expect(second[0]?.event.index).toBe(first.length);
      expect(second.some((r) => r.event.type === "message.completed" && r.event.data["text"] === "again")).toBe(true);
    } finally {
      source.close();
    }
  });

  it("resumes after Last-Event-ID, and the NDJSON stream is unchanged without the Accept header", async () => {
    const created = (await (await fetch(`${server.url}/hello/v1/session`, postJson({ message: "/reply hi" }))).json()) as { sessionId: string };
    const url = `${server.url}/hello/v1/session/${created.sessionId}/stream`;
    const controller = new AbortController();
    const response = await fetch(url, { headers: { accept: "text/event-stream", "last-event-id": "2" }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = response.body!.getReader();
    let text = "";
    while (!/\nid: 3\ndata: /.test(text) && !text.startsWith("id: 3")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith(": agent-serve events\n\n")).toBe(true);
    expect(text).not.toMatch(/^id: [0-2]$/m);
    expect(text).toMatch(/^id: 3\ndata: \{"type":"[a-z.]+","index":3,/m);
    controller.abort();

    const ndjson = await fetch(`${url}?startIndex=0`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    expect(ndjson?.headers.get("content-type")).toBe("application/x-ndjson");
    await ndjson?.body?.cancel();
  });

  it("a task stream ends at its terminal event; the EventSource's reconnect gets 204 and it stops", async () => {
    const fired = (await (await fetch(`${server.url}/hello/v1/dev/schedules/digest`, { method: "POST" })).json()) as { sessionIds: string[] };
    const sessionId = fired.sessionIds[0]!;
    const source = new EventSource(`${server.url}/hello/v1/session/${sessionId}/stream`);
    try {
      const events = await collect(source, (event) => event.type === "session.completed");
      expect(events.at(-1)?.event.type).toBe("session.completed");
      // The server closed the stream; the client reconnects with Last-Event-ID, gets 204, and closes.
      await expect.poll(() => source.readyState, { timeout: 10_000 }).toBe(EventSource.CLOSED);
    } finally {
      source.close();
    }
    const replay = await fetch(`${server.url}/hello/v1/session/${sessionId}/stream`, { headers: { accept: "text/event-stream", "last-event-id": "9999" } });
    expect(replay.status).toBe(204);
  });
});
