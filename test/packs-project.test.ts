/**
 * Agent SDK projects that use the packs run unchanged: channel files importing
 * `@cursor/bdk/channels/github` and `@cursor/bdk/channels/slack` load through the loader's
 * aliases, `validate` warns about missing secrets and unused SDK options, and the real CLI serves
 * them with every setting taken from the environment.
 */
import { createHmac } from "node:crypto";
import { join } from "node:path";
import examples from "@octokit/webhooks-examples";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { cliEnv, killAfterEach, runCli, startServe } from "./_cli.ts";
import { eventually } from "./_harness.ts";
import { type StubApi, startStubApi } from "./_stub-api.ts";
import { tempProjects } from "./_temp-projects.ts";

const write = tempProjects("packs");
const running = killAfterEach();

const GITHUB_FILE = `
import { defaultGitHubAuth, githubChannel, parseGitHubPrContinuationKey } from "@cursor/bdk/channels/github";

export default githubChannel({
  botName: "review-bot",
  cursorAccount: { repos: ["Codertocat/Hello-World"] },
  onPullRequest: (ctx, pr) => {
    if (pr.draft || !["opened", "ready_for_review"].includes(pr.action)) return null;
    const key = parseGitHubPrContinuationKey(ctx.continuationToken);
    return { auth: defaultGitHubAuth(ctx), message: "/reply reviewing " + key.owner + "/" + key.repo + " #" + key.number };
  },
});
`;

const SLACK_FILE = `
import { slackChannel } from "@cursor/bdk/channels/slack";

export default slackChannel({
  envPrefix: "TRIAGE",
  reply: { mode: "post", status: { reasoning: true, tools: true, idle: ["is thinking…"] } },
});
`;

const PACK_VARIABLES = ["GITHUB_WEBHOOK_SECRET", "GITHUB_TOKEN", "GITHUB_API_URL", "TRIAGE_SLACK_BOT_TOKEN", "TRIAGE_SLACK_SIGNING_SECRET", "SLACK_API_URL"];

let api: StubApi;
beforeAll(async () => {
  api = await startStubApi((call) => ({ status: call.path.startsWith("/gh/") ? 201 : 200, body: call.path.startsWith("/gh/") ? { id: 1 } : { ok: true, ts: "1700000000.000100" } }));
});
afterAll(() => api.close());

function baseEnv(dir: string): NodeJS.ProcessEnv {
  const env = cliEnv(join(dir, "config"));
  for (const name of PACK_VARIABLES) delete env[name];
  return env;
}

