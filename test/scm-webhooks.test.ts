/**
 * `POST /v1/webhooks/scm`: one GitHub delivery (a real `@octokit/webhooks-examples` payload,
 * signed with `@octokit/webhooks-methods`) handed to every mounted GitHub channel over a real
 * loopback server; a local HTTP server stands in for the REST API.
 */
import examples from "@octokit/webhooks-examples";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { defaultGitHubAuth, githubChannel } from "../src/entries/channels/github.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, project, quietLogger } from "./_harness.ts";
import { type StubApi, startStubApi } from "./_stub-api.ts";

const SECRET = "It's a Secret to Everybody";
const TOKEN = "ghp_test_token";
const definitions = examples as unknown as Array<{ name: string; examples: Array<Record<string, unknown> & { action?: string }> }>;
const prOpened = definitions.find((entry) => entry.name === "pull_request")!.examples.find((p) => p.action === "opened" && !(p.pull_request as { draft: boolean }).draft)!;
const commentCreated = definitions.find((entry) => entry.name === "issue_comment")!.examples.find((p) => p.action === "created")!;

let api: StubApi;
beforeAll(async () => {
  api = await startStubApi(() => ({ status: 201, body: { id: 1 } }));
});
afterAll(() => api.close());
const comments = () => api.calls.filter((call) => call.method === "POST" && call.path.endsWith("/comments"));

const running: Array<{ host: AgentHost; server: NodeServer }> = [];
afterEach(async () => {
  for (const target of running.splice(0)) {
    await target.host.close();
    await target.server.close(true);
  }
  api.calls.length = 0;
});

describe("POST /v1/webhooks/scm", () => {
  test("fans one delivery out to every mounted GitHub channel, unchanged, and answers per channel", async () => {
    const make = () =>
      githubChannel({ secret: SECRET, token: TOKEN, apiUrl: api.url, onPullRequest: (ctx) => ({ auth: defaultGitHubAuth(ctx), message: "/reply reviewed" }) });
    const host = createHost({
      agents: [
        { slug: "alpha", project: project({ channels: { github: make() } }), storage: createMemoryStorage() },
        { slug: "beta", project: project({ channels: { gh: make(), other: githubChannel({ secret: "different", apiUrl: api.url }) } }), storage: createMemoryStorage() },
        { slug: "plain", project: project(), storage: createMemoryStorage() },
      ],
      logger: quietLogger,
      drainTimeoutMs: 200,
    });
    const server = await serveNode(host, { port: 0, silent: true });
    running.push({ host, server });
    const body = JSON.stringify(prOpened);
    const headers = {
      "content-type": "application/json",
      "x-github-event": "pull_request",
      "x-github-delivery": "fanout-1",
      "x-hub-signature-256": await sign(SECRET, body),
    };
    const response = await fetch(`${server.url}/v1/webhooks/scm`, { method: "POST", headers, body });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { ok: boolean; deliveries: Array<{ slug: string; channel: string; status: number }> };
    expect(result.ok).toBe(true);
    expect(result.deliveries.sort((a, b) => `${a.slug}/${a.channel}`.localeCompare(`${b.slug}/${b.channel}`))).toEqual([
      { slug: "alpha", channel: "github", status: 202 },
      { slug: "beta", channel: "gh", status: 202 },
      // Signed with another secret than this channel's: refused by the channel itself.
      { slug: "beta", channel: "other", status: 401 },
    ]);
    await eventually(async () => (comments().length >= 2 ? true : undefined), 5000, "two replies");
    expect(comments().map((call) => (call.body as { body: string }).body)).toEqual(["reviewed", "reviewed"]);

    const repeat = await fetch(`${server.url}/v1/webhooks/scm`, { method: "POST", headers, body });
    const statuses = ((await repeat.json()) as { deliveries: Array<{ status: number }> }).deliveries.map((d) => d.status).sort();
    expect(statuses).toEqual([200, 200, 401]);

    const proxied = await fetch(`${server.url}/v1/webhooks/scm`, { method: "POST", headers: { ...headers, "x-forwarded-for": "140.82.115.1" }, body });
    expect(proxied.status).toBe(403);
    expect(await proxied.json()).toMatchObject({ ok: false, error: "forbidden" });
    const remote = await host.request("/v1/webhooks/scm", { method: "POST", headers, body }, { ip: "10.1.2.3" });
    expect(remote.status).toBe(403);
    const get = await fetch(`${server.url}/v1/webhooks/scm`);
    expect(get.status).toBe(405);
  });

  test("single mode has the route at the root too; with no GitHub channel mounted the list is empty", async () => {
    const single = createHost({
      mode: "single",
      agents: [{ slug: "solo", project: project({ channels: { hub: githubChannel({ secret: SECRET, apiUrl: api.url, onIssueComment: () => null }) } }), storage: createMemoryStorage() }],
      logger: quietLogger,
    });
    const body = JSON.stringify(commentCreated);
    const headers = { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "single-1", "x-hub-signature-256": await sign(SECRET, body) };
    const response = await single.request("/v1/webhooks/scm", { method: "POST", headers, body });
    expect(await response.json()).toEqual({ ok: true, deliveries: [{ slug: "solo", channel: "hub", status: 200 }] });
    await single.close();
    const none = createHost({ agents: [{ slug: "plain", project: project(), storage: createMemoryStorage() }], logger: quietLogger });
    const empty = await none.request("/v1/webhooks/scm", { method: "POST", headers, body });
    expect(await empty.json()).toEqual({ ok: true, deliveries: [] });
    await none.close();
  });
});
