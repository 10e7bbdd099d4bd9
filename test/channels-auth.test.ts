/**
 * Channel auth chains (docs/guide/channels.md "Auth") and the built-in HTTP channel override
 * (`bot/channels/http.ts` with `auth` and `onMessage`), over real loopback HTTP.
 */
import * as v from "valibot";
import { afterEach, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { POST, bearerAuth, defineChannel, localDevStrict } from "../src/entries/channels.ts";
import type { ChannelDefinition } from "../src/base/definitions/channels.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { helloOptions, postJson, project } from "./_harness.ts";

const whoami = POST("/whoami", { bodySchema: v.object({}), handler: (_request, { auth }) => ({ principal: auth.principalId, by: auth.authenticator }) });
const open = defineChannel({ routes: [whoami] });
const strict = defineChannel({ auth: [localDevStrict()], routes: [whoami] });
const keyed = defineChannel({ auth: [bearerAuth("channel-key")], routes: [whoami] });

const running: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  for (const { host, server } of running.splice(0)) {
    await host.close();
    await server.close(true);
  }
});

async function serve(channels: Record<string, ChannelDefinition>, overrides: Partial<AgentHostOptions> = {}): Promise<string> {
  const host = createHost(
    helloOptions({ agents: [{ slug: "hello", project: project({ channels }), storage: createMemoryStorage() }], ...overrides }),
  );
  const server = await serveNode(host, { port: 0, silent: true });
  running.push({ host, server });
  return `${server.url}/hello`;
}

const forwarded = { "x-forwarded-for": "203.0.113.9" };

async function call(base: string, channel: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}/v1/channels/${channel}/whoami`, postJson({}, headers));
  return { status: response.status, body: await response.json() };
}

test("default chain: loopback only; an unauthorized caller gets 401 in the error envelope", async () => {
  const base = await serve({ open, strict });
  expect(await call(base, "open")).toEqual({ status: 200, body: { principal: "local", by: "localDevStrict" } });
  expect(await call(base, "open", forwarded)).toEqual({ status: 401, body: { ok: false, error: "unauthorized", message: "no auth policy admitted this request" } });
});

test("--allow-anonymous opens channels without a chain; [localDevStrict()] stays loopback-only", async () => {
  const base = await serve({ open, strict }, { auth: { allowAnonymous: true } });
  expect(await call(base, "open", forwarded)).toEqual({ status: 200, body: { principal: "anonymous", by: "allowAll" } });
  expect((await call(base, "strict", forwarded)).status).toBe(401);
  expect(await call(base, "strict")).toEqual({ status: 200, body: { principal: "local", by: "localDevStrict" } });
});

test("--bearer-token guards channels without a chain; an authored chain wins", async () => {
  const base = await serve({ open, strict, keyed }, { auth: { bearerToken: "host-secret" } });
  expect((await call(base, "open")).status).toBe(401);
  expect(await call(base, "open", { authorization: "Bearer host-secret" })).toEqual({ status: 200, body: { principal: "bearer", by: "bearerAuth" } });
  expect((await call(base, "strict", { ...forwarded, authorization: "Bearer host-secret" })).status).toBe(401);
  expect((await call(base, "strict")).status).toBe(200);
  expect((await call(base, "keyed", { authorization: "Bearer host-secret" })).status).toBe(401);
  expect((await call(base, "keyed", { authorization: "Bearer channel-key" })).status).toBe(200);
});

test("bot/channels/http.ts: its auth replaces the session routes' chain; onMessage rewrites or refuses", async () => {
  const http = defineChannel({
    auth: [bearerAuth("http-key")],
    onMessage: ({ message, followUp }) => (message.includes("forbidden") ? null : { message: `[web${followUp ? " follow-up" : ""}] ${message}`, options: { title: "via web" } }),
  });
  const base = await serve({ http, open });
  const key = { authorization: "Bearer http-key" };
  expect((await fetch(`${base}/v1/session`, postJson({ message: "hi" }))).status).toBe(401);
  // Other channels keep the start-up default chain, not the override's.
  expect((await call(base, "open")).status).toBe(200);

  const refused = await fetch(`${base}/v1/session`, postJson({ message: "something forbidden" }, key));
  expect(refused.status).toBe(400);
  expect(await refused.json()).toMatchObject({ ok: false, error: "message_refused" });
  const listed = (await (await fetch(`${base}/v1/sessions`, { headers: key })).json()) as { sessions: Array<{ title: string | null; sessionId: string; continuationToken: string }> };
  expect(listed.sessions).toEqual([]);

  const created = (await (await fetch(`${base}/v1/session`, postJson({ message: "hi" }, key))).json()) as { sessionId: string; continuationToken: string };
  const follow = await fetch(`${base}/v1/session/${created.sessionId}`, postJson({ message: "again", continuationToken: created.continuationToken }, key));
  expect(follow.status).toBe(200);
  const events = (await (await fetch(`${base}/v1/session/${created.sessionId}/events`, { headers: key })).text())
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  expect(events.filter((e) => e.type === "message.received").map((e) => e.data.text)).toEqual(["[web] hi", "[web follow-up] again"]);
  expect(events[0]?.data).toMatchObject({ title: "via web" });
});
