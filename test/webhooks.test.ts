/**
 * Signed lifecycle webhooks (docs/guide/webhooks.md), over real HTTP to a loopback receiver that
 * checks every signature the Standard Webhooks way with node:crypto: the chosen events in order,
 * a receiver that never answers listed as failed and redelivered, and a receiver down while the
 * first host runs gets the events from the next host on the same sqlite store under the same ids.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { validateAgentConfig } from "../loader/validate-config.ts";
import type { WebhookEndpoint } from "../src/base/definitions/webhooks.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/host/host.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { serve } from "./_a2a.ts";

const secret = `whsec_${randomBytes(32).toString("base64")}`;

interface Post {
  id: string;
  type: string;
  index: number;
  sessionId: string;
}

/** A loopback receiver: checks each post's signature and timestamp, records it; while `down`, answers 503. */
async function receiver(): Promise<{ url: string; posts: Post[]; attempts: string[]; setDown(down: boolean): void; close(): Promise<void> }> {
  const posts: Post[] = [];
  const attempts: string[] = [];
  let down = false;
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const id = header(request.headers, "webhook-id");
      attempts.push(id);
      if (!verified(request.headers, body)) {
        response.writeHead(401).end();
        return;
      }
      if (down) {
        response.writeHead(503).end();
        return;
      }
      const payload = JSON.parse(body) as { type: string; data: { index: number; sessionId: string; type: string } };
      expect(payload.data.type).toBe(payload.type);
      posts.push({ id, type: payload.type, index: payload.data.index, sessionId: payload.data.sessionId });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    posts,
    attempts,
    setDown: (value) => (down = value),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return typeof value === "string" ? value : "";
}

