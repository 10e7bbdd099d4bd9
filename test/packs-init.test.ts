/** `init --template github` and `init --template slack`: the scaffold validates, warns about its settings, and serves. */
import { createHmac } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import examples from "@octokit/webhooks-examples";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAfterEach, runCli, startServe } from "./_cli.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { eventually } from "./_harness.ts";
import { type StubApi, startStubApi } from "./_stub-api.ts";

const { dir: scratch, env: baseEnv } = scratchDir("packs-init");
const running = killAfterEach();
const env: NodeJS.ProcessEnv = { ...baseEnv };
for (const name of ["GITHUB_WEBHOOK_SECRET", "GITHUB_TOKEN", "GITHUB_API_URL", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL"]) delete env[name];
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let api: StubApi;
beforeAll(async () => {
  api = await startStubApi((call) => (call.path.startsWith("/gh/") ? { status: 201, body: { id: 7 } } : { body: { ok: true, ts: "1700000000.000100" } }));
});
afterAll(() => api.close());

describe("init --template github", () => {
  it("scaffolds a GitHub reviewer that validates (warning about its settings) and replies on a signed delivery", async () => {
    expect((await run(["init", "reviewer", "--template", "github"], { env, cwd: scratch })).code).toBe(0);
    const dir = join(scratch, "reviewer");
    expect(readFileSync(join(dir, "bot/channels/github.ts"), "utf8")).toContain(`from "agent-serve/channels/github"`);
    expect(existsSync(join(dir, ".env.example"))).toBe(true);
    const validate = await runCli(["validate", dir], env);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("GITHUB_WEBHOOK_SECRET is not set");
    expect(validate.stdout).toContain("GITHUB_TOKEN is not set");

    const server = await startServe([dir, "--port", "0"], { ...env, GITHUB_WEBHOOK_SECRET: "s3cret", GITHUB_TOKEN: "ghp_x", GITHUB_API_URL: `${api.url}/gh` });
    running.push(server);
    const payload = (examples as unknown as Array<{ name: string; examples: Array<Record<string, unknown>> }>)
      .find((entry) => entry.name === "issue_comment")!
      .examples.find((example) => example.action === "created")!;
    const mentioned = JSON.stringify({ ...payload, comment: { ...(payload.comment as object), body: "@my-review-bot what do you think?" } });
    const response = await fetch(`${server.url}/reviewer/v1/channels/github/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": "init-1", "x-hub-signature-256": await sign("s3cret", mentioned) },
      body: mentioned,
    });
    expect(response.status).toBe(202);
    const comment = await eventually(async () => api.calls.find((call) => call.path.startsWith("/gh/repos/")), 10_000, "comment");
    expect(comment.body).toEqual({ body: "echo: @my-review-bot what do you think?" });
  });
});

describe("init --template slack", () => {
  it("scaffolds a Slack teammate that validates (warning about its settings) and answers a signed mention", async () => {
    expect((await run(["init", "teammate", "--template", "slack"], { env, cwd: scratch })).code).toBe(0);
    const dir = join(scratch, "teammate");
    expect(readFileSync(join(dir, "bot/channels/slack.ts"), "utf8")).toContain(`from "agent-serve/channels/slack"`);
    const validate = await runCli(["validate", dir], env);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("SLACK_SIGNING_SECRET is not set");
    expect(validate.stdout).toContain("SLACK_BOT_TOKEN is not set");

    const server = await startServe([dir, "--port", "0"], { ...env, SLACK_SIGNING_SECRET: "shh", SLACK_BOT_TOKEN: "xoxb-1", SLACK_API_URL: `${api.url}/slack` });
    running.push(server);
    const body = JSON.stringify({
      type: "event_callback",
      team_id: "T1",
      event_id: "Ev9",
      authorizations: [{ user_id: "UBOT", is_bot: true }],
      event: { type: "app_mention", user: "U1", text: "<@UBOT> hello", ts: "1700000002.000300", channel: "C9" },
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`${server.url}/teammate/v1/channels/slack/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": `v0=${createHmac("sha256", "shh").update(`v0:${timestamp}:${body}`).digest("hex")}`,
      },
      body,
    });
    expect(response.status).toBe(200);
    const reply = await eventually(async () => api.calls.find((call) => call.path === "/slack/chat.postMessage"), 10_000, "reply");
    expect(reply.body).toMatchObject({ channel: "C9", thread_ts: "1700000002.000300", text: "echo: hello" });
    await eventually(async () => api.calls.find((call) => call.path === "/slack/reactions.add"), 10_000, "status reaction");
  });
});