test("the loader resolves @cursor/bdk/channels/{github,slack}; missing secrets and the unused cursorAccount are warnings", async () => {
  const dir = write({ "bot/channels/github.ts": GITHUB_FILE, "bot/channels/slack.ts": SLACK_FILE });
  const saved = Object.fromEntries(PACK_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of PACK_VARIABLES) delete process.env[name];
  try {
    const project = await loadProject(dir);
    expect(Object.keys(project.channels ?? {}).sort()).toEqual(["github", "slack"]);
    const packDiagnostics = project.diagnostics.filter((d) => d.code.startsWith("channel_pack_"));
    expect(project.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(new Set(packDiagnostics.map((d) => d.file))).toEqual(new Set(["bot/channels/github.ts", "bot/channels/slack.ts"]));
    expect(packDiagnostics.map((d) => `${d.severity} ${d.message.replace(/;.*/, "")}`).sort()).toEqual([
      "warning channel github (github pack): GITHUB_TOKEN is not set",
      "warning channel github (github pack): GITHUB_WEBHOOK_SECRET is not set",
      "warning channel github (github pack): cursorAccount is not used: deliveries come from a repository webhook to POST /v1/channels/<id>/webhook (its repos still filter deliveries)",
      "warning channel slack (slack pack): TRIAGE_SLACK_BOT_TOKEN is not set",
      "warning channel slack (slack pack): TRIAGE_SLACK_SIGNING_SECRET is not set",
    ]);
  } finally {
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  }
});

test("validate prints the warnings and exits 0; with the variables set, only the cursorAccount notice is left", async () => {
  const dir = write({ "bot/channels/github.ts": GITHUB_FILE, "bot/channels/slack.ts": SLACK_FILE });
  const bare = await runCli(["validate", dir], baseEnv(dir));
  expect(bare.code).toBe(0);
  for (const name of ["GITHUB_WEBHOOK_SECRET", "GITHUB_TOKEN", "TRIAGE_SLACK_BOT_TOKEN", "TRIAGE_SLACK_SIGNING_SECRET"]) {
    expect(bare.stdout).toContain(`${name} is not set`);
  }
  const configured = await runCli(["validate", dir], {
    ...baseEnv(dir),
    GITHUB_WEBHOOK_SECRET: "s",
    GITHUB_TOKEN: "t",
    TRIAGE_SLACK_BOT_TOKEN: "xoxb-1",
    TRIAGE_SLACK_SIGNING_SECRET: "s2",
  });
  expect(configured.code).toBe(0);
  expect(configured.stdout).not.toContain("is not set");
  expect(configured.stdout).toContain("cursorAccount is not used");
});

test("the real CLI serves both packs from environment settings: a signed PR delivery gets a comment, a signed mention a thread reply", async () => {
  const dir = write({ "bot/channels/github.ts": GITHUB_FILE, "bot/channels/slack.ts": SLACK_FILE });
  const env = {
    ...baseEnv(dir),
    GITHUB_WEBHOOK_SECRET: "gh-secret",
    GITHUB_TOKEN: "ghp_env",
    GITHUB_API_URL: `${api.url}/gh`,
    TRIAGE_SLACK_BOT_TOKEN: "xoxb-env",
    TRIAGE_SLACK_SIGNING_SECRET: "slack-secret",
    SLACK_API_URL: `${api.url}/slack`,
  };
  const server = await startServe([dir, "--port", "0", "--mode", "single", "--state-root", join(dir, "state")], env);
  running.push(server);

  const definition = (examples as unknown as Array<{ name: string; examples: Array<Record<string, unknown>> }>).find((entry) => entry.name === "pull_request");
  const opened = definition!.examples.find((payload) => payload.action === "opened" && !(payload.pull_request as { draft: boolean }).draft)!;
  const body = JSON.stringify(opened);
  const delivery = await fetch(`${server.url}/v1/channels/github/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": "cli-1", "x-hub-signature-256": await sign("gh-secret", body) },
    body,
  });
  expect(delivery.status).toBe(202);
  const comment = await eventually(async () => api.calls.find((call) => call.path === "/gh/repos/Codertocat/Hello-World/issues/2/comments"), 10_000, "comment");
  expect(comment.body).toEqual({ body: "reviewing Codertocat/Hello-World #2" });
  expect(comment.headers.authorization).toBe("Bearer ghp_env");

  // A repository outside cursorAccount.repos is ignored.
  const elsewhere = JSON.stringify({ ...opened, repository: { ...(opened.repository as object), name: "Other", full_name: "Codertocat/Other" } });
  const other = await fetch(`${server.url}/v1/channels/github/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": "cli-2", "x-hub-signature-256": await sign("gh-secret", elsewhere) },
    body: elsewhere,
  });
  expect(await other.json()).toEqual({ ok: true, ignored: true });

  const slackBody = JSON.stringify({
    type: "event_callback",
    team_id: "T1",
    event_id: "Ev1",
    authorizations: [{ user_id: "UBOT", is_bot: true }],
    event: { type: "app_mention", user: "U1", text: "<@UBOT> /reply on it", ts: "1700000001.000200", channel: "C1" },
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const mention = await fetch(`${server.url}/v1/channels/slack/events`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": `v0=${createHmac("sha256", "slack-secret").update(`v0:${timestamp}:${slackBody}`).digest("hex")}`,
    },
    body: slackBody,
  });
  expect(mention.status).toBe(200);
  const reply = await eventually(async () => api.calls.find((call) => call.path === "/slack/chat.postMessage"), 10_000, "slack reply");
  expect(reply.body).toMatchObject({ channel: "C1", thread_ts: "1700000001.000200", text: "on it" });
  expect(reply.headers.authorization).toBe("Bearer xoxb-env");
});

test("the docs site has the Slack and GitHub guides after the channels guide, and the links to them resolve", async () => {
  const { renderDocsSite } = await import("../loader/docs-site.ts");
  const site = await renderDocsSite();
  expect(site.pages["guide/slack"]?.title).toBe("Slack channel");
  expect(site.pages["guide/github"]?.title).toBe("GitHub channel");
  expect(site.pages["design/channel-packs"]?.html).toContain("<h1>Channel packs (Slack, GitHub) and <code>/v1/webhooks/scm</code></h1>");
  const nav = site.pages[""]!.html;
  expect(nav.indexOf('href="/docs/guide/channels"')).toBeLessThan(nav.indexOf('href="/docs/guide/slack"'));
  expect(nav.indexOf('href="/docs/guide/slack"')).toBeLessThan(nav.indexOf('href="/docs/guide/github"'));
  expect(site.pages["guide/channels"]!.html).toContain('<a href="/docs/guide/slack">Slack channel</a>');
  expect(site.pages["guide/http-api"]!.html).toContain('<a href="/docs/guide/github">GitHub channel</a>');
});