/** The Standard Webhooks check: v1 HMAC-SHA256 of `id.timestamp.body` under the whsec_ key, timestamp within five minutes. */
function verified(headers: IncomingHttpHeaders, body: string): boolean {
  const [id, timestamp, signature] = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => header(headers, name));
  if (!id || !/^\d+$/.test(timestamp!) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(`${id}.${timestamp}.${body}`).digest();
  return signature!.split(" ").some((entry) => {
    if (!entry.startsWith("v1,")) return false;
    const presented = Buffer.from(entry.slice(3), "base64");
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
}

const options = (storage: StorageDriver, webhooks: WebhookEndpoint[], retryDelaysMs: number[] = [20, 20]): Parameters<typeof serve>[0] =>
  helloOptions({ dev: true, agents: [{ slug: "hello", project: project({ agent: { webhooks } }), storage }], channels: { retryDelaysMs } });

async function send(base: string, message: string): Promise<string> {
  const response = await fetch(`${base}/hello/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessionId: string }).sessionId;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "webhooks-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("signed lifecycle webhooks", () => {
  it("posts the chosen events of each session, signed, in order", async () => {
    const hook = await receiver();
    const storage = createSqliteStorage({ path: join(dir, "state.db") });
    const served = await serve(options(storage, [{ id: "main", url: hook.url, events: ["turn.started", "turn.completed", "session.waiting"], secret }]));
    try {
      const sessionId = await send(served.url, "/reply hello");
      await eventually(async () => (hook.posts.some((post) => post.type === "session.waiting") ? true : undefined), 5000, "session.waiting");
      expect(hook.posts.map((post) => post.type)).toEqual(["turn.started", "turn.completed", "session.waiting"]);
      expect(hook.posts.every((post) => post.sessionId === sessionId)).toBe(true);
      const indexes = hook.posts.map((post) => post.index);
      expect([...indexes].sort((a, b) => a - b)).toEqual(indexes);
      expect(hook.posts.map((post) => post.id)).toEqual(indexes.map((index) => `msg_${sessionId}_${index}`));
      // A removed session takes its webhook cursor with it.
      const cursor = `channels/_webhook-main/delivered/${sessionId}`;
      expect(await storage.get(cursor)).toBeDefined();
      expect((await fetch(`${served.url}/hello/v1/session/${sessionId}`, { method: "DELETE" })).status).toBe(200);
      expect(await storage.get(cursor)).toBeUndefined();
    } finally {
      await served.close();
      await hook.close();
    }
  });

  it("after the last retry a delivery is listed as failed; redelivery posts it under the same id", async () => {
    const hook = await receiver();
    hook.setDown(true);
    const served = await serve(options(createMemoryStorage(), [{ id: "ops", url: hook.url, events: ["turn.completed"], secret }]));
    try {
      const sessionId = await send(served.url, "/reply nobody hears");
      const listed = await eventually(async () => {
        const body = (await (await fetch(`${served.url}/hello/v1/webhooks/deliveries`)).json()) as { deliveries: Array<Record<string, unknown>> };
        return body.deliveries.length > 0 ? body.deliveries : undefined;
      }, 5000, "the failed delivery");
      expect(listed).toEqual([expect.objectContaining({ endpoint: "ops", url: hook.url, sessionId, type: "turn.completed", attempts: 3, error: expect.stringContaining("503") })]);
      const id = listed[0]!["id"] as string;
      expect(hook.attempts.filter((attempt) => attempt === id)).toHaveLength(3);
      const redeliver = (endpoint: string, deliveryId: string): Promise<Response> =>
        fetch(`${served.url}/hello/v1/webhooks/deliveries/${endpoint}/${deliveryId}/redeliver`, { method: "POST" });
      expect((await redeliver("ops", id)).status).toBe(502);
      hook.setDown(false);
      expect(await (await redeliver("ops", id)).json()).toEqual({ ok: true });
      expect(hook.posts.map((post) => post.id)).toEqual([id]);
      expect(((await (await fetch(`${served.url}/hello/v1/webhooks/deliveries`)).json()) as { deliveries: unknown[] }).deliveries).toEqual([]);
      expect((await redeliver("ops", id)).status).toBe(404);
      expect((await redeliver("other", id)).status).toBe(404);
    } finally {
      await served.close();
      await hook.close();
    }
  });

  it("a receiver down while the first host runs gets every event from the next host on the same sqlite store", async () => {
    const hook = await receiver();
    const path = join(dir, "state.db");
    const endpoint: WebhookEndpoint = { url: hook.url, events: ["*"], secret };
    // Retries far apart: the host goes away while the first retry waits, its cursor unmoved.
    let served = await serve(options(createSqliteStorage({ path }), [endpoint], [60_000]));
    let sessionId: string;
    try {
      hook.setDown(true);
      sessionId = await send(served.url, "/reply across a restart");
      await eventually(async () => (hook.attempts.length > 0 ? true : undefined), 5000, "a first attempt");
    } finally {
      await served.close();
    }
    expect(hook.posts).toEqual([]);
    const tried = hook.attempts[0];
    hook.setDown(false);
    served = await serve(options(createSqliteStorage({ path }), [endpoint]));
    try {
      await served.host.ready();
      const text = await (await fetch(`${served.url}/hello/v1/session/${sessionId}/events`)).text();
      const events = text.trim().split("\n").map((line) => JSON.parse(line) as { index: number; type: string });
      const last = events.at(-1)!;
      await eventually(async () => (hook.posts.some((post) => post.index === last.index) ? true : undefined), 5000, "the last event after the restart");
      expect(hook.posts.map((post) => post.type)).toEqual(events.map((event) => event.type));
      expect(hook.posts[0]!.id).toBe(tried);
      expect(new Set(hook.posts.map((post) => post.id)).size).toBe(hook.posts.length);
    } finally {
      await served.close();
      await hook.close();
    }
  });

  it("a loopback or private target is refused outside --dev unless the endpoint allows it; a bad secret always", () => {
    const build = (webhooks: WebhookEndpoint[], dev = false) => () => createHost(helloOptions({ dev, agents: [{ slug: "hello", project: project({ agent: { webhooks } }) }] }));
    for (const url of ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/latest"]) {
      expect(build([{ url, events: ["*"], secret }]), url).toThrow(/loopback, private or link-local/);
    }
    expect(build([{ url: "ftp://example.com/", events: ["*"], secret }])).toThrow(/http or https/);
    expect(build([{ url: "https://example.com/", events: [], secret }])).toThrow(/events/);
    expect(build([{ url: "https://example.com/", events: ["*"], secret: "plain" }], true)).toThrow(/whsec_/);
    expect(build([{ url: "https://example.com/a", events: ["*"], secret, id: "x" }, { url: "https://example.com/b", events: ["*"], secret, id: "x" }])).toThrow(/taken/);
    expect(build([{ url: "http://10.1.2.3/", events: ["*"], secret, allowPrivateTarget: true }])).not.toThrow();
    expect(build([{ url: "http://127.0.0.1:9/", events: ["*"], secret }], true)).not.toThrow();
  });

  it("validate reports a malformed endpoint and leaves private targets to the host", () => {
    const problems = (webhooks: unknown) => validateAgentConfig({ webhooks } as never, "bot/agent.ts").map((diagnostic) => diagnostic.message);
    expect(problems([{ url: "http://127.0.0.1/hook", events: ["turn.completed"], secret }])).toEqual([]);
    expect(problems([{ url: "https://example.com/", events: ["*"], secret: "nope" }])).toEqual([expect.stringMatching(/^webhooks\[0\] secret must be whsec_/)]);
    expect(problems({ url: "https://example.com/" })).toEqual(["webhooks must be an array of {url, events, secret, id?, allowPrivateTarget?}"]);
  });
});
