/**
 * Channel delivery across a crash between a session's first commit and its first delivery cursor
 * (docs/design/channels.md "Delivery"): the restarted host's recovery closes the turn the crash
 * left open, and every event of that session, the ones before the crash included, reaches the
 * channel's `events` handler. Found by the chaos harness (docs/reliability.md "Workload additions").
 */
import * as v from "valibot";
import { afterEach, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { POST, defineChannel } from "../src/entries/channels.ts";
import { deliveryCursorPrefix, eventLogName } from "../src/base/storage/keys.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { createScriptedModel } from "../src/testing.ts";
import { eventually, helloOptions, project } from "./_harness.ts";

const delivered: Array<{ host: string; sessionId: string; index: number; type: string }> = [];

function inbox(host: string) {
  return defineChannel({
    routes: [
      POST("/messages", {
        bodySchema: v.object({ text: v.string() }),
        handler: async (_request, { body, send }) => ({ sessionId: (await send(body.text)).sessionId }),
      }),
    ],
    events: {
      "*": (event, channel) => {
        delivered.push({ host, sessionId: channel.sessionId, index: event.index, type: event.type });
      },
    },
  });
}

/**
 * The store as a process that dies sees it: the delivery cursor's writes never reach it (the crash
 * falls just before the first one), and after `crash()` nothing does.
 */
function dyingStore(inner: StorageDriver): { driver: StorageDriver; crash(): void } {
  let dead = false;
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function" || property === "follow") return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const key = typeof args[0] === "string" ? args[0] : "";
        if (dead || (property === "set" && key.startsWith(deliveryCursorPrefix("inbox")))) return Promise.reject(new Error("the process died"));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { driver, crash: () => (dead = true) };
}

const open: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  for (const { host, server } of open.splice(0)) {
    await host.close();
    await server.close(true);
  }
  delivered.length = 0;
});

async function serve(host: string, storage: StorageDriver, close = true): Promise<{ url: string; host: AgentHost }> {
  const model = createScriptedModel();
  const agentHost = createHost(
    helloOptions({ agents: [{ slug: "hello", project: project({ channels: { inbox: inbox(host) } }), storage }], models: { resolve: () => model }, leaseTtlMs: 1000 }),
  );
  const server = await serveNode(agentHost, { port: 0, silent: true });
  if (close) open.push({ host: agentHost, server });
  else open.push({ host: { close: async () => {} } as unknown as AgentHost, server });
  return { url: server.url, host: agentHost };
}

test("a session whose first delivery cursor a crash cut is delivered whole by the restarted host", async () => {
  const inner = createMemoryStorage();
  const dying = dyingStore(inner);
  // The first process: abandoned, never closed, as a dead one is.
  const first = await serve("first", dying.driver, false);
  const response = await fetch(`${first.url}/hello/v1/channels/inbox/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: "/sleep 10000\n/reply late" }),
  });
  expect(response.status).toBe(200);
  const { sessionId } = (await response.json()) as { sessionId: string };
  // The session and its running turn are committed; the cursor never was.
  await eventually(async () => ((await inner.list(deliveryCursorPrefix("inbox"))).length === 0 && (await inner.length(eventLogName(sessionId))) >= 3 ? true : undefined), 5000, "the turn started");
  dying.crash();

  const second = await serve("second", inner);
  await second.host.ready();
  const log = await eventually(async () => {
    const text = await (await fetch(`${second.url}/hello/v1/session/${sessionId}/events`)).text();
    const events = text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { index: number; type: string });
    return events.at(-1)?.type === "session.waiting" ? events : undefined;
  }, 10_000, "the recovered session at rest");
  expect(log.some((e) => e.type === "turn.failed")).toBe(true);
  const byTheSecond = await eventually(async () => {
    const seen = delivered.filter((d) => d.host === "second" && d.sessionId === sessionId);
    return seen.length >= log.length ? seen : undefined;
  }, 10_000, "every event delivered by the restarted host");
  expect(byTheSecond.map((d) => [d.index, d.type])).toEqual(log.map((e) => [e.index, e.type]));
});
