/**
 * The GitHub pack on real payloads (`@octokit/webhooks-examples`), signed with
 * `@octokit/webhooks-methods`' `sign`, posted to a real loopback server; a local HTTP server
 * stands in for the REST API and records the comments the channel posts.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import examples from "@octokit/webhooks-examples";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { defaultGitHubAuth, githubChannel, parseGitHubPrContinuationKey } from "../src/entries/channels/github.ts";
import type { GitHubChannelOptions } from "../src/entries/channels/github.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, project, quietLogger } from "./_harness.ts";
import { type StubApi, startStubApi } from "./_stub-api.ts";

const SECRET = "It's a Secret to Everybody";
const TOKEN = "ghp_test_token";

type Payload = Record<string, unknown> & { action?: string };
function example(event: string, action: string, pick: (payload: Payload) => boolean = () => true): Payload {
  const definition = (examples as unknown as Array<{ name: string; examples: Payload[] }>).find((entry) => entry.name === event);
  const found = definition?.examples.find((payload) => payload.action === action && pick(payload));
  if (!found) throw new Error(`no ${event}.${action} example`);
  return structuredClone(found);
}

const prOpened = example("pull_request", "opened", (p) => (p.pull_request as { draft?: boolean }).draft === false);
const prReady = example("pull_request", "ready_for_review");
const prClosed = example("pull_request", "closed");
const commentCreated = example("issue_comment", "created", (p) => !(p.issue as { pull_request?: unknown }).pull_request);
const issueOpened = example("issues", "opened");

let api: StubApi;
let nextCommentId = 1;
beforeAll(async () => {
  api = await startStubApi((call) => ({ status: 201, body: { id: nextCommentId++, url: `${call.path}/x` } }));
});
afterAll(() => api.close());

const comments = () => api.calls.filter((call) => call.method === "POST" && call.path.endsWith("/comments"));

interface Running {
  host: AgentHost;
  server: NodeServer;
  hooks: Array<{ event: string; subject: unknown }>;
  deliver(event: string, payload: unknown, options?: { id?: string; signature?: string | null; raw?: string; headers?: Record<string, string>; path?: string }): Promise<Response>;
  sessions(): Promise<Array<{ sessionId: string; channel: string; continuationToken: string }>>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const target of running.splice(0)) {
    await target.host.close();
    await target.server.close(true);
  }
  api.calls.length = 0;
});

let deliveryCounter = 0;
async function start(options: Partial<GitHubChannelOptions> = {}, host: { dev?: boolean; storage?: StorageDriver } = {}): Promise<Running> {
  const hooks: Running["hooks"] = [];
  const channel = githubChannel({
    secret: SECRET,
    token: TOKEN,
    apiUrl: api.url,
    botName: "review-bot",
    onPullRequest: (ctx, pr) => {
      hooks.push({ event: ctx.event, subject: pr });
      if (pr.draft || !["opened", "ready_for_review"].includes(pr.action ?? "")) return null;
      return { auth: defaultGitHubAuth(ctx) };
    },
    onIssueComment: (ctx, comment) => {
      hooks.push({ event: ctx.event, subject: comment });
      return { auth: defaultGitHubAuth(ctx), message: comment.body ?? "" };
    },
    onIssue: (ctx, issue) => {
      hooks.push({ event: ctx.event, subject: issue });
      return {
        task: async (task) => {
          await task.github.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", {
            owner: task.repository!.owner,
            repo: task.repository!.name,
            issue_number: issue.number,
            labels: ["triage"],
          });
        },
      };
    },
    ...options,
  });
  const agentHost = createHost({
    agents: [{ slug: "reviewer", project: project({ channels: { github: channel } }), storage: host.storage ?? createMemoryStorage() }],
    logger: quietLogger,
    drainTimeoutMs: 200,
    dev: host.dev ?? false,
    // An anonymous deployment lists every principal's sessions, so the tests can count them.
    auth: { allowAnonymous: true },
  });
  const server = await serveNode(agentHost, { port: 0, silent: true });
  const target: Running = {
    host: agentHost,
    server,
    hooks,
    async deliver(event, payload, { id, signature, raw, headers = {}, path = "/reviewer/v1/channels/github/webhook" } = {}) {
      const body = raw ?? JSON.stringify(payload);
      const signed = signature === undefined ? await sign(SECRET, body) : signature;
      return fetch(`${server.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": id ?? `72d3162e-cc78-11e3-81ab-4c9367dc${String(++deliveryCounter).padStart(4, "0")}`,
          ...(signed === null ? {} : { "x-hub-signature-256": signed }),
          ...headers,
        },
        body,
      });
    },
    async sessions() {
      const response = await fetch(`${server.url}/reviewer/v1/sessions`);
      return ((await response.json()) as { sessions: Array<{ sessionId: string; channel: string; continuationToken: string }> }).sessions;
    },
  };
  running.push(target);
  return target;
}

describe("github pack: deliveries that start turns", () => {
  test("pull_request opened then ready_for_review: one PR conversation, each answer posted as an issue comment", async () => {
    const github = await start();
    const opened = await github.deliver("pull_request", prOpened);
    expect(opened.status).toBe(202);
    const accepted = (await opened.json()) as { ok: boolean; sessionId: string; continuationToken: string };
    expect(accepted).toMatchObject({ ok: true, continuationToken: "pr:Codertocat/Hello-World#2" });
    expect(parseGitHubPrContinuationKey(accepted.continuationToken)).toEqual({ owner: "Codertocat", repo: "Hello-World", number: 2 });

    const first = await eventually(async () => (comments().length >= 1 ? comments()[0] : undefined), 5000, "first comment");
    expect(first.path).toBe("/repos/Codertocat/Hello-World/issues/2/comments");
    expect(first.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const firstBody = (first.body as { body: string }).body;
    expect(firstBody).toMatch(/^echo: Pull request Codertocat\/Hello-World#2 opened by @Codertocat: Update the README with new information\./);

    const ready = await github.deliver("pull_request", prReady);
    expect(ready.status).toBe(202);
    expect(((await ready.json()) as { sessionId: string }).sessionId).toBe(accepted.sessionId);
    await eventually(async () => (comments().length >= 2 ? true : undefined), 5000, "second comment");
    expect((comments()[1]!.body as { body: string }).body).toMatch(/ready_for_review/);

    const sessions = await github.sessions();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ channel: "github", continuationToken: "pr:Codertocat/Hello-World#2" });
    // The hook saw the pull request with the delivery's action.
    expect(github.hooks.map((hook) => (hook.subject as { action: string }).action)).toEqual(["opened", "ready_for_review"]);
    // The session belongs to the sender.
    const owner = await fetch(`${github.server.url}/reviewer/v1/session/${accepted.sessionId}/events`);
    expect(owner.status).toBe(200);
  });

  test("issue_comment created continues the issue's conversation with the comment as the message", async () => {
    const github = await start();
    const response = await github.deliver("issue_comment", commentCreated);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ continuationToken: "issue:Codertocat/Hello-World#1" });
    const comment = await eventually(async () => comments()[0], 5000, "reply comment");
    expect(comment.path).toBe("/repos/Codertocat/Hello-World/issues/1/comments");
    expect((comment.body as { body: string }).body).toBe(`echo: ${(commentCreated.comment as { body: string }).body}`);
    const subject = github.hooks[0]?.subject as { onPullRequest: boolean; issue: { number: number }; action: string };
    expect(subject).toMatchObject({ onPullRequest: false, action: "created", issue: { number: 1 } });
  });

  test("a webhook set to application/x-www-form-urlencoded works the same (payload=<json>, signed as sent)", async () => {
    const github = await start();
    const raw = new URLSearchParams({ payload: JSON.stringify(commentCreated) }).toString();
    const response = await github.deliver("issue_comment", null, { raw, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ continuationToken: "issue:Codertocat/Hello-World#1" });
    await eventually(async () => comments()[0], 5000, "reply");
  });

  test("a failed turn posts a short error notice", async () => {
    const github = await start({
      onIssueComment: (ctx, comment) => ({ auth: defaultGitHubAuth(ctx), message: comment.body?.startsWith("fail") ? "/fail model unavailable" : "/reply ok" }),
    });
    const failing = { ...structuredClone(commentCreated), comment: { ...(commentCreated.comment as object), body: "fail please" } };
    expect((await github.deliver("issue_comment", failing)).status).toBe(202);
    const notice = await eventually(async () => comments()[0], 5000, "error notice");
    expect((notice.body as { body: string }).body).toBe("⚠️ I could not finish this (model unavailable).");
  });
});

describe("github pack: replies", () => {
  const binding = (state: Record<string, unknown> = {}) => ({ id: "ses_x", sessionId: "ses_x", continuationToken: "pr:acme/checkout#7", state });
  const event = (index: number, data: { text: string; finishReason: "stop" | "tool_call" }) => ({ type: "message.completed" as const, index, sessionId: "ses_x", turnId: "turn_1", at: new Date().toISOString(), data });
  const context = { logger: quietLogger, channel: { id: "github" }, attempt: 0 } as never;

  test("text of a tool-calling step and empty text are not posted; an index is answered once", async () => {
    const channel = githubChannel({ token: TOKEN, apiUrl: api.url });
    const completed = channel.events!["message.completed"]!;
    const state = binding();
    await completed(event(3, { text: "Let me look at the diff first.", finishReason: "tool_call" }), state, context);
    await completed(event(4, { text: "   ", finishReason: "stop" }), state, context);
    expect(comments()).toEqual([]);
    await completed(event(5, { text: "Looks good to me.", finishReason: "stop" }), state, context);
    // At-least-once delivery hands the same event over again: it is not posted twice.
    await completed(event(5, { text: "Looks good to me.", finishReason: "stop" }), state, context);
    expect(comments().map((call) => [call.path, (call.body as { body: string }).body])).toEqual([
      ["/repos/acme/checkout/issues/7/comments", "Looks good to me."],
    ]);
  });

  test("without a token nothing is posted and the turn's events are not retried forever", async () => {
    const warnings: string[] = [];
    const channel = githubChannel({ token: "", apiUrl: api.url });
    const logger = { ...quietLogger, warn: (message: string) => warnings.push(message) };
    await channel.events!["message.completed"]!(event(1, { text: "hi", finishReason: "stop" }), binding(), { ...(context as object), logger } as never);
    expect(comments()).toEqual([]);
    expect(warnings.join("\n")).toMatch(/GITHUB_TOKEN/);
  });
});

describe("github pack: deliveries that start no turn", () => {
  test("issues opened runs the hook's task as host work (202) and starts no session", async () => {
    const github = await start();
    const response = await github.deliver("issues", issueOpened);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ ok: true, task: true });
    const label = await eventually(async () => api.calls.find((call) => call.path.endsWith("/labels")), 5000, "labels call");
    expect(label.path).toBe("/repos/Codertocat/Hello-World/issues/1/labels");
    expect(label.body).toEqual({ labels: ["triage"] });
    expect(label.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(await github.sessions()).toEqual([]);
  });

  test("a hook returning null, an event with no hook, ping, and the bot's own comment are ignored with 200", async () => {
    const github = await start();
    const closed = await github.deliver("pull_request", prClosed);
    expect(closed.status).toBe(200);
    expect(await closed.json()).toEqual({ ok: true, ignored: true });
    const star = await github.deliver("star", { action: "created", repository: prOpened.repository, sender: prOpened.sender });
    expect(await star.json()).toEqual({ ok: true, ignored: true });
    const ping = await github.deliver("ping", { zen: "Design for failure.", hook_id: 1 });
    expect(await ping.json()).toEqual({ ok: true, ping: true });
    const own = structuredClone(commentCreated);
    (own.comment as { user: { login: string } }).user.login = "review-bot[bot]";
    const mine = await github.deliver("issue_comment", own);
    expect(await mine.json()).toEqual({ ok: true, ignored: true });
    expect(github.hooks.filter((hook) => hook.event === "issue_comment")).toEqual([]);
    expect(await github.sessions()).toEqual([]);
  });

  test("a repeated X-GitHub-Delivery answers duplicate and starts nothing", async () => {
    const github = await start();
    const id = "dup-0001";
    expect((await github.deliver("issue_comment", commentCreated, { id })).status).toBe(202);
    const again = await github.deliver("issue_comment", commentCreated, { id });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true });
    await eventually(async () => comments()[0], 5000, "reply");
    await github.host.tick();
    expect(github.hooks).toHaveLength(1);
    expect(await github.sessions()).toHaveLength(1);
  });

  test("delivery ids are remembered in the host's storage, across a restart", async () => {
    const root = await mkdtemp(join(tmpdir(), "gh-dedupe-"));
    try {
      const first = await start({}, { storage: createSqliteStorage({ path: join(root, "state.db"), sync: "normal" }) });
      expect((await first.deliver("pull_request", prOpened, { id: "restart-1" })).status).toBe(202);
      await eventually(async () => comments()[0], 5000, "reply");
      await first.host.close();
      await first.server.close(true);
      running.splice(running.indexOf(first), 1);
      const second = await start({}, { storage: createSqliteStorage({ path: join(root, "state.db"), sync: "normal" }) });
      const again = await second.deliver("pull_request", prOpened, { id: "restart-1" });
      expect(await again.json()).toEqual({ ok: true, duplicate: true });
      expect(second.hooks).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("github pack: failures", () => {
  test("a hook that throws answers 500 and does not use the delivery up: GitHub's redelivery is handled", async () => {
    let calls = 0;
    const github = await start({
      onPullRequest: (ctx) => {
        calls += 1;
        if (calls === 1) throw new Error("flaky lookup");
        return { auth: defaultGitHubAuth(ctx), message: "/reply second try" };
      },
    });
    const first = await github.deliver("pull_request", prOpened, { id: "flaky-1" });
    expect(first.status).toBe(500);
    expect(await first.json()).toEqual({ ok: false, error: "internal_error", message: "internal error" });
    expect(await github.sessions()).toEqual([]);
    const redelivered = await github.deliver("pull_request", prOpened, { id: "flaky-1" });
    expect(redelivered.status).toBe(202);
    const comment = await eventually(async () => comments()[0], 5000, "reply");
    expect((comment.body as { body: string }).body).toBe("second try");
  });
});

describe("github pack: bad input", () => {
  test("wrong and missing signatures are 401 invalid_signature; nothing runs, and the delivery is not used up", async () => {
    const github = await start();
    const wrong = await github.deliver("pull_request", prOpened, { id: "sig-1", signature: await sign("another secret", JSON.stringify(prOpened)) });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ ok: false, error: "invalid_signature" });
    const missing = await github.deliver("pull_request", prOpened, { id: "sig-1", signature: null });
    expect(missing.status).toBe(401);
    const garbled = await github.deliver("pull_request", prOpened, { id: "sig-1", signature: "sha256=zz" });
    expect(garbled.status).toBe(401);
    // The body changed after signing.
    const tampered = await github.deliver("pull_request", prOpened, {
      id: "sig-1",
      signature: await sign(SECRET, JSON.stringify(prOpened)),
      raw: JSON.stringify({ ...prOpened, action: "ready_for_review" }),
    });
    expect(tampered.status).toBe(401);
    expect(github.hooks).toEqual([]);
    expect(await github.sessions()).toEqual([]);
    // Nothing lost: the genuine delivery with the same id is still handled.
    expect((await github.deliver("pull_request", prOpened, { id: "sig-1" })).status).toBe(202);
  });

  test("malformed JSON is 400; missing event or delivery headers are 400; no session", async () => {
    const github = await start();
    const malformed = await github.deliver("pull_request", null, { raw: "{not json" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ ok: false, error: "invalid_request" });
    const noEvent = await github.deliver("", prOpened);
    expect(noEvent.status).toBe(400);
    const badId = await github.deliver("pull_request", prOpened, { id: "../etc" });
    expect(badId.status).toBe(400);
    expect(await github.sessions()).toEqual([]);
  });

  test("without a secret: 401 outside --dev; under --dev only direct loopback deliveries are admitted", async () => {
    const strict = await start({ secret: undefined });
    const refused = await strict.deliver("pull_request", prOpened, { signature: null });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: "invalid_signature" });

    const dev = await start({ secret: undefined }, { dev: true });
    const tunnelled = await dev.deliver("pull_request", prOpened, { signature: null, headers: { "x-forwarded-for": "140.82.115.1" } });
    expect(tunnelled.status).toBe(401);
    const local = await dev.deliver("pull_request", prOpened, { signature: null });
    expect(local.status).toBe(202);
  });
});
