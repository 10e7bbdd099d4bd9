/**
 * `addAdapterTests({ url, runtime })`: the host's HTTP behaviour checked through a URL only, so
 * the same suite runs against a server in another process on Node, Bun and Deno
 * (`test/runtime-adapters.test.ts`). Every request is a real loopback request.
 */
import { expect, test } from "vitest";
import { postJson, readEvents } from "./_harness.ts";
import type { TestEvent } from "./_harness.ts";

export interface AdapterUnderTest {
  /** Base URL of the server, without a trailing slash; read lazily because it starts in a hook. */
  url: () => string;
  runtime: "node" | "bun" | "deno";
}

export function addAdapterTests({ url, runtime }: AdapterUnderTest): void {
  const agent = (): string => `${url()}/hello`;

  async function start(message: string): Promise<string> {
    return (await startWithToken(message)).sessionId;
  }

  async function startWithToken(message: string): Promise<{ sessionId: string; continuationToken: string }> {
    const response = await fetch(`${agent()}/v1/session`, postJson({ message }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; sessionId: string; continuationToken: string };
    expect(body.ok).toBe(true);
    return body;
  }

  async function follow(sessionId: string, until: (event: TestEvent, all: TestEvent[]) => boolean): Promise<TestEvent[]> {
    const response = await fetch(`${agent()}/v1/session/${sessionId}/stream`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/x-ndjson");
    return readEvents(response, until, 10_000);
  }

  test(`[${runtime}] health answers on the host and under the agent`, async () => {
    for (const path of ["/v1/health", "/hello/v1/health"]) {
      const response = await fetch(`${url()}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: true });
    }
  });

  test(`[${runtime}] an unknown route and bad input get the error envelope`, async () => {
    const missing = await fetch(`${agent()}/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ ok: false, error: expect.any(String) });
    const bad = await fetch(`${agent()}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: expect.any(String) });
    const wrongShape = await fetch(`${agent()}/v1/session`, postJson({ message: 42 }));
    expect(wrongShape.status).toBe(400);
  });

  test(`[${runtime}] a turn streams as NDJSON and replays with the same indices`, async () => {
    const sessionId = await start("/reply hello from the runtime");
    const live = await follow(sessionId, (event) => event.type === "session.waiting");
    const text = live.filter((event) => event.type === "message.completed").at(-1)?.data.text;
    expect(text).toBe("hello from the runtime");
    const replay = await fetch(`${agent()}/v1/session/${sessionId}/events`);
    const events = (await replay.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    expect(events.map((event) => event.index)).toEqual(events.map((_, i) => i));
    expect(events.slice(0, live.length).map((event) => event.type)).toEqual(live.map((event) => event.type));
  });

  test(`[${runtime}] a server tool runs and its result reaches the stream`, async () => {
    const sessionId = await start('/tool add {"a":2,"b":3}');
    const events = await follow(sessionId, (event) => event.type === "session.waiting");
    expect(events.find((event) => event.type === "action.result")?.data).toMatchObject({ toolName: "add", output: { sum: 5 }, isError: false });
  });

  test(`[${runtime}] an approval parks the call until it is approved over HTTP`, async () => {
    const sessionId = await start('/tool danger {"what":"prod"}');
    const parked = await follow(sessionId, (event) => event.type === "action.approval_requested");
    const callId = parked.at(-1)?.data.callId as string;
    const listed = await fetch(`${agent()}/v1/session/${sessionId}/approvals`);
    expect(JSON.stringify(await listed.json())).toContain(callId);
    const approved = await fetch(`${agent()}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision: "approve" }));
    expect(approved.status).toBe(200);
    const events = await follow(sessionId, (event, all) => all.filter((e) => e.type === "session.waiting").length > 0 && event.type === "session.waiting");
    expect(events.find((event) => event.type === "action.result")?.data).toMatchObject({ toolName: "danger", output: "deleted prod" });
  });

  test(`[${runtime}] a client that leaves a live stream does not disturb the next one`, async () => {
    const { sessionId, continuationToken } = await startWithToken("/reply first");
    await follow(sessionId, (event) => event.type === "session.waiting");
    const first = await fetch(`${agent()}/v1/session/${sessionId}/stream`);
    const reader = first.body!.getReader();
    await reader.read();
    await reader.cancel();
    const next = await fetch(`${agent()}/v1/session/${sessionId}`, postJson({ message: "/reply second", continuationToken }));
    expect(next.status).toBe(200);
    const events = await follow(sessionId, (_event, all) => all.some((e) => e.type === "message.completed" && e.data.text === "second"));
    expect(events.some((event) => event.data.text === "second")).toBe(true);
  });

  test(`[${runtime}] the adapter passes srvx's ip and waitUntil, and no platform env`, async () => {
    const context = await (await fetch(`${url()}/__context`)).json();
    expect(context).toEqual({ ip: "127.0.0.1", waitUntil: "function", env: null });
  });

  test(`[${runtime}] the TCP peer reaches the host: a loopback caller is admitted by the default policy`, async () => {
    const response = await fetch(`${agent()}/v1/sessions`);
    expect(response.status).toBe(200);
    // A forwarded header does not make a proxied request look like the peer.
    const proxied = await fetch(`${agent()}/v1/sessions`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(401);
  });
}
