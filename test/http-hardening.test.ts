/**
 * Routes that must not be looser than the rest (docs/design/faults.md): the platform timer routes
 * run the host-level auth chain as well as needing their marker header, HEAD answers as GET
 * without a body, stop needs the session's owner, and `/v1/logs` shows no file-system paths.
 */
import { request as httpRequest } from "node:http";
import { afterEach, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { eventually, postJson, project, quietLogger } from "./_harness.ts";

const started: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  for (const { host, server } of started.splice(0)) {
    await host.close();
    await server.close(true);
  }
});

async function serveHost(options: Partial<AgentHostOptions>): Promise<{ host: AgentHost; url: string }> {
  const host = createHost({
    agents: [{ slug: "hello", project: project({ schedules: { digest: { cron: "* * * * *", markdown: "/reply platform" } } }), storage: createMemoryStorage() }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    ...options,
  });
  const server = await serveNode(host, { port: 0, silent: true });
  started.push({ host, server });
  return { host, url: server.url.replace(/\/$/, "") };
}

const MARKER = { "x-agent-serve-timed-work": "1" };
/** Through node:http, since fetch will not send a Host header of the caller's choosing. */
function fire(url: string, headers: Record<string, string>): Promise<{ status: number; json(): Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/hello/v1/internal/schedules/digest/fire`, { method: "POST", headers }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, json: async () => JSON.parse(body) as unknown }));
    });
    request.on("error", reject);
    request.end();
  });
}

test("internal fire routes need the marker header and the loopback chain: forwarding headers and a foreign Host are refused", async () => {
  const { url } = await serveHost({ controlPlane: false });
  expect((await fire(url, {})).status).toBe(403);
  const probes: Array<Record<string, string>> = [{ "x-forwarded-for": "203.0.113.9" }, { forwarded: "for=203.0.113.9" }, { "x-real-ip": "203.0.113.9" }, { host: "evil.example" }];
  for (const headers of probes) {
    const refused = await fire(url, { ...MARKER, ...headers });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ ok: false, error: "unauthorized" });
  }
  const fired = await fire(url, MARKER);
  expect(fired.status).toBe(200);
  expect(await fired.json()).toMatchObject({ ok: true, scheduleId: "digest", sessionIds: [expect.stringMatching(/^ses_/)] });
});

test("under a bearer token, the internal routes need the token too", async () => {
  const { url } = await serveHost({ controlPlane: false, auth: { bearerToken: "s3cret" } });
  const missing = await fire(url, MARKER);
  expect(missing.status).toBe(401);
  expect(await missing.json()).toMatchObject({ ok: false, error: "unauthorized" });
  expect((await fire(url, { ...MARKER, authorization: "Bearer wrong" })).status).toBe(401);
  // Loopback is not enough under a bearer token; the token and the marker are.
  expect((await fire(url, { authorization: "Bearer s3cret" })).status).toBe(403);
  expect((await fire(url, { ...MARKER, authorization: "Bearer s3cret" })).status).toBe(200);
});

test("with --allow-anonymous, the marker header is what the internal routes still ask for", async () => {
  const { url } = await serveHost({ controlPlane: false, auth: { allowAnonymous: true } });
  expect((await fire(url, { host: "public.example" })).status).toBe(403);
  expect((await fire(url, { ...MARKER, host: "public.example" })).status).toBe(200);
});

test("HEAD on GET routes answers as GET without a body; HEAD stays refused where GET is", async () => {
  const { url } = await serveHost({});
  const created = await fetch(`${url}/hello/v1/session`, postJson({ message: "/reply hi" }));
  const { sessionId } = (await created.json()) as { sessionId: string };
  for (const path of ["/v1/health", "/hello/v1/meta", "/hello/v1/sessions", `/hello/v1/session/${sessionId}/events`, `/hello/v1/session/${sessionId}/cost`, `/hello/v1/session/${sessionId}/stream`]) {
    const get = await fetch(`${url}${path}`, path.endsWith("/stream") ? { signal: AbortSignal.timeout(2000) } : {});
    const head = await fetch(`${url}${path}`, { method: "HEAD" });
    expect(head.status, path).toBe(get.status);
    expect(head.headers.get("content-type"), path).toBe(get.headers.get("content-type"));
    expect(await head.text(), path).toBe("");
    await get.body?.cancel();
  }
  const missing = await fetch(`${url}/hello/v1/session/ses_nope/events`, { method: "HEAD" });
  expect(missing.status).toBe(404);
  expect(await missing.text()).toBe("");
  const postOnly = await fetch(`${url}/hello/v1/session`, { method: "HEAD" });
  expect(postOnly.status).toBe(405);
  const get = await fetch(`${url}/hello/v1/session/${sessionId}/events`, { method: "PUT" });
  expect(get.status).toBe(405);
  expect(get.headers.get("allow")).toBe("GET, HEAD");
});

test.each([
  ["--allow-anonymous", { auth: { allowAnonymous: true } }],
  ["--dev with a bearer token", { dev: true, auth: { bearerToken: "t0ken" } }],
] as const)("stop needs the owner under %s, where reads are widened", async (_title, options) => {
  const { host, url } = await serveHost(options as Partial<AgentHostOptions>);
  const token: Record<string, string> = "auth" in options && "bearerToken" in options.auth ? { authorization: `Bearer ${options.auth.bearerToken}` } : {};
  // The owner is a channel principal (a session another principal started), not the caller.
  const { sessionId } = await host.send("/sleep 5000", { channel: "http" });
  await eventually(async () => ((await (await fetch(`${url}/hello/v1/session/${sessionId}/events`, { headers: token })).text()).includes("turn.started") ? true : undefined));
  const stop = await fetch(`${url}/hello/v1/session/${sessionId}/stop`, { method: "POST", headers: token });
  expect(stop.status).toBe(403);
  expect(await stop.json()).toMatchObject({ ok: false, error: "forbidden" });
  const events = await (await fetch(`${url}/hello/v1/session/${sessionId}/events`, { headers: token })).text();
  expect(events).not.toContain("turn.failed");
});

test("GET /v1/logs shows no absolute path of the state root or elsewhere", async () => {
  const storage = createMemoryStorage();
  const root = "/srv/agent-serve/state/hello";
  const failing = { ...storage, async get(key: string) {
    if (key.startsWith("sessions/")) throw new Error(`EACCES: permission denied, open '${root}/${key}.json'`);
    return storage.get(key);
  } };
  const host = createHost({ agents: [{ slug: "hello", project: project(), storage: failing }], logger: quietLogger, drainTimeoutMs: 50 });
  const server = await serveNode(host, { port: 0, silent: true });
  started.push({ host, server });
  const url = server.url.replace(/\/$/, "");
  expect((await fetch(`${url}/hello/v1/session/ses_abc/events`)).status).toBe(500);
  const { lines } = (await (await fetch(`${url}/hello/v1/logs`)).json()) as { lines: Array<{ message: string }> };
  const text = lines.map((line) => line.message).join("\n");
  expect(text).toContain("EACCES");
  expect(text).not.toContain(root);
  expect(text).not.toMatch(/\/srv\//);
});
