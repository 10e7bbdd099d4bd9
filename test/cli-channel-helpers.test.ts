/**
 * `slack manifest`, `slack check`, `github manifest` and `github redeliver` through the CLI
 * (docs/guide/cli.md "Channel helpers"): `slack check` asks a local stand-in of Slack's Web API
 * and a real loopback server running the Slack pack; `github redeliver` posts a real example
 * payload to a real loopback server running the GitHub pack, whose replies go to a stand-in REST API.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import examples from "@octokit/webhooks-examples";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { main } from "../cli/main.ts";
import { defaultGitHubAuth, githubChannel } from "../src/entries/channels/github.ts";
import { slackChannel } from "../src/entries/channels/slack.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { eventually, project, quietLogger } from "./_harness.ts";
import { type StubApi, startStubApi } from "./_stub-api.ts";

const SIGNING_SECRET = "0123456789abcdef0123456789abcdef";
const BOT_TOKEN = "xoxb-1-2-good";
const WEBHOOK_SECRET = "webhook-secret-for-redeliver";
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-channel-helpers-"));

let slackApi: StubApi;
let githubApi: StubApi;
let host: AgentHost;
let server: NodeServer;
let agentUrl = "";

beforeAll(async () => {
  slackApi = await startStubApi((call) => {
    const good = call.headers.authorization === `Bearer ${BOT_TOKEN}`;
    return { body: good ? { ok: true, team: "Acme", user: "agentbot", team_id: "T1", user_id: "U1" } : { ok: false, error: "invalid_auth" } };
  });
  githubApi = await startStubApi(() => ({ status: 201, body: { id: 1 } }));
  host = createHost({
    agents: [
      {
        slug: "bot",
        project: project({
          channels: {
            slack: slackChannel({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, apiUrl: `${slackApi.url}/api` }),
            github: githubChannel({ secret: WEBHOOK_SECRET, token: "ghp_x", apiUrl: githubApi.url, onIssue: (ctx) => ({ auth: defaultGitHubAuth(ctx) }) }),
          },
        }),
        storage: createMemoryStorage(),
      },
    ],
    logger: quietLogger,
    drainTimeoutMs: 200,
    auth: { allowAnonymous: true },
  });
  server = await serveNode(host, { port: 0, silent: true });
  agentUrl = `${server.url}/bot`;
});
afterAll(async () => {
  await server?.close(true);
  await host?.close();
  await slackApi?.close();
  await githubApi?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function cli(env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const base: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1" };
  for (const name of ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "GITHUB_WEBHOOK_SECRET"]) delete base[name];
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: { ...base, ...env }, cwd: scratch };
  return { out: () => out, err: () => err, run: (...argv: string[]) => main({ ...io, argv }) };
}

describe("slack", () => {
  test("manifest: the events, scopes and request URL the pack needs", async () => {
    const { run, out } = cli();
    expect(await run("slack", "manifest", "--url", agentUrl, "--name", "Notes")).toBe(0);
    const manifest = JSON.parse(out()) as { display_information: { name: string }; oauth_config: { scopes: { bot: string[] } }; settings: { event_subscriptions: { request_url: string; bot_events: string[] } } };
    expect(manifest.display_information.name).toBe("Notes");
    expect(manifest.settings.event_subscriptions.request_url).toBe(`${agentUrl}/v1/channels/slack/events`);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(["app_mention", "message.im", "message.channels", "message.groups"]);
    expect(manifest.oauth_config.scopes.bot).toEqual(expect.arrayContaining(["app_mentions:read", "chat:write", "reactions:write", "assistant:write"]));
  });

  test("manifest: without --url it takes the last deployment, the alias token in the URL", async () => {
    const dir = join(scratch, "deployed");
    mkdirSync(join(dir, ".agent-serve", "cloudflare"), { recursive: true });
    const state = { worker: "notes", url: "https://notes.example.workers.dev", aliasToken: "tok/en", buildId: "b", mode: "multi", slugs: ["notes"], outDir: "", deployedAt: "" };
    writeFileSync(join(dir, ".agent-serve", "cloudflare", "deployment.json"), JSON.stringify(state));
    const { run, out } = cli();
    expect(await run("slack", "manifest", "--dir", dir, "--json")).toBe(0);
    expect(JSON.parse(out())).toMatchObject({ ok: true, requestUrl: "https://notes.example.workers.dev/notes/v1/channels/slack/events?agent_alias_token=tok%2Fen" });
    const none = cli();
    expect(await none.run("slack", "manifest")).toBe(2);
    expect(none.err()).toMatch(/pass --url <agent URL>.*or deploy first/);
  });

  test("check: the token through auth.test, the secret against the running server", async () => {
    const good = cli({ SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: `${slackApi.url}/api` });
    expect(await good.run("slack", "check", "--url", agentUrl, "--json")).toBe(0);
    expect(JSON.parse(good.out())).toEqual({
      ok: true,
      checks: [
        { name: "bot token", ok: true, detail: "valid for team Acme as agentbot" },
        { name: "signing secret", ok: true, detail: `${agentUrl}/v1/channels/slack/events accepts requests signed with it` },
      ],
    });
    expect(slackApi.calls.at(-1)).toMatchObject({ method: "POST", path: "/api/auth.test" });

    const bad = cli({ SLACK_BOT_TOKEN: "xoxb-revoked", SLACK_SIGNING_SECRET: "ffffffffffffffffffffffffffffffff", SLACK_API_URL: `${slackApi.url}/api` });
    expect(await bad.run("slack", "check", "--url", agentUrl)).toBe(1);
    expect(bad.out()).toMatch(/FAIL bot token: Slack refused SLACK_BOT_TOKEN: invalid_auth \(reinstall the app/);
    expect(bad.out()).toMatch(/FAIL signing secret: .* rejects requests signed with SLACK_SIGNING_SECRET: the server's secret differs/);

    const unset = cli();
    expect(await unset.run("slack", "check")).toBe(1);
    expect(unset.out()).toMatch(/SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token/);
    expect(unset.out()).toMatch(/SLACK_SIGNING_SECRET is not set/);
  });
});

describe("github", () => {
  test("manifest: webhook URL, permissions and the events the pack handles", async () => {
    const { run, out } = cli();
    expect(await run("github", "manifest", "--url", agentUrl, "--name", "notes-bot", "--json")).toBe(0);
    expect(JSON.parse(out())).toMatchObject({
      ok: true,
      webhookUrl: `${agentUrl}/v1/channels/github/webhook`,
      manifest: {
        name: "notes-bot",
        hook_attributes: { url: `${agentUrl}/v1/channels/github/webhook`, active: true },
        default_events: ["pull_request", "issues", "issue_comment"],
        default_permissions: { issues: "write", pull_requests: "write", metadata: "read" },
      },
    });
  });

  test("redeliver: signs a saved payload and posts it; the server starts a conversation", async () => {
    const definition = (examples as unknown as Array<{ name: string; examples: Array<Record<string, unknown>> }>).find((entry) => entry.name === "issues");
    const payload = definition!.examples.find((p) => p.action === "opened")!;
    const file = join(scratch, "issue-opened.json");
    writeFileSync(file, JSON.stringify(payload));
    const sent = cli({ GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET });
    expect(await sent.run("github", "redeliver", file, "--url", agentUrl, "--delivery", "d-1", "--json")).toBe(0);
    expect(JSON.parse(sent.out())).toMatchObject({ ok: true, event: "issues", delivery: "d-1", signed: true });
    await eventually(async () => {
      const { sessions } = (await (await fetch(`${agentUrl}/v1/sessions`)).json()) as { sessions: Array<{ channel: string }> };
      return sessions.some((s) => s.channel === "github") || undefined;
    }, 5000, "a github session");

    const wrong = cli({ GITHUB_WEBHOOK_SECRET: "not-the-secret" });
    expect(await wrong.run("github", "redeliver", file, "--url", agentUrl)).toBe(1);
    expect(wrong.out()).toMatch(/issues delivery .* \(signed\) → 401/);
    expect(wrong.err()).toMatch(/set GITHUB_WEBHOOK_SECRET to the secret the server has/);

    const unknown = cli();
    writeFileSync(join(scratch, "odd.json"), "{}");
    expect(await unknown.run("github", "redeliver", "odd.json", "--url", agentUrl)).toBe(2);
    expect(unknown.err()).toMatch(/cannot tell the event of odd.json: pass --event/);
  });
});
