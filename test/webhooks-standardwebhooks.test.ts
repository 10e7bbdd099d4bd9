/**
 * Signed lifecycle webhooks checked by the reference verifier (docs/guide/webhooks.md
 * "Verifying"): a loopback receiver verifies every post with the `standardwebhooks` package's
 * `Webhook.verify`, as a user's receiver would, and answers 401 when it throws. Every event of a
 * session with an approval verifies and carries the event as `/events` has it; a redelivery
 * verifies under the same id and a fresh timestamp; a receiver holding another secret refuses
 * every post (so the check is not vacuous), and a tampered body, id or timestamp does not verify.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import type { WebhookEndpoint } from "../src/base/definitions/webhooks.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, fetchEvents, helloOptions, postJson, project } from "./_harness.ts";

const newSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

interface Delivery {
  body: string;
  headers: Record<string, string>;
  /** What `Webhook.verify` returned. */
  payload: { type: string; timestamp: string; data: { type: string; index: number; sessionId: string } };
}

/** A receiver that verifies with `standardwebhooks` under `secret`; while `down`, verified posts get 503. */
async function receiver(secret: string) {
  const verifier = new Webhook(secret);
  const delivered: Delivery[] = [];
  const refused: string[] = [];
  /** `webhook-timestamp` of each verified attempt answered 503. */
  const turnedAway: number[] = [];
  let down = false;
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const headers = Object.fromEntries(Object.entries(request.headers).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])));
      let payload: Delivery["payload"];
      try {
        payload = verifier.verify(body, headers) as Delivery["payload"];
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookVerificationError);
        refused.push(headers["webhook-id"] ?? "");
        response.writeHead(401).end();
        return;
      }
      if (down) {
        turnedAway.push(Number(headers["webhook-timestamp"]));
        response.writeHead(503).end();
        return;
      }
      delivered.push({ body, headers, payload });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    delivered,
    refused,
    turnedAway,
    setDown: (value: boolean) => (down = value),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const tools = {
  danger: defineTool({ description: "Deletes things", needsApproval: true, execute: (input: { what: string }) => `deleted ${input.what}` }),
};

const running: Array<{ host: AgentHost; server: NodeServer }> = [];
const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const { host, server } of running.splice(0)) {
    await host.close();
    await server.close(true);
  }
  for (const hook of receivers.splice(0)) await hook.close();
});

async function start(webhooks: WebhookEndpoint[]): Promise<string> {
  const host = createHost(
    helloOptions({ dev: true, agents: [{ slug: "hello", project: project({ tools, agent: { webhooks } }), storage: createMemoryStorage() }], channels: { retryDelaysMs: [20, 20] } }),
  );
  const server = await serveNode(host, { port: 0, silent: true });
  running.push({ host, server });
  return `${server.url}/hello`;
}

describe("webhooks verified by the standardwebhooks package", () => {
  it("every post of a session with an approval verifies and carries the event as /events has it", async () => {
    const secret = newSecret();
    const hook = await receiver(secret);
    receivers.push(hook);
    const base = await start([{ id: "main", url: hook.url, events: ["*"], secret }]);
    const created = await fetch(`${base}/v1/session`, postJson({ message: `/tool danger {"what":"logs"}\n/reply done` }));
    const { sessionId } = (await created.json()) as { sessionId: string };
    const asked = await eventually(async () => hook.delivered.find((d) => d.payload.type === "action.approval_requested"), 10_000, "the approval request posted");
    const callId = (asked.payload.data as unknown as { data: { callId: string } }).data.callId;
    expect((await fetch(`${base}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision: "approve" }))).status).toBe(200);

    const events = await eventually(async () => {
      const all = await fetchEvents(base, sessionId);
      return all.at(-1)?.type === "session.waiting" && hook.delivered.length === all.length ? all : undefined;
    }, 10_000, "every event posted");
    expect(hook.refused).toEqual([]);
    // The verified payload is the event, byte for byte as the events route has it, in order.
    expect(hook.delivered.map((d) => d.payload.data)).toEqual(events);
    expect(hook.delivered.map((d) => d.payload.type)).toEqual(events.map((event) => event.type));
    expect(hook.delivered.map((d) => d.headers["webhook-id"])).toEqual(events.map((event) => `msg_${sessionId}_${event.index}`));
    expect(hook.delivered.map((d) => d.payload.type)).toEqual(expect.arrayContaining(["action.approval_requested", "action.approval_resolved", "turn.completed", "session.waiting"]));

    // The check is real: any change to what was signed fails it.
    const verifier = new Webhook(secret);
    const { body, headers } = hook.delivered.at(-1)!;
    expect(verifier.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => verifier.verify(`${body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(body, { ...headers, "webhook-id": `${headers["webhook-id"]}x` })).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(body, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it("a receiver holding another secret refuses every post, which is listed as failed", async () => {
    const hook = await receiver(newSecret());
    receivers.push(hook);
    const base = await start([{ id: "wrong", url: hook.url, events: ["turn.completed"], secret: newSecret() }]);
    await fetch(`${base}/v1/session`, postJson({ message: "/reply nobody trusts this" }));
    const listed = await eventually(async () => {
      const body = (await (await fetch(`${base}/v1/webhooks/deliveries`)).json()) as { deliveries: Array<{ id: string; error: string; attempts: number }> };
      return body.deliveries.length > 0 ? body.deliveries : undefined;
    }, 10_000, "the failed delivery");
    expect(listed).toEqual([expect.objectContaining({ attempts: 3, error: expect.stringContaining("401") })]);
    expect(hook.refused).toEqual([listed[0]!.id, listed[0]!.id, listed[0]!.id]);
    expect(hook.delivered).toEqual([]);
  });

  it("a redelivery verifies under the same id with a fresh timestamp", async () => {
    const secret = newSecret();
    const hook = await receiver(secret);
    receivers.push(hook);
    hook.setDown(true);
    const base = await start([{ id: "ops", url: hook.url, events: ["turn.completed"], secret }]);
    await fetch(`${base}/v1/session`, postJson({ message: "/reply later" }));
    const [failed] = await eventually(async () => {
      const body = (await (await fetch(`${base}/v1/webhooks/deliveries`)).json()) as { deliveries: Array<{ id: string }> };
      return body.deliveries.length > 0 ? body.deliveries : undefined;
    }, 10_000, "the failed delivery");
    expect(hook.turnedAway).toHaveLength(3);
    hook.setDown(false);
    const redelivered = await fetch(`${base}/v1/webhooks/deliveries/ops/${failed!.id}/redeliver`, { method: "POST" });
    expect(await redelivered.json()).toEqual({ ok: true });
    expect(hook.refused).toEqual([]);
    expect(hook.delivered).toHaveLength(1);
    const [{ headers, payload }] = hook.delivered as [Delivery];
    expect(headers["webhook-id"]).toBe(failed!.id);
    expect(payload.type).toBe("turn.completed");
    // Signed at this attempt, not replayed from the first ones.
    expect(Number(headers["webhook-timestamp"])).toBeGreaterThanOrEqual(Math.max(...hook.turnedAway));
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
  });
});
